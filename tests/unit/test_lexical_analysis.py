"""Pure parts of the lexical leg: legal ids kept whole, party names, file names as words, document naming."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kruschnexus.chunk.grammar import is_numbered_title_line
from kruschnexus.chunk.titles import is_title_only
from kruschnexus.lexical.analysis import (
    _LEADER_LINE,
    entity_names,
    file_words,
    legal_ids,
    line_markers,
    looks_like_contents,
)
from kruschnexus.lexical.index import DocHit
from kruschnexus.retrieve.documents import choose, identifier_terms, name_terms, strip_naming
from kruschnexus.retrieve.vocabulary import candidate_names


def _analyze(text: str) -> list[str]:
    return [w.lower().rstrip("s") for w in re.findall(r"\w+", text)]


def test_legal_ids_whole_with_ancestors() -> None:
    assert legal_ids("see Section 8.22.030(C)") == ["8.22.030(c)", "8.22.030", "8.22"]
    assert legal_ids("Rule 12(b)(6) motion") == ["12(b)(6)", "12(b)", "12"]
    assert legal_ids("invoice INV-2002 due") == ["inv-2002"]
    assert legal_ids("Schedule 2.01a") == ["2.01a"]


def test_legal_ids_skip_amounts_and_plain_numbers() -> None:
    assert legal_ids("$8.22 per square foot") == []
    assert legal_ids("sixty (60) days") == []
    assert legal_ids("pages 12 and 13") == []


@given(st.lists(st.integers(0, 999), min_size=2, max_size=4), st.sampled_from(["", "(a)", "(iv)(B)"]))
def test_dotted_ids_round_trip(parts: list[int], tail: str) -> None:
    ident = ".".join(str(p) for p in parts) + tail
    found = legal_ids(f"under Section {ident}, the tenant")
    assert found[0] == ident.lower()
    assert ".".join(str(p) for p in parts[:2]) in found


def test_entity_names_and_file_words() -> None:
    text = "between General Electric Capital Corporation (\u201cGECC\u201d) and Duckwall-ALCO Stores, Inc. (the Agent)"
    names = entity_names(text)
    assert "General Electric Capital Corporation" in names
    assert any(n.endswith("Stores, Inc.") for n in names)
    assert file_words("ALCOSTORESINC_12_14_2005-EX-10.26-AGENCY AGREEMENT.pdf") == (
        "ALCOSTORESINC 12 14 2005 EX 10.26 AGENCY AGREEMENT"
    )
    assert file_words("chicago_city_lease_20221_sample.pdf") == "chicago city lease 20221 sample"


def _hit(doc: str, score: float, *terms: str) -> DocHit:
    return DocHit(doc, score, 0.0, terms)


def test_a_clear_name_is_chosen_and_its_words_stripped() -> None:
    freq = {"acme": 1, "baxter": 1, "lease": 5, "office": 2}
    hits = [_hit("a", 9.0, "acme", "baxter", "lease"), _hit("b", 2.0, "lease")]
    match = choose(hits, lambda t: freq.get(t, 0), documents=20)
    assert match is not None and match.doc_id == "a"
    question = "Under the Acme Baxter lease, when is rent due?"
    terms = name_terms(_analyze, question)
    assert "the" not in terms and "acme" in terms
    assert strip_naming(_analyze, question, match.terms) == "Under the when is rent due?"
    naming = ["supply", "agreement", "florida", "chemical", "company", "llc", "flotek", "chemistry"]
    cuad = "Consider the Supply Agreement between Florida Chemical Company, LLC and Flotek Chemistry, LLC; any cap?"
    assert strip_naming(_analyze, cuad, naming) == "any cap?", "a clause that only names the document goes"
    assert strip_naming(_analyze, "Supply Agreement; Flotek LLC", naming) == "", "never more than the whole"
    kept = "Note: under the Flotek supply agreement, who pays freight?"
    assert strip_naming(_analyze, kept, naming) == "Note: under the who pays freight?", "a clause that asks stays"


def test_no_match_when_ambiguous_or_generic() -> None:
    freq = {"acme": 1, "baxter": 1, "lease": 9, "office": 9}
    assert choose([_hit("a", 9.0, "acme", "baxter"), _hit("b", 8.0, "acme")], lambda t: freq[t], 20) is None
    assert choose([_hit("a", 9.0, "lease", "office")], lambda t: freq[t], 20) is None
    assert choose([_hit("a", 9.0, "acme", "baxter")], lambda t: freq[t], 1) is None
    assert choose([], lambda t: 0, 20) is None


def test_one_name_matched_alike_by_several_documents_names_them_together() -> None:
    """The same contract kept as a PDF and as text: both are named; a third document matched as well is not
    (ambiguous, no match); a weaker match with the same words stays out."""
    freq = {"acme": 2, "baxter": 2, "lease": 9}
    same = [_hit("pdf", 9.0, "acme", "baxter"), _hit("txt", 8.6, "acme", "baxter"), _hit("other", 2.0, "lease")]
    match = choose(same, lambda t: freq[t], 20)
    assert match is not None and match.doc_ids == ("pdf", "txt") and match.runner_up == 2.0
    weaker = [_hit("pdf", 9.0, "acme", "baxter"), _hit("txt", 5.0, "acme", "baxter")]
    match = choose(weaker, lambda t: freq[t], 20)
    assert match is not None and match.doc_ids == ("pdf",)
    crowd = [_hit(str(n), 9.0 - n / 10, "acme", "baxter") for n in range(4)]
    assert choose(crowd, lambda t: freq[t], 20) is None


def test_the_model_reads_title_and_headings_before_the_span() -> None:
    from kruschnexus.ingest import embedding_text
    from kruschnexus.lexical.analysis import title_of
    from kruschnexus.model import Chunk

    chunk = Chunk(
        page_number=3,
        start=10,
        end=40,
        text="Tenant shall pay   rent monthly.",
        rects=(),
        section="4.1",
        section_path=("4", "4.1"),
        heading_path=("Page 3", "ARTICLE 4 RENT", "4.1 Base Rent"),
        header="4.1 Base Rent",
        block_kinds=("paragraph",),
    )
    title = title_of("EXHIBIT 10.2\n\n12\nOFFICE LEASE\nbetween Acme LLC and Baxter Inc.\n1.1 Premises. The")
    assert title == "OFFICE LEASE between Acme LLC and Baxter Inc."
    assert embedding_text(chunk, title) == (
        "OFFICE LEASE between Acme LLC and Baxter Inc. > ARTICLE 4 RENT > 4.1 Base Rent\nTenant shall pay rent monthly."
    )
    assert title_of("ARTICLE 4 SECURITY DEPOSIT\n4.1 Amount. Upon execution") == "", "a section is no title"
    assert title_of("Tenant shall pay " * 10 + "\nLEASE") == "", "nor is a paragraph"
    assert embedding_text(chunk) == "ARTICLE 4 RENT > 4.1 Base Rent\nTenant shall pay rent monthly."


def test_names_the_workspace_never_saw() -> None:
    from kruschnexus.retrieve.vocabulary import candidate_names, unknown_names

    question = "Consider the Distribution Agreement between Nike, Inc. and Foot Locker, Inc.; what law governs?"
    assert candidate_names(question) == ["Distribution", "Nike", "Inc", "Foot", "Locker"]
    assert candidate_names("What is Section 8.22 about? Rent is due.") == []
    assert candidate_names("Is an Airbus A320 covered?") == ["Airbus", "A320"]
    known = {"distribution", "inc", "foot"}
    assert unknown_names(question, _analyze, lambda t: t in known) == ["Nike", "Locker"]
    assert unknown_names("What is the rent under the lease?", _analyze, lambda t: False) == []
    assert unknown_names("Who pays the HVAC costs of the Acme lease?", _analyze, lambda t: False) == ["Acme"]


def test_words_the_workspace_never_holds() -> None:
    from kruschnexus.retrieve.vocabulary import absent_words, one_edit, telling_absence

    known = {"executive", "entitled", "after", "five", "year", "service", "deposit", "returned", "monthly"}.__contains__

    question = "How long a sabbatical is the executive entitled to after five years of service?"
    assert absent_words(question, _analyze, known) == ["sabbatical"], "long asks, it is no subject"
    assert absent_words("When is the security depposit returned?", _analyze, known) == ["security"], (
        "depposit is a misspelling of a held word; security is absent"
    )
    assert absent_words("Is the rent due montly?", _analyze, known) == ["rent", "due"], "montly is one edit off"
    assert absent_words("Is Section 12(b) of the 2019 Lease in force?", _analyze, lambda t: False) == ["force"], (
        "numbers, ids and document-part words are never absent words"
    )
    assert absent_words("Who pays the HVAC?", _analyze, lambda t: False) == ["pays"], "an acronym is shorthand"
    assert "terminaton" in {v for v in one_edit("termination")} and "termination" in one_edit("terminaton")
    assert "recieve" in one_edit("receive") and "receive" not in one_edit("receive")
    terms = ["sabbat", "execut", "entitl", "five", "year", "servic"]
    assert telling_absence(["sabbatical"], terms)
    assert not telling_absence([], terms)
    assert not telling_absence(["happens", "rendered", "unusable"], ["happen", "render", "unus", "premis", "fire"])


def test_a_named_document_lacks_the_subject_only_when_a_term_of_several_words_is_missing() -> None:
    from kruschnexus.retrieve.vocabulary import telling_document_absence

    question = "is there a most favored nation pricing clause?"
    assert telling_document_absence(question, ["favored", "nation"], ["favor", "nation", "price"])
    assert not telling_document_absence(question, ["favored"], ["favor", "nation", "price"]), "one word: paraphrase"
    apart = "What is the new minimum quarterly payment the owner receives under the lease?"
    terms = ["new", "minimum", "quarter", "payment", "owner", "receiv", "leas"]
    assert not telling_document_absence(apart, ["new", "receives"], terms), "two words apart, a third of the terms"
    assert not telling_document_absence(apart, ["new", "receives"], terms[:5]), "apart: paraphrase of two words"
    assert telling_document_absence("what law governs the agreement?", ["law", "governs"], ["law", "govern"]), (
        "stop words between missing words do not part them"
    )
    assert not telling_document_absence("a company car, or an allowance?", ["car", "allowance"], ["car"] * 9), (
        "a third of the terms or fewer is not telling"
    )


def test_a_document_is_named_by_a_proper_name_not_by_its_topic() -> None:
    freq = {"secur": 1, "deposit": 1, "landlord": 2, "acme": 1}
    topic = [_hit("a", 9.0, "secur", "deposit", "landlord"), _hit("b", 1.0, "landlord")]
    assert choose(topic, lambda t: freq[t], 20, proper=set()) is None
    named = [_hit("a", 9.0, "acme", "deposit"), _hit("b", 1.0, "deposit")]
    match = choose(named, lambda t: freq[t], 20, proper={"acme"})
    assert match is not None and match.doc_id == "a"


def test_an_identifier_only_one_document_name_holds_names_that_document() -> None:
    """ "Paragraph 35 of 2022-NCSC-1": one distinctive term, but written as an identifier and in one document's name
    only; a plain word in one name, or an identifier two names share, is not enough."""
    question = "Paragraph 35 of 2022-NCSC-1"
    assert identifier_terms(_analyze, question) == {"ncsc"}
    assert identifier_terms(_analyze, "Who signed the HPIL agreement, and the Lease?") == {"hpil"}
    freq = {"ncsc": 1, "opinion": 1, "cncf": 2}
    hits = [_hit("nc", 9.0, "ncsc"), _hit("other", 1.0, "opinion")]
    match = choose(hits, lambda t: freq[t], 20, identifiers={"ncsc"})
    assert match is not None and match.doc_id == "nc"
    assert choose(hits, lambda t: freq[t], 20) is None
    assert choose([_hit("a", 9.0, "opinion")], lambda t: freq[t], 20, identifiers=set()) is None
    assert (
        choose([_hit("a", 9.0, "cncf"), _hit("b", 1.0, "opinion")], lambda t: freq[t], 20, identifiers={"cncf"}) is None
    )


def test_a_proper_name_only_one_document_name_holds_names_that_document() -> None:
    """ "When does Karyopharm give back ...": one distinctive term, a proper name in one document's name only; the
    same word in two names, or the calendar's capitals (``September``), name nothing."""
    question = "When does Karyopharm give back the space it is not keeping in September?"
    proper = {t for w in candidate_names(question) for t in _analyze(w)}
    assert proper == {"karyopharm"}
    freq = {"karyopharm": 1, "lease": 9, "september": 1}
    hits = [_hit("k", 9.0, "karyopharm"), _hit("other", 1.0, "lease")]
    match = choose(hits, lambda t: freq[t], 20, proper=proper)
    assert match is not None and match.doc_id == "k"
    assert choose([_hit("s", 9.0, "september"), _hit("o", 1.0, "lease")], lambda t: freq[t], 20, proper=proper) is None
    assert choose(hits, lambda t: {**freq, "karyopharm": 2}[t], 20, proper=proper) is None


