"""Search and explain on the project's fixtures, against the real database and model."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kruschnexus import Corpus
from kruschnexus.cli.app import cli
from kruschnexus.config import MAX_SECTION_BOOST, Settings
from kruschnexus.embed.base import Embedder, EmbedStopped, Stop, Vectors
from kruschnexus.errors import ConfigError, QueryError
from tests.conftest import FIXTURES
from tests.pdfgen import casualty_lease, titled_agreement

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def lease(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    extra = casualty_lease(tmp_path_factory.mktemp("casualty") / "casualty_lease.pdf")
    with Corpus(workspace="search-fixtures", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest([FIXTURES / "sample_contract.pdf"], doc_type="lease")
        corpus.ingest([FIXTURES / "ligatures.pdf", extra], doc_type="other")
        yield corpus


def test_story_query_finds_section_8_22_first(lease: Corpus) -> None:
    hits = lease.search("commercial office space Section 8.22", k=5)
    assert hits
    first = hits[0]
    assert first.page_number == 1 and first.source == "sample_contract.pdf"
    assert first.heading_path == ["Page 1", "COMMERCIAL LEASE AGREEMENT", "Section 8.22 Permitted Use of Premises"]
    assert "section_locator_match" in first.match_reasons
    assert all(h.section is not None and (h.section == "8.22" or h.section.startswith("8.22")) for h in hits)
    assert first.score is not None and first.score > 0


def test_missing_section_returns_nothing(lease: Corpus) -> None:
    assert lease.search("Section 8.22.030(C)") == []
    trace = lease.explain("Section 8.22.030(C)")
    assert trace.hits == 0 and trace.abstain is not None and trace.candidates == []


def test_gibberish_and_off_topic_abstain(lease: Corpus) -> None:
    for query in ("xqzvbl blorftwug grnnkle", "recipe for banana bread"):
        assert lease.search(query) == [], query
        trace = lease.explain(query)
        assert trace.abstain is not None and trace.abstain.best_cosine is not None
        assert trace.abstain.best_cosine < trace.floor
        assert all(not c.admitted for c in trace.candidates)


def test_a_word_no_document_holds_needs_a_closer_passage(lease: Corpus, settings: Settings, embedder: Embedder) -> None:
    question = "May Tenant pay the monthly Base Rent in cryptocurrency?"
    assert "absent_words" not in lease.explain(question).parsed, "the fixtures are a workspace too small to judge"
    settings = dataclasses.replace(settings, absent_min_spans=0)
    lease = Corpus(workspace=lease.workspace, settings=settings, embedder=embedder)
    trace = lease.explain(question)
    assert trace.parsed["absent_words"] == ["cryptocurrency"]
    assert trace.floor == pytest.approx(embedder.floor + settings.absent_margin)
    assert lease.search(question) == [], "the rent clause says how rent is paid, not that cryptocurrency will do"
    assert trace.abstain is not None and "cryptocurrency" in trace.abstain.reason
    unraised = dataclasses.replace(settings, absent_margin=0.0)
    with Corpus(workspace=lease.workspace, settings=unraised, embedder=embedder) as plain:
        assert plain.search(question), "without the margin the rent clause answers"
    misspelt = "When is the Tenant's security depposit returned?"
    assert "absent_words" not in lease.explain(misspelt).parsed, "a misspelling of a word the lease holds is not absent"
    assert [h.section for h in lease.search(misspelt, k=1)] == ["8.25"]
    assert "absent_words" not in lease.explain("What happens on terminaton of the Lease?").parsed, "nor is this one"
    lease.close()


def test_concept_query_is_not_swamped_by_section_symbols(lease: Corpus) -> None:
    hits = lease.search("What happens if the premises are rendered unusable by fire?", k=3)
    assert hits and hits[0].section == "10.1", [h.citation for h in hits]
    assert all("section_locator_match" not in h.match_reasons for h in hits)


def test_article_reference_restricts_to_the_article(lease: Corpus) -> None:
    hits = lease.search("Article IV tenant obligations repairs", k=10)
    assert hits
    for h in hits:
        trace_sections = h.section or ""
        assert trace_sections.startswith("4."), h.citation


@pytest.mark.parametrize(
    ("query", "check"),
    [
        ("rent page:2", lambda c: c.page_number == 2),
        ("premises page:3-4", lambda c: 3 <= c.page_number <= 4),
        ("office doc:lig*", lambda c: c.citation.startswith("ligatures.pdf")),
        ("premises doc_type:other", lambda c: not c.citation.startswith("sample_contract.pdf")),
        ("premises section:4.2", lambda c: c.section is not None and c.section.startswith("4.2")),
    ],
)
def test_operators_filter_both_legs(lease: Corpus, query: str, check) -> None:  # type: ignore[no-untyped-def]
    trace = lease.explain(query, k=10)
    dense = [c for c in trace.candidates if c.dense_rank is not None]
    sparse = [c for c in trace.candidates if c.sparse_rank is not None]
    assert dense and sparse, "both legs must return candidates for this test to mean anything"
    assert all(check(c) for c in trace.candidates)


def test_phrase_and_exclusions_filter_both_legs(lease: Corpus) -> None:
    texts = _candidate_texts(lease, '"professional services" premises')
    assert texts and all("professional services" in " ".join(t.lower().split()) for t in texts)
    hits = lease.search('"professional services" premises')
    assert hits and all("phrase_match" in h.match_reasons for h in hits)
    assert all("retail" not in t.lower() for t in _candidate_texts(lease, "premises use -retail"))
    assert all("landlord" not in t.lower() for t in _candidate_texts(lease, 'premises -"Landlord"'))


def _candidate_texts(corpus: Corpus, query: str) -> list[str]:
    """Texts of every candidate either leg returned for ``query``."""
    by_page: dict[tuple[str, int | None], list[str]] = {}
    for h in corpus.export():
        by_page.setdefault((h.doc_id, h.page_number), []).append(h.text)
    trace = corpus.explain(query, k=50)
    assert trace.candidates
    return [by_page[(c.doc_id, c.page_number)][c.ordinal] for c in trace.candidates]


def test_boost_never_exceeds_cap_in_traces(lease: Corpus) -> None:
    trace = lease.explain("Section 4.2 repair obligations of tenant", k=10)
    assert trace.section_boost <= MAX_SECTION_BOOST
    for c in trace.candidates:
        assert 0.0 <= c.boost <= MAX_SECTION_BOOST
        assert c.score == pytest.approx(c.dense_term + c.sparse_term + c.boost, abs=1e-5)


def test_bad_queries_and_workspaces(lease: Corpus, settings: Settings, embedder: Embedder) -> None:
    with pytest.raises(QueryError, match="position 5"):
        lease.search('rent "open')
    with pytest.raises(QueryError, match="nothing to search for"):
        lease.search("page:1")
    with Corpus(workspace="never-made", settings=settings, embedder=embedder) as empty:
        with pytest.raises(ConfigError, match="does not exist"):
            empty.search("rent")
        for call in (empty.documents, empty.export, empty.verify):
            with pytest.raises(ConfigError, match="does not exist"):
                call()


@pytest.mark.usefixtures("cli_env")
def test_cli_search_and_explain_json(lease: Corpus) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["search", "commercial office space Section 8.22", "-w", lease.workspace, "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output.strip().splitlines()[-1])
    assert hits[0] == lease.search("commercial office space Section 8.22")[0].model_dump(mode="json")
    result = runner.invoke(cli, ["search", "recipe for banana bread", "-w", lease.workspace, "--json"])
    assert json.loads(result.output.strip().splitlines()[-1]) == []
    result = runner.invoke(cli, ["explain", "Section 8.22.030(C)", "-w", lease.workspace, "--json"])
    trace = json.loads(result.output.strip().splitlines()[-1])
    assert trace["hits"] == 0 and trace["abstain"]["reason"].startswith("no span passed the filters")
    result = runner.invoke(cli, ["search", "page:abc", "-w", lease.workspace])
    assert result.exit_code == 2 and "position 5" in result.output


#: Three one-page agreements: (file name, title, parties, sections).
AGREEMENTS = [
    (
        "supply",
        "MASTER SUPPLY AGREEMENT",
        "This Master Supply Agreement is made between Acme Widgets Inc. and Bolt Logistics LLC.",
        [
            ("1. Payment", "Buyer shall pay each invoice within forty-five days of the invoice date by wire transfer."),
            (
                "2. Delivery",
                "Seller shall deliver the goods to the Buyer's dock within ten business days of each order.",
            ),
        ],
    ),
    (
        "lease",
        "OFFICE LEASE",
        "This Office Lease is made between Zenith Realty LLC and Harbor Dental Inc.",
        [("1. Rent", "Tenant shall pay rent of four thousand dollars on the first day of each month.")],
    ),
    (
        "consulting",
        "CONSULTING AGREEMENT",
        "This Consulting Agreement is made between Orion Advisory LLC and Pine Ridge Inc.",
        [("1. Fees", "Client shall pay each invoice of the Consultant within thirty days of its receipt.")],
    ),
    (
        "amendment",
        "FIRST AMENDMENT TO GROUND LEASE",
        "This First Amendment to Ground Lease is made between Cedar Holdings LLC and Maple Orchard Farms Inc.",
        [
            ("1. Term", "The term of the Lease is extended to the thirty-first day of December of the tenth year."),
            (
                "2. Deletion",
                "Landlord and Tenant agree that Paragraph 7.4 Early Termination Right of the Original Lease is "
                "hereby deleted in its entirety.",
            ),
        ],
    ),
]


def _agreements(folder: Path) -> list[Path]:
    return [titled_agreement(folder / f"{name}.pdf", title, who, parts) for name, title, who, parts in AGREEMENTS]


@pytest.fixture(scope="module")
def agreements(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    docs = _agreements(tmp_path_factory.mktemp("agreements"))
    with Corpus(workspace="named-documents", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest(docs)
        yield corpus


def test_a_question_that_names_its_document_is_answered_from_it(agreements: Corpus) -> None:
    question = "Under the supply agreement between Acme Widgets and Bolt Logistics, when must invoices be paid?"
    hits = agreements.search(question, k=3)
    assert hits and hits[0].source == "supply.pdf" and "forty-five days" in hits[0].text
    assert all(h.source == "supply.pdf" for h in hits)
    assert agreements.explain(question).parsed["document"]["source"] == "supply.pdf"


def test_a_named_document_does_not_answer_for_a_name_the_workspace_lacks(agreements: Corpus) -> None:
    """The question names the supply agreement and also a company no document mentions: ``[]``, not the nearest
    clause of the named agreement."""
    question = "Under the supply agreement between Acme Widgets and Bolt Logistics, how must Quasarix Holdings pay?"
    assert agreements.search(question) == []
    trace = agreements.explain(question)
    assert trace.abstain is not None and "Quasarix" in trace.abstain.reason


def test_a_named_document_that_lacks_the_subject_answers_nothing(
    agreements: Corpus, settings: Settings, embedder: Embedder
) -> None:
    """The supply agreement never speaks of most-favoured-nation pricing: its first clauses are no answer, and
    ``explain`` names the missing words. A question whose one missing word is paraphrase still answers."""
    question = "Consider the Master Supply Agreement between Acme Widgets Inc. and Bolt Logistics LLC; is there a most "
    question += "favored nation pricing clause?"
    assert agreements.search(question) == []
    trace = agreements.explain(question)
    assert {"favored", "nation"} <= set(trace.parsed["absent_words"])
    assert trace.abstain is not None and "the document the question names holds none of" in trace.abstain.reason
    assert trace.floor == pytest.approx(embedder.floor + settings.absent_document_margin)
    paraphrase = (
        "Under the supply agreement between Acme Widgets and Bolt Logistics, how soon must invoices be settled?"
    )
    assert "absent_words" not in agreements.explain(paraphrase).parsed, "one missing word is paraphrase"
    assert any("forty-five days" in h.text for h in agreements.search(paraphrase, k=3))
    off = dataclasses.replace(settings, absent_in_document=False)
    with Corpus(workspace=agreements.workspace, settings=off, embedder=embedder) as plain:
        assert plain.search(question), "without the rule the named document's first ranks are admitted"


def test_a_section_the_named_document_only_mentions_answers_from_the_mention(
    agreements: Corpus, settings: Settings, embedder: Embedder
) -> None:
    """The amendment has no paragraph 7.4 of its own, but deletes the original lease's: the passage that says so
    answers, and only it. A paragraph it neither has nor mentions (``9.1``, nor ``7``: 7.4 is another id) answers
    ``[]``, as does the question with the rule off."""
    question = "Paragraph 7.4 early termination right of the Cedar Holdings ground lease amendment"
    hits = agreements.search(question)
    assert hits and all(h.source == "amendment.pdf" and "Paragraph 7.4" in h.text for h in hits)
    assert "section_mentioned" in hits[0].match_reasons
    trace = agreements.explain(question)
    assert trace.parsed["section_mentioned"] == ["Paragraph 7.4"]
    for absent in ("Paragraph 9.1", "Paragraph 7"):
        other = f"{absent} early termination right of the Cedar Holdings ground lease amendment"
        assert agreements.search(other) == [], absent
        reason = agreements.explain(other).abstain
        assert reason is not None and reason.reason.startswith("the document the question names has no section")
    off = dataclasses.replace(settings, section_mentions=False)
    with Corpus(workspace=agreements.workspace, settings=off, embedder=embedder) as plain:
        assert plain.search(question) == []


def test_doc_and_doc_type_ignore_letter_case(lease: Corpus) -> None:
    for query in ("rent doc_type:LEASE", "rent doc:SAMPLE_*.PDF", "rent doc_type:Lease doc:*.pdf"):
        hits = lease.search(query, k=3)
        assert hits and all(h.source == "sample_contract.pdf" and h.doc_type == "lease" for h in hits), query


@pytest.fixture(scope="module")
def twins(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    """The supply agreement as a PDF and as the text saved from it (one line, breaks turned into wide gaps, as
    CUAD and LegalBench-RAG keep their contracts), beside two other agreements."""
    folder = tmp_path_factory.mktemp("twins")
    pdfs = _agreements(folder)
    _, title, parties, sections = AGREEMENTS[0]
    text = folder / "supply.txt"
    text.write_text(
        f"{title}     " + "     ".join([parties, *(f"{heading}     {body}" for heading, body in sections)]) + "\n",
        encoding="utf-8",
    )
    with Corpus(workspace="twin-documents", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        results = corpus.ingest([pdfs[0], text, *pdfs[1:]])
        assert [r.status for r in results] == ["ingested"] * (len(pdfs) + 1)
        yield corpus


@pytest.mark.parametrize(
    "question",
    [
        "Under the supply agreement between Acme Widgets and Bolt Logistics, when must invoices be paid?",
        "Consider the Master Supply Agreement between Acme Widgets Inc. and Bolt Logistics LLC; when is delivery due?",
        "within how many days must the buyer pay each invoice by wire transfer?",
    ],
)
def test_a_document_kept_in_two_formats_answers_once_per_passage(twins: Corpus, question: str) -> None:
    """Both formats are named together; each passage is one hit, the PDF's (it has a page and boxes), and the text
    file's copy shows in ``explain`` as a repeat."""
    hits = twins.search(question, k=5)
    assert hits and hits[0].source == "supply.pdf"
    words = [frozenset(h.text.casefold().split()) for h in hits]
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            assert len(a & b) < 0.8 * min(len(a), len(b)), hits
    key = "forty-five days" if "invoice" in question else "ten business days"
    answer = next(h for h in hits if key in h.text)
    assert answer.source == "supply.pdf" and answer.page_number == 1 and answer.boxes
    trace = twins.explain(question)
    repeats = [
        c for c in trace.candidates if c.rejected_because and c.rejected_because.startswith("repeats supply.pdf")
    ]
    assert repeats and all(c.citation.startswith("supply.txt") for c in repeats)
    if "Acme" in question:
        assert len(trace.parsed["document"]["doc_ids"]) == 2


