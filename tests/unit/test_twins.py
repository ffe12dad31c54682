"""One hit per passage when a workspace holds a document in two formats (``retrieve/twins.py``), and twins named
together (``retrieve/documents.py::choose``)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.lexical.index import DocHit
from kruschnexus.retrieve.documents import choose
from kruschnexus.retrieve.twins import are_twins, once_per_passage, same_passage

#: (doc_id, source, text, paged, admitted)
Item = tuple[str, str, str, bool, bool]

PAY = "Buyer shall pay each invoice within forty-five days of the invoice date."
PAY_SAVED = "1. Payment     Buyer shall pay each invoice within forty-five days of the invoice date."
LAW = "This Agreement is governed by the laws of the State of New York."


def _keep(items: list[Item], k: int = 5) -> tuple[list[Item], list[tuple[Item, Item]]]:
    return once_per_passage(items, k, lambda item: item)


def test_twins_are_one_file_name_in_two_formats() -> None:
    assert are_twins("cuad/Supply Agreement.PDF", "Supply Agreement.txt")
    assert not are_twins("a/lease.pdf", "a/lease_2.pdf")
    assert not are_twins("matter1/contract.pdf", "matter2/contract.pdf")  # two contracts (or versions), one name


def test_the_text_copy_of_a_passage_gives_way_to_the_pdf() -> None:
    text = ("t", "supply.txt", PAY_SAVED, False, True)
    pdf = ("p", "supply.pdf", PAY, True, True)
    other = ("p", "supply.pdf", "Seller shall deliver the goods within ten days.", True, True)
    kept, repeats = _keep([text, other, pdf])
    assert kept == [pdf, other]  # the PDF takes the text's better rank
    assert repeats == [(text, pdf)]


def test_a_paged_twin_stands_in_even_below_the_floor_and_past_k() -> None:
    text = ("t", "supply.txt", PAY_SAVED, False, True)
    fillers = [("p", "supply.pdf", f"Clause {n} covers topic number {n} alone.", True, True) for n in range(3)]
    pdf = ("p", "supply.pdf", PAY, True, False)
    kept, _ = _keep([text, *fillers, pdf], k=3)
    assert kept == [pdf, *fillers[:2]]
    assert _keep([("q", "other.pdf", PAY, True, False)])[0] == []  # not admitted and no twin to stand for


def test_documents_that_share_boilerplate_keep_their_hits() -> None:
    a, b = ("a", "supply.pdf", LAW, True, True), ("b", "lease.pdf", LAW, True, True)
    assert _keep([a, b]) == ([a, b], [])
    same_doc = ("a", "supply.pdf", LAW, True, True), ("a", "supply.pdf", LAW, True, True)
    assert _keep(list(same_doc))[0] == list(same_doc)  # one document: two spans, never merged


_WORDS = ["rent", "tenant", "shall", "pay", "notice", "days", "landlord", "premises", "term", "lease"]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a.pdf", "a.txt", "b.pdf", "b.htm"]),
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
            st.booleans(),
        ),
        max_size=12,
    ),
    st.integers(min_value=1, max_value=5),
)
def test_kept_hits_never_repeat_a_twin_passage(raw: list[tuple[str, list[str], bool]], k: int) -> None:
    items: list[Item] = [
        (source, source, " ".join(words), not source.endswith(".txt"), ok) for source, words, ok in raw
    ]
    kept, repeats = _keep(items, k)
    assert len(kept) <= k and len(set(map(id, kept))) == len(kept)
    admitted = [i for i in items if i[4]]
    assert bool(kept) == bool(admitted)
    for n, a in enumerate(kept):
        for b in kept[n + 1 :]:
            assert not (a[0] != b[0] and are_twins(a[1], b[1]) and same_passage(a[2], b[2]))
    for dropped, standing in repeats:
        assert dropped not in kept or dropped is standing
        assert standing in kept


def _hit(doc: str, score: float, *terms: str) -> DocHit:
    return DocHit(doc, score, 0.0, terms)


def test_twins_are_named_together_whatever_their_names_and_scores() -> None:
    """The PDF's title adds a word the text's name lacks, and the text scores lower: still one document (the
    index's statistics count the two once: ``acme`` is in one document's names of three)."""
    freq = {"acme": 1, "baxter": 1, "supply": 1, "lease": 2}
    hits = [_hit("pdf", 9.0, "supply", "acme", "baxter"), _hit("txt", 6.0, "acme", "baxter"), _hit("o", 2.0, "lease")]
    sources = {"pdf": "acme.pdf", "txt": "acme.txt", "o": "other.pdf"}
    match = choose(hits, lambda t: freq[t], 3, twins=lambda a, b: are_twins(sources[a], sources[b]))
    assert match is not None and match.doc_ids == ("pdf", "txt") and match.runner_up == 2.0
    alone = choose(hits, lambda t: freq[t], 3)  # without twins: the text is only the runner-up
    assert alone is not None and alone.doc_ids == ("pdf",) and alone.runner_up == 6.0


def test_the_document_index_counts_twins_once(tmp_path: Path) -> None:
    """The same contract as a PDF and as text is one document in the naming statistics; two contracts are two."""
    from kruschnexus.lexical.analysis import file_stem
    from kruschnexus.lexical.index import DocEntry, IndexState
    from kruschnexus.lexical.tantivy_index import TantivyIndex

    docs = [
        DocEntry("a" * 64, "ACME SUPPLY AGREEMENT Acme Widgets Inc.", "", file_stem("cuad/Acme Supply.pdf")),
        DocEntry("b" * 64, "Acme Widgets Inc.", "", file_stem("cuad/Acme Supply.txt")),
        DocEntry("c" * 64, "OFFICE LEASE Zenith Realty LLC", "", file_stem("lease/office.pdf")),
    ]
    index = TantivyIndex(tmp_path / "index")
    try:
        assert index.document_count() == 0
        index.replace([], [], docs)
        index.commit(IndexState("test", 1))
        acme = index.analyze("Acme")[0]
        assert index.document_count() == 2 and index.name_doc_freq(acme) == 1
        assert index.name_doc_freq(index.analyze("Zenith")[0]) == 1 and index.name_doc_freq("nosuchterm") == 0
    finally:
        index.close()


def test_one_pdf_passage_stands_for_every_text_piece_it_repeats() -> None:
    """The text file cut one passage in two where the PDF kept it whole: the PDF's span replaces both."""
    first = ("t", "supply.txt", "Buyer shall pay each invoice within forty-five days", False, True)
    second = ("t", "supply.txt", "of the invoice date by wire transfer to the Seller", False, True)
    other = ("p", "supply.pdf", "Seller shall deliver the goods within ten days.", True, True)
    whole = ("p", "supply.pdf", f"{first[2]} {second[2]}.", True, True)
    kept, repeats = _keep([first, other, second, whole])
    assert kept == [whole, other]
    assert sorted(repeats) == sorted([(first, whole), (second, whole)])


