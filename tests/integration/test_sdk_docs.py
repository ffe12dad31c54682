"""docs/sdk.md and docs/adapters.md are runnable: their Python blocks run in order, in one namespace per page, against
this run's database."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cli_env")]

BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def run_blocks(page: str) -> int:
    """Run the Python blocks of ``docs/<page>`` in order, in one namespace, from the repository's root; how many
    there were."""
    blocks = BLOCK.findall((ROOT / "docs" / page).read_text(encoding="utf-8"))
    namespace: dict[str, object] = {"__name__": page.replace(".", "_")}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the examples name files relative to the repository
    try:
        for number, block in enumerate(blocks, start=1):
            exec(compile(block, f"docs/{page} block {number}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return len(blocks)


def test_every_sdk_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_blocks("sdk.md") >= 5
    out = capsys.readouterr().out
    assert "sample_contract.pdf p.1 § Section 8.22" in out


def test_every_adapter_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_blocks("adapters.md") >= 3
    out = capsys.readouterr().out
    assert "['sample_contract.pdf p.1 § Section 8.22 Permitted Use of Premises']" in out
    assert "unbalanced quote" in out, "the malformed query's error is printed"
