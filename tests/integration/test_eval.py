"""``nexus eval`` on the project's fixture suite: the product's metrics stay above floors (not timings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kruschnexus.cli.app import cli
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError
from kruschnexus.eval.runner import evaluate
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

SUITE = ROOT / "eval" / "fixtures.jsonl"


def test_fixture_suite_metrics_stay_above_their_floors(settings: Settings, embedder: Embedder) -> None:
    report = evaluate(SUITE, FIXTURES, settings, systems=("nexus", "fulltext", "dense"), embedder=embedder)
    assert report.ingest.get("failed", 0) == 0
    nexus = report.scores["nexus"]["overall"]
    answerable = nexus.recall.denominator
    assert answerable >= 10 and nexus.negatives_abstained.denominator >= 2
    assert nexus.recall.numerator >= answerable - 1
    assert nexus.citation.numerator >= 0.75 * answerable
    assert nexus.span_precision.numerator >= 0.75 * answerable
    assert nexus.answerable_abstained.numerator == 0
    assert nexus.negatives_abstained.numerator >= nexus.negatives_abstained.denominator - 1
    # every top-1 hit that is relevant was re-proved against the PDF
    for outcome in report.outcomes["nexus"]:
        if outcome.hits and outcome.relevance[0]:
            assert outcome.hits[0].proved
    # hybrid is at least as good as either leg alone on recall, and calibrated hits carry a confidence
    for alone in ("fulltext", "dense"):
        assert nexus.recall.numerator >= report.scores[alone]["overall"].recall.numerator
    if embedder.calibration is not None:
        assert nexus.ece is not None and len(nexus.confidences) == sum(len(o.hits) for o in report.outcomes["nexus"])


def test_eval_cli_json_and_clear_errors(cli_env: None, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["eval", str(SUITE), "--corpus", str(FIXTURES), "--baseline", "none", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    overall = report["systems"]["nexus"]["overall"]
    assert set(report["systems"]) == {"nexus"}
    assert overall["recall"]["denominator"] == 12 and overall["recall"]["value"] >= 0.9
    assert len(report["queries"]["nexus"]) == 15
    missing = tmp_path / "suite.jsonl"
    missing.write_text(
        SUITE.read_text(encoding="utf-8").replace("sample_contract.pdf", "nowhere.pdf"), encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["eval", str(missing), "--corpus", str(FIXTURES)])
    assert result.exit_code == 2 and "nowhere.pdf" in result.output


def test_unknown_system_is_refused(settings: Settings, embedder: Embedder) -> None:
    with pytest.raises(ConfigError, match="unknown system"):
        evaluate(SUITE, FIXTURES, settings, systems=("nexus", "bm42"), embedder=embedder)
