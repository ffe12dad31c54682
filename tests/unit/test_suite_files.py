"""The project's evaluation suites (eval/*.jsonl): valid, well proportioned, and every gold passage on its page.

Also the loader's own rules: each error names the file, the line and the field.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kruschnexus.errors import ConfigError
from kruschnexus.eval.gold import PageTexts, check_gold, check_negative, kind_shares, part_markers, section_reference
from kruschnexus.eval.suite import SPLITS, Suite, SuiteError, load_suite, parse_record
from tests.conftest import CORPUS, FIXTURES, ROOT, needs_corpus

CORPUS_SUITE = ROOT / "eval" / "corpus.jsonl"
FIXTURE_SUITE = ROOT / "eval" / "fixtures.jsonl"

#: The families of the shared corpus (its MANIFEST.md family column), plus ``cuad_qa``: LegalBench-RAG style
#: questions over the CUAD contracts ("Consider the <title> between <A> and <B>; <question>?").
FAMILIES = {
    "commercial_contract", "commercial_debt", "commercial_lease", "corporate_governance", "court_opinion",
    "cuad_qa", "employment", "municipal", "regulatory",
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


def test_corpus_suite_split_is_stratified(corpus_suite: Suite) -> None:
    """docs/evaluation.md: within each family x kind group, ids sorted by SHA-256; the first round(0.4 n) are dev
    (at least one dev and one test when n >= 2)."""
    assert all(q.split in SPLITS for q in corpus_suite.queries)
    for family in corpus_suite.family_counts():
        assert {q.split for q in corpus_suite.queries if q.family == family} == set(SPLITS), family
    for kind in ("concept", "lookup", "hard_negative"):
        assert {q.split for q in corpus_suite.queries if q.kind == kind} == set(SPLITS), kind
    for family, kind in corpus_suite.family_kind_counts():
        group = sorted(
            (q for q in corpus_suite.queries if (q.family, q.kind) == (family, kind)),
            key=lambda q: hashlib.sha256(q.id.encode()).hexdigest(),
        )
        if len(group) >= 2:
            dev = min(max(round(0.4 * len(group)), 1), len(group) - 1)
            assert [q.split for q in group] == ["dev"] * dev + ["test"] * (len(group) - dev), (family, kind)
    shares = corpus_suite.split_counts()
    assert 0.35 <= shares["dev"] / len(corpus_suite.queries) <= 0.45, shares


def test_corpus_suite_cuad_questions_name_their_contract(corpus_suite: Suite) -> None:
    cuad = [q for q in corpus_suite.queries if q.family == "cuad_qa"]
    assert len(cuad) >= 60
    assert len({q.doc for q in cuad if not q.is_negative}) >= 20
    for query in cuad:
        assert query.query.startswith("Consider the ") and "; " in query.query, query.id
        assert query.kind in ("concept", "hard_negative"), query.id


@pytest.mark.corpus
@needs_corpus
def test_corpus_negatives_name_no_existing_part(corpus_suite: Suite) -> None:
    report = check_gold(corpus_suite, CORPUS)
    assert report.checked_negatives >= 15
    assert not report.negative_failures, "\n".join(map(str, report.negative_failures))


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
    assert suite.queries[0].model_dump() == {**RECORD, "split": None}
    assert suite.kind_counts() == {"concept": 1, "lookup": 0, "hard_negative": 1}
    assert [q.id for q in suite.positives] == ["q1"]


def test_split_field_is_optional_and_checked(tmp_path: Path) -> None:
    assert parse_record(_record()).split is None
    assert parse_record(_record(split="dev")).split == "dev"
    path = tmp_path / "bad.jsonl"
    path.write_text(_record(split="train") + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert info.value.field == "split" and "'dev' or 'test'" in info.value.reason


def test_select_keeps_one_split_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        _record(id="a", split="test"),
        _record(id="b", split="dev"),
        json.dumps({**NEGATIVE, "id": "c", "split": "dev"}),
        _record(id="d", split="test"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = load_suite(path)
    assert suite.select(None) is suite
    dev = suite.select("dev")
    assert [q.id for q in dev.queries] == ["b", "c"] and dev.path == suite.path
    assert [q.id for q in suite.select("test").queries] == ["a", "d"]
    assert suite.split_counts() == {"dev": 2, "test": 2}
    assert suite.family_kind_counts() == {("commercial_lease", "concept"): 3, ("commercial_lease", "hard_negative"): 1}
    assert dev.kind_counts() == {"concept": 1, "lookup": 0, "hard_negative": 1}


def test_select_refuses_an_empty_split_and_counts_unsplit_records(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_record(id="a", split="dev") + "\n" + _record(id="b") + "\n", encoding="utf-8")
    suite = load_suite(path)
    assert suite.split_counts() == {"dev": 1, "test": 0, "none": 1}
    with pytest.raises(SuiteError, match="no query is in the 'test' split"):
        suite.select("test")


def test_summary_prints_splits_and_family_by_kind(tmp_path: Path, fixture_suite: Suite) -> None:
    report = check_gold(fixture_suite, FIXTURES)
    lines = report.summary_lines()
    assert any(line.startswith("splits: ") for line in lines)
    assert "family x kind (dev/test):" in lines
    assert lines[-1].startswith("gold: ")


@pytest.mark.parametrize(
    ("query", "reference"),
    [
        ("Section 41.7 of the Chicago lease", ("Section", "41.7")),
        ("Article XIV of the .NET Foundation bylaws", ("Article", "XIV")),
        ("Exhibit Q to the credit agreement", ("Exhibit", "Q")),
        ("clause 19.4 of the agreement", ("clause", "19.4")),
        ("§ 8.22.090(C) of the Oakland Municipal Code", ("§", "8.22.090")),
        ("O.M.C. 8.22.045", ("O.M.C.", "8.22.045")),
        ("Who has to maintain the swimming pool?", None),
        ("Which section of the article covers it?", None),
    ],
)
def test_section_reference(query: str, reference: tuple[str, str] | None) -> None:
    assert section_reference(query) == reference


def test_part_markers_find_labels_and_headings_not_deeper_references() -> None:
    text = "12. Rights Cumulative. See Section 9.3.11 of the JV Agreement.\nARTICLE XIV\n41.7 Holding Over\n"
    assert part_markers("12", text) == ["12. R"]
    assert part_markers("9", text) == []
    assert part_markers("9.3.11", text) == ["Section 9.3.11"]
    assert part_markers("XIV", text) == ["ARTICLE XIV"]
    assert part_markers("41.7", text) == ["41.7 H"]
    assert part_markers("41", text) == []


def test_check_negative_flags_a_part_the_document_has(fixture_suite: Suite) -> None:
    texts = PageTexts(FIXTURES)
    doc = fixture_suite.positives[0].doc
    base = {**NEGATIVE, "doc": doc}
    absent = parse_record(json.dumps({**base, "query": "Section 987.6 of the sample contract"}))
    assert check_negative(absent, texts) is None
    assert check_negative(parse_record(json.dumps({**base, "query": "the swimming pool"})), texts) is None
    present = next(q.section for q in fixture_suite.positives if q.doc == doc and q.section and q.section[0].isdigit())
    named = parse_record(json.dumps({**base, "query": f"Section {present} of the sample contract"}))
    failure = check_negative(named, texts)
    assert failure is not None and "seems to have Section" in failure.reason


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