def test_a_paragraph_number_on_its_own_line_opens_its_paragraph() -> None:
    """An opinion's ``¶ 35`` stands on a line of its own; a bare number alone on a line (a page number) does not."""
    assert line_markers("¶ 35\n\nHere, chance controls") == ["35"]
    assert line_markers("Section 4\nRent") == ["4"]
    assert line_markers("35\n\nHere") == []
    assert line_markers("Page 35") == []
    assert line_markers("as provided in Section 12\nof this Lease") == [], "a reference that ends a line opens nothing"
    assert line_markers("II\nA\nTarrant claims") == ["part ii"], "a slip opinion's part, alone on its line"
    assert line_markers("Ill\nwill do") == [] and line_markers("I think so") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Governing Laws.................................................. 12", True),
        ("Section 8.01 Governing Law\nSection 8.02 Jurisdiction\nSection 8.03 Cost and Expenses", True),
        ("SECTION 2 AMOUNT AND TERMS\n2.1 Term Commitments\n2.2 Procedure for Borrowing\n2.3 Repayment", True),
        (
            "19.0 TERMINATION WITHOUT CAUSE\n19.1 Either Party may terminate, without cause, by giving two\n(2) years",
            False,
        ),
        ("12. Holidays\n12.1 The Executive shall be entitled to 28 days' paid holiday.", False),
        ("The Tenant shall pay. . . the rent", False),
        ("", False),
    ],
)
def test_looks_like_contents(text: str, expected: bool) -> None:
    assert looks_like_contents(text) is expected


