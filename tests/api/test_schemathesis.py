"""Schemathesis against the real app: generated requests for every operation of the OpenAPI document, valid
and invalid; no server error, and every response conforms to the document (status, content type, headers,
body schema), invalid input is refused and valid input accepted.

Schemathesis' own pytest plugin does not work with this pytest, so each operation is driven with
``operation.as_strategy()`` under Hypothesis.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode, checks
from schemathesis.core.errors import InvalidSchema
from schemathesis.core.result import Err, Ok

from kruschnexus.api.app import create_app
from kruschnexus.config import Settings
from kruschnexus.hub import Hub

pytestmark = pytest.mark.integration

Operation = schemathesis.APIOperation[Any, Any, Any, Any]


def _parsed(result: Ok[Operation] | Err[InvalidSchema]) -> Operation:
    """An operation schemathesis read from the OpenAPI document (one it could not read fails, with its error)."""
    assert isinstance(result, Ok), result.err()
    return result.ok()


# Routes only: a hub that is never started (nothing connects) is enough to list the operations.
_ROUTES = schemathesis.openapi.from_asgi("/v1/openapi.json", create_app(Hub(Settings.load(env={}))))
_OPS = [_parsed(r) for r in _ROUTES.get_all_operations()]
_INPUTS = {op.label: bool(list(op.iter_parameters())) or bool(op.body) for op in _OPS}
CASES = [
    pytest.param(label, mode, id=f"{label} {mode.value}")
    for label, has_inputs in sorted(_INPUTS.items())
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if has_inputs or mode is GenerationMode.POSITIVE  # nothing to make invalid without inputs
]
UPLOAD = "POST /v1/workspaces/{workspace}/documents"


def test_every_route_is_fuzzed() -> None:
    assert len(_INPUTS) >= 15 and len(CASES) >= 28, CASES


@pytest.mark.parametrize(("label", "mode"), CASES)
def test_operation_conforms(label: str, mode: GenerationMode, app: FastAPI, fixtures_workspace: str) -> None:
    schema = schemathesis.openapi.from_asgi("/v1/openapi.json", app)
    operation = next(_parsed(r) for r in schema.get_all_operations() if _parsed(r).label == label)
    # A multipart file part is always bytes: a "null" item schemathesis calls invalid is a 4-byte file.
    excluded = [checks.negative_data_rejection] if label == UPLOAD else []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def run(case: schemathesis.Case[Operation]) -> None:
        case.call_and_validate(excluded_checks=excluded)

    run()
