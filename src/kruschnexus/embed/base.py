"""The embedding seam: one abstract method, everything else in the base."""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kruschnexus.config import DEFAULT_FLOOR
from kruschnexus.embed.calibration import Calibration
from kruschnexus.errors import EmbedError

Vectors = npt.NDArray[np.float32]


class Embedder(abc.ABC):
    """Turns texts into unit-length vectors.

    Subclasses implement :meth:`embed_batch` only; batching (by similar length), de-duplication,
    dimension checks and normalization live here.

    Attributes:
        model_id: stable id stored with each workspace (mixing models is refused).
        dim: vector dimension.
        batch_size: texts per :meth:`embed_batch` call.
        floor: the model's fail-closed cosine floor (see ``bench/floor.py``).
    """

    model_id: str
    dim: int
    batch_size: int = 32
    #: Fail-closed similarity floor for this model: a span below it is admitted only by full-text match.
    #: Each model sets its own from measurement; :data:`~kruschnexus.config.DEFAULT_FLOOR` until it does.
    floor: float = DEFAULT_FLOOR
    #: Maps a hit's features to a calibrated probability of relevance; ``None`` leaves ``confidence`` null.
    calibration: Calibration | None = None

    @abc.abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """Raw vectors for ``texts`` (one row per text, any length)."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors, one row per text, in order.

        Raises:
            EmbedError: the model returned the wrong shape or a zero or non-finite vector.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Similar lengths share a batch, so little padding is computed; the order is restored below.
        unique = sorted(dict.fromkeys(texts), key=len)
        rows: list[Vectors] = []
        for lo in range(0, len(unique), self.batch_size):
            batch = unique[lo : lo + self.batch_size]
            out = np.asarray(self.embed_batch(batch), dtype=np.float32)
            if out.shape != (len(batch), self.dim):
                raise EmbedError(f"{self.model_id}: expected {(len(batch), self.dim)} vectors, got {out.shape}")
            rows.append(out)
        matrix = np.concatenate(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
            raise EmbedError(f"{self.model_id}: the model returned a zero or non-finite vector")
        unit: Vectors = (matrix / norms).astype(np.float32)
        index = {t: i for i, t in enumerate(unique)}
        picked: Vectors = unit[[index[t] for t in texts]]
        return picked