def _contents_by_every_line(text: str) -> bool:
    """The rule itself, every line tested for a leader and a numbered title (what :func:`looks_like_contents`
    spares)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    if 2 * sum(1 for line in lines if _LEADER_LINE.search(line)) >= len(lines):
        return True
    titles = sum(1 for line in lines if is_numbered_title_line(line))
    return titles >= 3 and 3 * titles >= 2 * len(lines)


_PIECES = st.sampled_from(
    [".", ". ", "..", "\n", "\r\n", "\u2028", " ", "\t", "\u00a0", "12", "8.01", "iv", "Section ", "§ ", "Rent", ","]
)


@settings(max_examples=400)
@example("Rent . . . . . 12")
@example("Rent. \u00a0. .\t. .iv\n§ 12 Rent")
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_looks_like_contents_is_the_rule_on_every_line(text: str) -> None:
    assert looks_like_contents(text) is _contents_by_every_line(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5. Forecasts; Terpene Cost Information.", True),
        ("3.Obligations Of The Parties", True),
        ("ARTICLE X FORCE MAJEURE", True),
        ("Section 8.23 Term of Lease", True),
        ("force or effect after the Change in Control Period.", False),
        ("d. the CNCF Executive Director, or", False),
        ("12. Holidays\n12.1 The Executive shall be entitled to 28 days' paid holiday.", False),
        ("2. This License does not include a minimum annual royalty payable by THI to Marv.", False),
        ("", False),
    ],
)
def test_is_title_only(text: str, expected: bool) -> None:
    assert is_title_only(text) is expected
