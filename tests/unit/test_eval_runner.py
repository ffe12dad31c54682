"""Scoring a suite's outcomes into per-group raw counts (no database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kruschnexus.eval.runner import EvalReport, QueryOutcome, score
from kruschnexus.eval.suite import SuiteQuery, parse_record
from kruschnexus.eval.systems import EvalHit


def q(qid: str, kind: str, family: str = "lease", section: str | None = "8.22") -> SuiteQuery:
    if kind == "hard_negative":
        text = f'{{"id": "{qid}", "family": "{family}", "query": "x", "doc": null, "page": null, "section": null,'
        text += ' "gold_text": null, "kind": "hard_negative"}'
    else:
        sec = "null" if section is None else f'"{section}"'
        text = f'{{"id": "{qid}", "family": "{family}", "query": "x", "doc": "lease/a.pdf", "page": 2,'
        text += f' "section": {sec}, "gold_text": "office space", "kind": "{kind}"}}'
    return parse_record(text)


def hit(
    page: int, text: str, section: str | None = "8.22", confidence: float | None = 0.8, proved: bool = True
) -> EvalHit:
    return EvalHit("a.pdf", page, section, text, confidence, proved)


def test_groups_count_each_metric_from_raw_outcomes() -> None:
    outcomes = [
        QueryOutcome.of(q("1", "lookup"), [hit(2, "used for office space only")]),  # right at rank 1
        QueryOutcome.of(q("2", "concept"), [hit(3, "other"), hit(2, "Office  SPACE", section="8.22(a)")]),  # rank 2
        QueryOutcome.of(q("3", "concept", section=None), [hit(2, "office space", proved=False)]),  # unproved top
        QueryOutcome.of(q("4", "concept"), []),  # answerable, abstained
        QueryOutcome.of(q("5", "hard_negative"), []),
        QueryOutcome.of(q("6", "hard_negative", family="court"), [hit(1, "anything", confidence=0.3)]),
    ]
    groups = score(outcomes, k=5)
    overall = groups["overall"]
    assert (overall.recall.numerator, overall.recall.denominator) == (3, 4)
    assert overall.ndcg.numerator == pytest.approx(1 + 1 / 1.5849625 + 1, abs=1e-6)
    assert (overall.citation.numerator, overall.citation.denominator) == (2, 4)  # query 2's top hit is page 3
    assert (overall.span_precision.numerator, overall.span_precision.denominator) == (1, 4)
    assert (overall.answerable_abstained.numerator, overall.negatives_abstained.numerator) == (1, 1)
    assert overall.negatives_abstained.denominator == 2
    assert overall.correct == [True, False, True, True, False] and len(overall.confidences) == 5
    assert groups["kind:lookup"].recall.denominator == 1 and groups["family:court"].negatives_abstained.numerator == 0
    assert next(iter(groups)) == "overall"
    report = overall.to_json()
    assert report["recall"] == {"value": 0.75, "numerator": 3, "denominator": 4}
    assert report["ece"]["hits"] == 5


def test_ece_is_absent_without_confidences() -> None:
    groups = score([QueryOutcome.of(q("1", "lookup"), [hit(2, "office space", confidence=None)])])
    assert groups["overall"].ece is None


def test_report_names_the_split_it_ran(tmp_path: Path) -> None:
    whole = EvalReport(tmp_path / "s.jsonl", tmp_path, "eval-x", 5, {})
    assert whole.split is None and whole.split_name == "all" and whole.to_json()["split"] == "all"
    dev = EvalReport(tmp_path / "s.jsonl", tmp_path, "eval-x", 5, {}, split="dev")
    assert dev.to_json()["split"] == "dev"


def test_eval_command_offers_the_split_option() -> None:
    from kruschnexus.cli.app import cli

    command = cli.commands["eval"]
    option = next(p for p in command.params if p.name == "split")
    assert option.default == "all"
    assert list(getattr(option.type, "choices", [])) == ["dev", "test", "all"]
