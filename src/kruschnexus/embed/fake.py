"""A deterministic, hash-based embedder for unit tests of pure logic (never the default)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from kruschnexus.embed.base import Embedder, Vectors

_WORD = re.compile(r"\w+")


class HashEmbedder(Embedder):
    """Bag of hashed words: texts sharing words get similar vectors. Same input, same output."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.model_id = f"hash-{dim}"

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """One row per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, 0] = 1e-3
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
        return out
