"""OCR words -> glyphs: pure rules, no Tesseract."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.parse.glyphs import Glyph, assemble
from kruschnexus.parse.ocr import OcrLine, OcrWord, glyphs_from_lines, is_text, lines_from_data, usable_text_layer


def _data(rows: list[tuple[int, int, int, int, str, int, int, int, int]]) -> dict[str, list[object]]:
    keys = ("level", "block_num", "par_num", "line_num", "text", "left", "top", "width", "height")
    data: dict[str, list[object]] = {k: [] for k in (*keys, "conf")}
    for row in rows:
        for k, v in zip(keys, row, strict=True):
            data[k].append(v)
        data["conf"].append(90 if row[0] == 5 else -1)
    return data


def test_words_are_grouped_by_line_and_empty_words_dropped() -> None:
    data = _data(
        [
            (4, 1, 1, 1, "", 100, 100, 300, 30),
            (5, 1, 1, 1, "Rent", 100, 102, 80, 26),
            (5, 1, 1, 1, " ", 190, 102, 5, 26),
            (5, 1, 1, 1, "due", 200, 108, 60, 20),
            (4, 1, 1, 2, "", 100, 140, 300, 30),
            (4, 1, 2, 1, "", 100, 200, 300, 30),
            (5, 1, 2, 1, "monthly.", 100, 200, 150, 30),
        ]
    )
    lines = lines_from_data(data)
    assert [[w.text for w in line.words] for line in lines] == [["Rent", "due"], ["monthly."]]
    assert (lines[0].top, lines[0].bottom) == (100, 130)


def test_glyph_boxes_split_each_word_and_span_the_line_height() -> None:
    line = OcrLine(100, 130, (OcrWord("Rent", 100, 102, 80, 26, 90.0), OcrWord("due", 200, 108, 60, 20, 90.0)))
    glyphs = glyphs_from_lines([line], dpi=144)  # 2 px per point
    text, rects = assemble(glyphs)
    assert text == "Rent due"
    boxes = [r for r in rects if r is not None]
    assert len(boxes) == 7
    assert boxes[0] == (50.0, 50.0, 60.0, 65.0)
    assert boxes[3][2] == 90.0 and boxes[4][0] == 100.0
    assert all(b[1] == 50.0 and b[3] == 65.0 for b in boxes)


_words = st.lists(
    st.text(alphabet=st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12), min_size=1, max_size=8
)


@given(st.lists(_words, min_size=1, max_size=6), st.integers(min_value=72, max_value=600))
def test_every_letter_gets_a_box_inside_its_word(lines_words: list[list[str]], dpi: int) -> None:
    lines = []
    for n, words in enumerate(lines_words):
        top = 50 + 40 * n
        placed = tuple(OcrWord(w, 10 + 100 * k, top + 2, 9 * len(w), 25, 90.0) for k, w in enumerate(words))
        lines.append(OcrLine(top, top + 30, placed))
    glyphs = glyphs_from_lines(lines, dpi=dpi)
    printed = [g for g in glyphs if g.rect is not None]
    assert "".join(g.ch for g in printed) == "".join("".join(ws) for ws in lines_words)
    scale = 72.0 / dpi
    k = 0
    for line in lines:
        for word in line.words:
            for _ in word.text:
                rect = printed[k].rect
                assert rect is not None
                assert word.left * scale - 1e-6 <= rect[0] <= rect[2] <= (word.left + word.width) * scale + 1e-6
                assert rect[1] == line.top * scale and rect[3] == line.bottom * scale
                k += 1


def test_text_layer_usability() -> None:
    box = (0.0, 0.0, 5.0, 5.0)
    assert not usable_text_layer([])
    assert not usable_text_layer([Glyph(" ", box), Glyph("\n", None)])
    assert usable_text_layer([Glyph(c, box) for c in "Lease"])
    garbage = [Glyph(c, box) for c in "\ue001\ue002\ufffd\ufffd\x01a"]
    assert not usable_text_layer(garbage)


def test_a_picture_read_as_noise_is_not_text() -> None:
    def line(*confs: float) -> OcrLine:
        return OcrLine(0, 10, tuple(OcrWord("w", 0, 0, 5, 10, c) for c in confs))

    assert is_text([line(96, 95, 40), line(91)])  # scanned text with one doubtful word
    assert not is_text([line(35, 29, 90), line(12)])  # a map: mostly noise
    assert not is_text([])
