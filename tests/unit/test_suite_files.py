"""The project's evaluation suites (eval/*.jsonl): valid, well proportioned, and every gold passage on its page.

Also the loader's own rules: each error names the file, the line and the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kruschnexus.errors import ConfigError
from kruschnexus.eval.gold import check_gold, kind_shares
from kruschnexus.eval.suite import Suite, SuiteError, load_suite, parse_record
from tests.conftest import CORPUS, FIXTURES, ROOT, needs_corpus

CORPUS_SUITE = ROOT / "eval" / "corpus.jsonl"
FIXTURE_SUITE = ROOT / "eval" / "fixtures.jsonl"

#: The families of the shared corpus (its MANIFEST.md family column).
FAMILIES = {
    "commercial_contract", "commercial_debt", "commercial_lease", "corporate_governance", "court_opinion",
    "employment", "municipal", "regulatory",
}  # fmt: skip


@pytest.fixture(scope="module")
def corpus_suite() -> Suite:
    return load_suite(CORPUS_SUITE)


@pytest.fixture(scope="module")
def fixture_suite() -> Suite:
    return load_suite(FIXTURE_SUITE)


def test_corpus_suite_size_and_kind_shares(corpus_suite: Suite) -> None:
    assert len(corpus_suite.queries) >= 80
    shares = kind_shares(corpus_suite)
    assert 0.45 <= shares["concept"] <= 0.65, shares
    assert 0.25 <= shares["lookup"] <= 0.35, shares
    assert 0.10 <= shares["hard_negative"] <= 0.20, shares


def test_corpus_suite_spans_every_family(corpus_suite: Suite) -> None:
    families = corpus_suite.family_counts()
    assert set(families) == FAMILIES
    positives = {q.family for q in corpus_suite.positives}
    assert positives == FAMILIES, "every family needs answerable queries"


def test_corpus_suite_uses_only_text_layer_pdfs(corpus_suite: Suite) -> None:
    for query in corpus_suite.queries:
        if query.doc is not None:
            assert query.doc.endswith(".pdf"), query.id
            assert "scan" not in query.doc.lower(), f"{query.id}: scanned documents have no text layer"


def test_fixture_suite_shape(fixture_suite: Suite) -> None:
    counts = fixture_suite.kind_counts()
    assert 10 <= len(fixture_suite.queries) <= 20
    assert 2 <= counts["hard_negative"] <= 3
    assert {q.doc for q in fixture_suite.positives} == {"sample_contract.pdf", "ligatures.pdf"}


def test_gold_texts_are_short_excerpts(corpus_suite: Suite, fixture_suite: Suite) -> None:
    for query in corpus_suite.positives + fixture_suite.positives:
        words = len((query.gold_text or "").split())
        assert 5 <= words <= 35, f"{query.id}: gold_text has {words} words"


def test_fixture_gold_passages_are_on_their_pages(fixture_suite: Suite) -> None:
    report = check_gold(fixture_suite, FIXTURES)
    assert report.checked == len(fixture_suite.positives)
    assert report.ok, "\n".join(map(str, report.failures))


@pytest.mark.corpus
@needs_corpus
def test_corpus_gold_passages_are_on_their_pages(corpus_suite: Suite) -> None:
    report = check_gold(corpus_suite, CORPUS)
    assert report.checked == len(corpus_suite.positives)
    assert report.ok, "\n".join(map(str, report.failures))


def test_gold_check_reports_wrong_page_and_missing_file(tmp_path: Path, fixture_suite: Suite) -> None:
    first = fixture_suite.positives[0]
    moved = first.model_copy(update={"id": "moved", "page": (first.page or 1) + 1})
    missing = first.model_copy(update={"id": "missing", "doc": "absent.pdf"})
    report = check_gold(Suite(tmp_path / "s.jsonl", (first, moved, missing)), FIXTURES)
    assert [f.query_id for f in report.failures] == ["moved", "missing"]
    assert f"it is on page(s) {first.page}" in report.failures[0].reason
    assert "no such file" in report.failures[1].reason
    assert report.summary_lines()[-1] == "gold: 1/3 passages found on their page, 2 failure(s)"


# --- the loader ------------------------------------------------------------------------------------------

RECORD = {
    "id": "q1",
    "family": "commercial_lease",
    "query": "when can the landlord keep the security deposit",
    "doc": "lease/sample lease.pdf",
    "page": 3,
    "section": "7.1",
    "gold_text": "Landlord may apply the Security Deposit to cure any default",
    "kind": "concept",
}
NEGATIVE = {**RECORD, "id": "n1", "query": "Section 8.22.999", "kind": "hard_negative"} | dict.fromkeys(
    ("doc", "page", "section", "gold_text")
)


def _record(**changes: object) -> str:
    return json.dumps({**RECORD, **changes})


def test_loader_reads_a_suite(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_record() + "\n\n" + json.dumps(NEGATIVE) + "\n", encoding="utf-8")
    suite = load_suite(path)
    assert [q.id for q in suite.queries] == ["q1", "n1"]
    assert suite.queries[0].model_dump() == RECORD
    assert suite.kind_counts() == {"concept": 1, "lookup": 0, "hard_negative": 1}
    assert [q.id for q in suite.positives] == ["q1"]


def test_hard_negative_may_name_its_document() -> None:
    query = parse_record(json.dumps({**NEGATIVE, "doc": "municipal/code.pdf"}))
    assert query.is_negative and query.doc == "municipal/code.pdf"


@pytest.mark.parametrize(
    ("line", "field", "reason"),
    [
        (_record(page=0), "page", "greater than or equal to 1"),
        (_record(page="3"), "page", "valid integer"),
        (_record(page=True), "page", "valid integer"),
        (_record(kind="fuzzy"), "kind", "'lookup', 'concept' or 'hard_negative'"),
        (_record(gold_text=None), "gold_text", "required for a concept query"),
        (_record(doc=None), "doc", "required"),
        (_record(doc="../etc/passwd"), "doc", "relative POSIX path"),
        (_record(doc="/abs/x.pdf"), "doc", "relative POSIX path"),
        (_record(gold_text="   "), "gold_text", "blank"),
        (_record(extra=1), "extra", "unknown field"),
        (json.dumps({k: v for k, v in RECORD.items() if k != "section"}), "section", "missing"),
        (_record(kind="hard_negative"), "page", "must be null for a hard_negative"),
        (_record(kind="hard_negative", page=None, section=None), "gold_text", "must be null"),
    ],
)
def test_loader_errors_name_file_line_and_field(tmp_path: Path, line: str, field: str, reason: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_record(id="ok") + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    error = info.value
    assert isinstance(error, ConfigError)
    assert (error.path, error.line, error.field) == (str(path), 2, field)
    assert reason in error.reason
    assert str(error).startswith(f"{path}:2: field {field!r}: ")


def test_loader_rejects_duplicate_ids_and_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_text(_record() + "\n" + _record() + "\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"dup\.jsonl:2: field 'id': duplicate id 'q1' \(first used on line 1\)"):
        load_suite(path)
    path.write_text(_record() + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r":2: not valid JSON"):
        load_suite(path)
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r":1: expected a JSON object"):
        load_suite(path)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(SuiteError, match="no queries"):
        load_suite(path)
    with pytest.raises(SuiteError, match="cannot read"):
        load_suite(tmp_path / "absent.jsonl")