def test_a_page_fragment_never_stands_for_a_whole_clause() -> None:
    clause = ("t", "lease.txt", "Rent is due on the first day of each month and is paid by wire transfer.", False, True)
    fragment = ("p", "lease.pdf", "Rent", True, False)
    assert _keep([clause, fragment]) == ([clause], [])


def test_a_merge_never_drops_a_better_ranked_hit_from_the_first_k() -> None:
    """Two text pieces merged into their PDF passage free a slot: the next admitted hit fills it, in rank order."""
    a1 = ("t", "supply.txt", "Buyer shall pay each invoice within forty-five days", False, True)
    a2 = ("t", "supply.txt", "of the invoice date by wire transfer to the Seller", False, True)
    b = ("o", "other.pdf", "Seller shall deliver the goods within ten days.", True, True)
    c = ("q", "third.pdf", "The Landlord maintains the roof and the structure.", True, True)
    whole = ("p", "supply.pdf", f"{a1[2]} {a2[2]}.", True, True)
    e = ("r", "fourth.pdf", "Notices are given in writing to the addresses above.", True, True)
    kept, _ = _keep([a1, a2, b, c, whole, e], k=3)
    assert kept == [whole, b, c]


def test_names_without_an_extension_are_not_twins() -> None:
    assert not are_twins("X-EX-10.26-Agency", "X-EX-10.27-Agency")
    assert not are_twins("contract", "contract.pdf")
