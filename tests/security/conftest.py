"""The security suite reuses the API fixtures: one app over the session's database and model, and a workspace
holding the sample contract and the rent roll. Every attempt this suite makes to escape is counted in
``ATTEMPTS`` and printed at the end of the run (the issue's closing note lists them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.api.conftest import API_WORKSPACE, app, client, fixtures_workspace, hub  # noqa: F401

ATTEMPTS: Counter[str] = Counter()


@pytest.fixture(scope="session", autouse=True)
def _report_attempts() -> Iterator[None]:
    yield
    if ATTEMPTS:
        lines = [f"  {kind}: {count} refused" for kind, count in sorted(ATTEMPTS.items())]
        print("\nescape attempts (all refused):\n" + "\n".join(lines))  # noqa: T201


__all__ = ["API_WORKSPACE", "ATTEMPTS"]
