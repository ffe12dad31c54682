"""The embedding seam (``embed.base.Embedder.embed``) with the hash-based fake (``embed.fake``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.embed.base import Embedder, Vectors
from kruschnexus.embed.fake import HashEmbedder
from kruschnexus.errors import EmbedError


class RecordingEmbedder(HashEmbedder):
    """The fake, remembering every batch it was asked for."""

    def __init__(self, dim: int = 16, batch_size: int = 32) -> None:
        super().__init__(dim)
        self.batch_size = batch_size
        self.calls: list[list[str]] = []

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return super().embed_batch(texts)


class FixedEmbedder(Embedder):
    """Returns whatever array it was built with."""

    model_id = "fixed"

    def __init__(self, dim: int, make: object) -> None:
        self.dim = dim
        self._make = make

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        return self._make(len(texts), self.dim)  # type: ignore[operator, no-any-return]


def test_unit_vectors_in_input_order() -> None:
    embedder = HashEmbedder(dim=32)
    texts = ["rent is due monthly", "security deposit", "notices in writing"]
    out = embedder.embed(texts)
    assert out.shape == (3, 32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-6)
    raw = embedder.embed_batch(texts)
    for k in range(3):
        np.testing.assert_allclose(out[k], raw[k] / np.linalg.norm(raw[k]), rtol=1e-6)
    reversed_out = embedder.embed(list(reversed(texts)))
    np.testing.assert_array_equal(reversed_out, out[::-1])


def test_duplicates_get_identical_rows_and_are_embedded_once() -> None:
    embedder = RecordingEmbedder()
    out = embedder.embed(["a lease", "a deposit", "a lease", "a lease"])
    assert out.shape == (4, 16)
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out[0], out[3])
    assert not np.array_equal(out[0], out[1])
    assert embedder.calls == [["a lease", "a deposit"]]


def test_batches_hold_at_most_batch_size_unique_texts() -> None:
    embedder = RecordingEmbedder(batch_size=2)
    texts = ["one", "two", "three", "two", "four", "five"]
    out = embedder.embed(texts)
    # unique texts, shortest first (less padding), at most two per call
    assert embedder.calls == [["one", "two"], ["four", "five"], ["three"]]
    np.testing.assert_array_equal(out, HashEmbedder(16).embed(texts))


def test_empty_input() -> None:
    out = HashEmbedder(dim=8).embed([])
    assert out.shape == (0, 8)


def test_same_input_same_output_and_shared_words_are_closer() -> None:
    a, b = HashEmbedder(64), HashEmbedder(64)
    np.testing.assert_array_equal(a.embed(["late fee"]), b.embed(["late fee"]))
    out = a.embed(["tenant pays the late fee", "the late fee is five percent", "roof repairs by landlord"])
    assert float(out[0] @ out[1]) > float(out[0] @ out[2])
    assert a.model_id == "hash-64"


@given(st.lists(st.text(max_size=30), max_size=20), st.integers(1, 5))
def test_embed_properties(texts: list[str], batch_size: int) -> None:
    embedder = RecordingEmbedder(batch_size=batch_size)
    out = embedder.embed(texts)
    assert out.shape == (len(texts), 16)
    if texts:
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
    for i, t in enumerate(texts):
        j = texts.index(t)
        np.testing.assert_array_equal(out[i], out[j])
    sent = [t for call in embedder.calls for t in call]
    assert sorted(sent) == sorted(set(texts)) and len(sent) == len(set(texts))
    assert [len(t) for t in sent] == sorted(len(t) for t in sent)
    assert all(len(call) <= batch_size for call in embedder.calls)


@pytest.mark.parametrize(
    "make",
    [
        lambda n, d: np.ones((n, d + 1), dtype=np.float32),
        lambda n, d: np.ones((n + 1, d), dtype=np.float32),
        lambda n, d: np.ones((max(n - 1, 0), d), dtype=np.float32),
        lambda n, d: np.ones((n * d,), dtype=np.float32),
    ],
    ids=["too-wide", "extra-row", "missing-row", "flat"],
)
def test_wrong_shape_raises_embed_error(make: object) -> None:
    with pytest.raises(EmbedError, match="fixed"):
        FixedEmbedder(4, make).embed(["a", "b"])


def test_zero_vector_raises_embed_error() -> None:
    def make(n: int, d: int) -> Vectors:
        out = np.ones((n, d), dtype=np.float32)
        out[-1] = 0.0
        return out

    with pytest.raises(EmbedError, match="zero"):
        FixedEmbedder(4, make).embed(["a", "b"])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_vector_raises_embed_error(bad: float) -> None:
    def make(n: int, d: int) -> Vectors:
        out = np.ones((n, d), dtype=np.float32)
        out[0, 1] = bad
        return out

    with pytest.raises(EmbedError):
        FixedEmbedder(4, make).embed(["a", "b"])
