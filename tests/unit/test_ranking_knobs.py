"""The ranking knobs of ``Settings`` reach their use: each value is written once (the setting's default), a value
set in the environment arrives where the search uses it, and changing it changes what the search decides."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.lexical.index import DocEntry, DocHit, IndexState, LexicalQuery, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex
from kruschnexus.retrieve.documents import choose
from kruschnexus.retrieve.filters import lexical_query
from kruschnexus.retrieve.fusion import Candidate, FusionSettings, NamedSections, score
from kruschnexus.retrieve.query import parse_query
from kruschnexus.retrieve.search import named_document
from kruschnexus.retrieve.twins import same_passage
from kruschnexus.retrieve.vocabulary import absent_words, telling_absence, telling_document_absence

ACME, OFFICE, PARKING = "a" * 64, "b" * 64, "c" * 64
#: A value other than the default for every ranking knob that ``FusionSettings`` carries.
CHANGED = {
    "NEXUS_RRF_K": "30",
    "NEXUS_SECTION_BOOST": "0.1",
    "NEXUS_SECTION_INSIDE_SHARE": "0.5",
    "NEXUS_DENSE_WEIGHT": "0.8",
    "NEXUS_SPARSE_WEIGHT": "1.2",
    "NEXUS_DENSE_DEPTH": "40",
    "NEXUS_SPARSE_DEPTH": "60",
    "NEXUS_CONTEXT_BOOST": "0.25",
    "NEXUS_IDS_BOOST": "3",
    "NEXUS_COVERAGE_FLOOR": "0.8",
    "NEXUS_AGREE_MARGIN": "0.1",
    "NEXUS_AGREE_COVERAGE": "0.6",
    "NEXUS_NAMED_TOP": "2",
    "NEXUS_ABSENT_MARGIN": "0.1",
    "NEXUS_ABSENT_MIN_SPANS": "500",
    "NEXUS_ABSENT_IN_DOCUMENT": "0",
    "NEXUS_ABSENT_DOCUMENT_MARGIN": "0.1",
    "NEXUS_ABSENT_MISSPELT_CHARS": "6",
    "NEXUS_ABSENT_SHARE": "0.5",
    "NEXUS_ABSENT_DOCUMENT_MIN": "3",
    "NEXUS_SECTION_MENTIONS": "0",
    "NEXUS_DOCUMENT_MATCH": "0",
    "NEXUS_NAME_MIN_TERMS": "3",
    "NEXUS_NAME_DISTINCTIVE_SHARE": "0.5",
    "NEXUS_NAME_MARGIN": "1.5",
    "NEXUS_NAME_MAX_DOCUMENTS": "2",
    "NEXUS_NAME_FRONT_WEIGHT": "0.6",
    "NEXUS_LOCAL_IDF": "1",
    "NEXUS_LOCAL_IDF_MIN_WEIGHT": "0.1",
    "NEXUS_LOCAL_IDF_MAX_DOCUMENTS": "1",
    "NEXUS_TWIN_SAME_PASSAGE": "0.9",
    "NEXUS_TWIN_STANDS_FOR": "0.6",
    "NEXUS_EF_SEARCH": "300",
    "NEXUS_DENSE_SCAN": "800",
    "NEXUS_DENSE_EXACT": "2.5",
    "NEXUS_DENSE_SEEDS": "600",
}
#: The lexical leg's knobs, set on each query by :func:`~kruschnexus.retrieve.filters.lexical_query`.
LEXICAL = ("local_idf", "local_idf_min_weight", "local_idf_max_documents", "context_boost", "ids_boost")


def _carried() -> list[str]:
    """``FusionSettings`` fields that are settings of the same name (``floor`` aside: the model's, unless set)."""
    names = set(Settings.__dataclass_fields__) - {"floor"}
    return [f.name for f in dataclasses.fields(FusionSettings) if f.name in names]


def test_the_search_knobs_default_to_the_settings_defaults(tmp_path: Path) -> None:
    settings = Settings.load(overrides={"home": tmp_path}, env={})
    fusion = FusionSettings()
    for name in _carried():
        assert getattr(fusion, name) == getattr(settings, name), name
    query = LexicalQuery(text="rent")
    for name in LEXICAL[1:]:
        assert getattr(query, name) == getattr(settings, name), name
    assert DocHit("d", 1.0, 1.0, ()).front_weight == settings.name_front_weight


def test_every_ranking_setting_reaches_the_search(tmp_path: Path) -> None:
    settings = Settings.load(overrides={"home": tmp_path, "floor": 0.5}, env=CHANGED)
    defaults = Settings.load(overrides={"home": tmp_path}, env={})
    with Corpus("knobs", settings=settings) as corpus:
        fusion = corpus.fusion_settings()
    assert set(CHANGED) == {f"NEXUS_{name.upper()}" for name in _carried()} | {"NEXUS_DOCUMENT_MATCH"}
    for name in _carried():
        assert getattr(fusion, name) == getattr(settings, name) != getattr(defaults, name), name
    assert fusion.documents is False and fusion.floor == 0.5
    query = lexical_query(parse_query("when is rent due"), "rent due", (ACME,), fusion)
    for name in LEXICAL:
        assert getattr(query, name) == getattr(settings, name), name


def test_the_inside_share_sets_the_boost_of_a_span_that_does_not_open_the_section() -> None:
    inside = Candidate(("d", 1, 1), dense_rank=1, cosine=0.9, section="8.22")
    named = NamedSections(("8.22",))
    assert score(inside, FusionSettings(), named).boost == pytest.approx(0.12 * 0.75)
    assert score(inside, FusionSettings(section_inside_share=0.5), named).boost == pytest.approx(0.06)
    opening = dataclasses.replace(inside, opens=("8.22",))
    assert score(opening, FusionSettings(section_inside_share=0.5), named).boost == pytest.approx(0.12)


def test_the_absence_knobs_decide_what_tells() -> None:
    def known(term: str) -> bool:
        return term in {"rent", "monthly"}

    def analyze(text: str) -> list[str]:
        return [text.lower()]

    assert absent_words("Is the rent due montly?", analyze, known) == ["due"], "montly: one edit from monthly"
    assert absent_words("Is the rent due montly?", analyze, known, misspelt_chars=7) == ["due", "montly"]
    terms = ["rent", "due", "month", "tenant"]
    assert telling_absence(["due"], terms)
    assert not telling_absence(["due"], terms, share=0.2)
    question = "is there a most favored nation clause?"
    assert telling_document_absence(question, ["favored", "nation"], ["favor", "nation", "clause"])
    assert not telling_document_absence(question, ["favored", "nation"], ["favor", "nation", "clause"], minimum=3)
    assert not telling_document_absence(question, ["favored", "nation"], ["favor", "nation", "clause"], share=0.7)


def test_the_twin_share_decides_what_is_one_passage() -> None:
    a = "Buyer shall pay each invoice within forty-five days of the invoice date."
    b = "Buyer shall pay each invoice within thirty calendar days of its receipt."
    assert not same_passage(a, b)
    assert same_passage(a, b, share=0.6)


def test_the_name_margin_decides_whether_a_document_is_named() -> None:
    freq = {"acme": 1, "baxter": 1, "lease": 9}
    hits = [DocHit("a", 9.0, 0.0, ("acme", "baxter")), DocHit("b", 8.0, 0.0, ("lease",))]
    assert choose(hits, lambda t: freq[t], 20) is None, "9 does not lead 8 by 25%"
    match = choose(hits, lambda t: freq[t], 20, margin=1.1)
    assert match is not None and match.doc_ids == ("a",)
    assert choose(hits, lambda t: freq[t], 20, margin=1.1, min_terms=3) is None


@pytest.fixture
def index(tmp_path: Path) -> Iterator[TantivyIndex]:
    spans = [
        SpanEntry(ACME, 1, 0, "Rent is due on the first day of each month.", "Rent", ("12(b)", "12"), (), None, True),
        SpanEntry(ACME, 1, 1, "The tenant keeps the premises in repair.", "Repairs", (), (), None, True),
        SpanEntry(OFFICE, 1, 0, "The office rent is due monthly in advance.", "Rent", (), (), None, True),
        SpanEntry(PARKING, 1, 0, "Parking spaces are let by the month.", "Parking", (), (), None, True),
    ]
    docs = [
        DocEntry(ACME, "Acme Baxter Lease", "Lease between Acme Corp and Baxter LLC for the Acme building"),
        DocEntry(OFFICE, "Office Lease", "Office lease of the second floor"),
        DocEntry(PARKING, "Parking Lease", "Parking lease of the garage"),
    ]
    opened = TantivyIndex(tmp_path / "index")
    opened.replace([], spans, docs)
    opened.commit(IndexState("test", 1))
    yield opened
    opened.close()


def test_the_name_knobs_reach_the_document_index(index: TantivyIndex) -> None:
    query = parse_query("Under the Acme Baxter lease, when is rent due?")

    def sources(ids: list[str]) -> dict[str, str]:
        return {i: f"{i}.pdf" for i in ids}

    match = named_document(index, query, sources, FusionSettings())
    assert match is not None and match.doc_ids == (ACME,)
    assert named_document(index, query, sources, FusionSettings(name_margin=50.0)) is None
    hits = index.documents(index.analyze("acme lease"), 5, 0.9)
    assert hits and all(h.front_weight == 0.9 for h in hits)
    assert hits[0].total == pytest.approx(hits[0].score + 0.9 * hits[0].front)


def test_the_field_weights_reach_the_lexical_index(index: TantivyIndex) -> None:
    query = LexicalQuery(text="rent under 12(b)")

    def top_score(changed: LexicalQuery) -> float:
        return index.search(changed, 1)[0].score

    heavier_ids, lighter_ids = (dataclasses.replace(query, ids_boost=b) for b in (4.0, 1.0))
    assert top_score(heavier_ids) > top_score(query) > top_score(lighter_ids)
    assert top_score(dataclasses.replace(query, context_boost=1.0)) > top_score(query)


def test_the_local_statistics_apply_to_as_many_documents_as_set(index: TantivyIndex) -> None:
    idfs = index._idfs("rent due")
    two = LexicalQuery(text="rent due", doc_ids=(ACME, OFFICE), local_idf=1.5)
    assert index._local_weights(two, idfs) is not None
    assert index._local_weights(dataclasses.replace(two, local_idf_max_documents=1), idfs) is None
    weights = index._local_weights(dataclasses.replace(two, local_idf_min_weight=0.9), idfs)
    assert weights is not None and min(weights.values()) >= 0.9
