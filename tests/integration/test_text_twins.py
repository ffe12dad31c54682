"""CUAD contracts kept both as PDFs and as the text saved from them (LegalBench-RAG's format), in one workspace.

The text files keep whole pages on one line; the chunker must still cut them into their sections, and a question
must get each passage once, from the PDF (see docs/evaluation.md, "The CUAD contracts as text"). Floors are
below the figures measured on 2026-12-03 for these six contracts: 44 answerable suite questions, Recall@5 with a
hit from either format 44/44, from the PDF 44/44.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kruschnexus import Corpus, Hit
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.eval.metrics import fold
from kruschnexus.eval.suite import SuiteQuery, load_suite
from kruschnexus.retrieve.twins import are_twins, same_passage
from tests.conftest import CORPUS, ROOT, needs_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow, needs_corpus, pytest.mark.timeout(1800)]

CONTRACTS = [
    "CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement",
    "THERAVANCEBIOPHARMA,INC_05_08_2020-EX-10.2-SERVICE AGREEMENT",
    "FLOTEKINDUSTRIESINCCN_05_09_2019-EX-10.1-SUPPLY AGREEMENT",
    "ArcGroupInc_20171211_8-K_EX-10.1_10976103_EX-10.1_Sponsorship Agreement",
    "ALCOSTORESINC_12_14_2005-EX-10.26-AGENCY AGREEMENT",
    "DUOSTECHNOLOGIESGROUP,INC_04_21_2009-EX-10.1-STRATEGIC ALLIANCE AGREEMENT",
]
#: Least share of the questions with a hit holding the gold words among the first five.
FLOOR_EITHER = 0.9
FLOOR_PDF = 0.9


@pytest.fixture(scope="module")
def twins(settings: Settings, embedder: Embedder) -> Iterator[Corpus]:
    files = [CORPUS / "cuad" / f"{name}{suffix}" for name in CONTRACTS for suffix in (".pdf", ".txt")]
    with Corpus(workspace="shared-twins", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        results = corpus.ingest(files)
        assert [r.status for r in results] == ["ingested"] * len(files), [r.reason for r in results]
        yield corpus


def _questions() -> list[SuiteQuery]:
    names = {f"cuad/{name}.pdf" for name in CONTRACTS}
    suite = load_suite(ROOT / "eval" / "corpus.jsonl")
    return [q for q in suite.queries if q.doc in names and not q.is_negative]


def _holds_gold(hit: Hit, query: SuiteQuery, suffixes: tuple[str, ...]) -> bool:
    same = Path(hit.source).stem == Path(query.doc or "").stem and hit.source.endswith(suffixes)
    text, gold = fold(hit.text), fold(query.gold_text or "")
    return same and bool(text) and (gold in text or text in gold)


def test_the_suite_questions_find_their_clause_once_and_from_the_pdf(twins: Corpus) -> None:
    questions = _questions()
    assert len(questions) >= 40
    either = pdf = 0
    for query in questions:
        hits = twins.search(query.query, 5)
        either += any(_holds_gold(h, query, (".pdf", ".txt")) for h in hits)
        pdf += any(_holds_gold(h, query, (".pdf",)) for h in hits)
        for i, a in enumerate(hits):
            for b in hits[i + 1 :]:
                twin = a.doc_id != b.doc_id and are_twins(a.source, b.source)
                assert not (twin and same_passage(a.text, b.text)), (query.query, a.text, b.text)
    print(f"Recall@5 either format {either}/{len(questions)}, PDF {pdf}/{len(questions)}")  # noqa: T201
    assert either >= FLOOR_EITHER * len(questions)
    assert pdf >= FLOOR_PDF * len(questions)


def test_text_saved_on_one_line_is_cut_into_its_sections(twins: Corpus) -> None:
    """``... notice to the Executive. 12. Holidays 12.1 The Executive shall ...`` on one line of the text file."""
    name = "THERAVANCEBIOPHARMA,INC_05_08_2020-EX-10.2-SERVICE AGREEMENT.txt"
    spans = [h for h in twins.export() if h.source == name]
    holiday = [h for h in spans if "28 days' paid holiday" in h.text]
    assert len(holiday) == 1 and holiday[0].section == "12.1", [(h.section, h.text[:80]) for h in holiday]
    assert holiday[0].text.startswith("12. Holidays 12.1 The Executive")
    sections = {h.section for h in spans}
    assert {"2.1", "5.1", "7.1", "9.1", "12.1", "13.1", "17.1"} <= sections
    spaced = "DUOSTECHNOLOGIESGROUP,INC_04_21_2009-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.txt"
    by_section = {h.section: h.text for h in twins.export() if h.source == spaced}
    assert by_section["2.2"].startswith("2.2 Rubicon hereby grants to ISA")
    assert by_section["4.2.1"].startswith("4.2 Rubicon Fees.")