def test_a_named_document_without_searchable_text_says_so(
    settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A scan stored without OCR holds no span: a question that names it gets ``[]`` and an explanation that says
    why and what to do, not "no span passed the filters"."""
    unread = dataclasses.replace(settings, ocr="never")
    folder = tmp_path_factory.mktemp("unread")
    scan = folder / "maple_grove_warehouse_lease.pdf"
    scan.write_bytes((FIXTURES / "scanned_lease.pdf").read_bytes())
    with Corpus(workspace="unread-scan", settings=unread, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest([*_agreements(folder), scan])
        question = "In the Maple Grove warehouse lease, what is the monthly rent?"
        trace = corpus.explain(question)
        assert trace.parsed["document"]["source"] == scan.name
        assert corpus.search(question) == []
        assert trace.abstain is not None and f"{scan.name}, holds no searchable text" in trace.abstain.reason
        assert "reingest" in trace.abstain.reason


class _Witness(Embedder):
    """The session's real model, noting which thread asked for which texts."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.model_id, self.dim, self.floor = model.model_id, model.dim, model.floor
        self.calibration = model.calibration
        #: (thread, texts) of each embedding done, and of each stopped before it was.
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.stopped: list[tuple[str, tuple[str, ...]]] = []

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        self.calls.append((threading.current_thread().name, tuple(texts)))
        return self.model.embed_batch(texts)

    def stoppable_batch(self, texts: Sequence[str], stop: Stop) -> Vectors:
        call = (threading.current_thread().name, tuple(texts))
        try:
            vectors = self.model.stoppable_batch(texts, stop)
        except EmbedStopped:
            self.stopped.append(call)
            raise
        self.calls.append(call)
        return vectors


def test_the_question_is_embedded_beside_the_rest_of_the_search(lease: Corpus, embedder: Embedder) -> None:
    """The question is embedded once, in a thread of its own (while the lexical leg runs), and serves the dense leg."""
    witness = _Witness(embedder)
    with Corpus(workspace=lease.workspace, settings=lease.settings, embedder=witness) as corpus:
        question = "late charge on overdue rent"
        hits = corpus.search(question)
    assert [(name.startswith("nexus-embed"), texts) for name, texts in witness.calls] == [(True, (question,))]
    assert [(h.doc_id, h.char_start) for h in hits] == [(h.doc_id, h.char_start) for h in lease.search(question)]
    dense = lease.run(question, legs=("dense",)).trace.candidates
    assert dense and all(c.dense_rank is not None for c in dense)


def test_a_question_naming_its_document_is_embedded_without_the_naming_words(
    agreements: Corpus, embedder: Embedder
) -> None:
    """In a process that has not read the workspace's lexical index yet, the early embedding is of the whole question;
    the dense leg needs it without the words that name the document, embedded then (the early one given up)."""
    witness = _Witness(embedder)
    question = "Under the supply agreement between Acme Widgets and Bolt Logistics, when must invoices be paid?"
    with Corpus(workspace=agreements.workspace, settings=agreements.settings, embedder=witness) as corpus:
        hits = corpus.search(question, k=3)
    assert hits and hits[0].source == "supply.pdf"
    *early, (thread, late) = witness.calls
    # Given up: done, stopped during its run, or never run (stopped or cancelled before it began).
    assert [texts for _, texts in [*early, *witness.stopped]] in ([], [(question,)])
    assert all(name.startswith("nexus-embed") for name, _ in [*early, *witness.stopped])
    assert not thread.startswith("nexus-embed") and "Acme" not in late[0] and "invoices" in late[0]


def _hit_keys(hits: Sequence[Any]) -> list[tuple[str, int | None, int, float]]:
    return [(h.doc_id, h.page_number, h.char_start, h.score) for h in hits]


def test_once_the_index_is_read_a_question_naming_its_document_is_embedded_without_those_words_at_once(
    agreements: Corpus, embedder: Embedder
) -> None:
    """The lexical index as the process last read it names the document before the search brings it up to date: the
    question is embedded once, in its own thread, without the naming words, and answers as when embedded twice."""
    question = "Under the supply agreement between Acme Widgets and Bolt Logistics, when must invoices be paid?"
    witness = _Witness(embedder)
    with Corpus(workspace=agreements.workspace, settings=agreements.settings, embedder=witness) as corpus:
        first = corpus.search(question, k=3)
        witness.calls.clear()
        witness.stopped.clear()
        again = corpus.search(question, k=3)
    assert _hit_keys(again) == _hit_keys(first) and again[0].source == "supply.pdf"
    # The whole question is on its way from the start; once the index names the document it is given up (stopped,
    # or done if it was quicker), and the rest is embedded beside it.
    assert all(name.startswith("nexus-embed") for name, _ in witness.calls), witness.calls
    (rest,) = [texts for _, texts in witness.calls if texts != (question,)]
    assert "Acme" not in rest[0] and "invoices" in rest[0]
    assert [texts for _, texts in [*witness.calls, *witness.stopped] if texts == (question,)] in ([], [(question,)])


def test_a_document_added_since_the_index_was_read_has_the_question_embedded_again(
    settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Another process ingested the named document (the outbox holds it, this process's index not yet): the search's
    own update of the index names it, so the question is embedded again without its naming words, and answers as a
    fresh process's search does."""
    question = "Under the supply agreement between Acme Widgets and Bolt Logistics, when must invoices be paid?"
    supply, *others = _agreements(tmp_path_factory.mktemp("late"))
    elsewhere = dataclasses.replace(settings, home=tmp_path_factory.mktemp("other-process"))
    witness = _Witness(embedder)
    with Corpus(workspace="named-late", settings=settings, embedder=witness) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest(others)
        assert corpus.search(question, k=3) == [], "Acme, Widgets, Bolt: names no document holds"
        with Corpus(workspace=corpus.workspace, settings=elsewhere, embedder=embedder) as writer:
            writer.ingest([supply])  # its own lexical index is brought up to date, not this process's
        witness.calls.clear()
        witness.stopped.clear()
        hits = corpus.search(question, k=3)
        *early, (thread, late) = witness.calls
        assert not thread.startswith("nexus-embed") and "Acme" not in late[0] and "invoices" in late[0]
        given_up = [texts for _, texts in [*early, *witness.stopped]]
        assert given_up in ([], [(question,)]), "the whole question, given up (done, stopped, or never run)"
        assert hits and hits[0].source == "supply.pdf"
        with Corpus(workspace=corpus.workspace, settings=settings, embedder=embedder) as fresh:
            assert _hit_keys(hits) == _hit_keys(fresh.search(question, k=3))
