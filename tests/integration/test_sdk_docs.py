"""docs/sdk.md and docs/adapters.md are runnable: their Python blocks run in order, in one namespace per page, against
this run's database."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cli_env")]

BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def test_every_sdk_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    page = (ROOT / "docs" / "sdk.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(page)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {"__name__": "sdk_docs"}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the examples name files relative to the repository
    try:
        for number, block in enumerate(blocks, start=1):
            exec(compile(block, f"docs/sdk.md block {number}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "sample_contract.pdf p.1 § Section 8.22" in out


def test_every_adapter_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    page = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(page)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "adapter_docs"}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for number, block in enumerate(blocks, start=1):
            exec(compile(block, f"docs/adapters.md block {number}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "['sample_contract.pdf p.1 § Section 8.22 Permitted Use of Premises']" in out
    assert "unbalanced quote" in out, "the malformed query's error is printed"
