"""The embedding seam: one abstract method, everything else in the base."""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from kruschnexus.config import DEFAULT_FLOOR
from kruschnexus.embed.calibration import Calibration
from kruschnexus.errors import EmbedError

Vectors = npt.NDArray[np.float32]


class Stop:
    """Asks an embedding under way to give up: between batches, and inside a model's run where the model can (see
    :meth:`Embedder.stoppable_batch`). Set once; what is asked of it after that is told at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._hooks: list[Callable[[], None]] = []

    def set(self) -> None:
        """Ask the embedding to give up."""
        with self._lock:
            self._set, hooks, self._hooks = True, self._hooks, []
        for hook in hooks:
            hook()

    def is_set(self) -> bool:
        """Whether :meth:`set` was called."""
        return self._set

    def on_set(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when :meth:`set` is (at once if it was)."""
        with self._lock:
            if not self._set:
                self._hooks.append(hook)
                return
        hook()


class EmbedStopped(EmbedError):
    """The embedding was asked to give up (:class:`Stop`) before it was done."""


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

    def stoppable_batch(self, texts: Sequence[str], stop: Stop) -> Vectors:
        """:meth:`embed_batch`, given up when ``stop`` is set during it where the model can (raising
        :class:`EmbedStopped`); this default runs it to the end."""
        return self.embed_batch(texts)

    def embed(self, texts: Sequence[str], stop: Stop | None = None) -> Vectors:
        """Unit-length float32 vectors, one row per text, in order.

        ``stop``: given up (:class:`EmbedStopped`) when set before a batch, or during one where the model can.

        Raises:
            EmbedError: the model returned the wrong shape or a zero or non-finite vector.
            EmbedStopped: ``stop`` was set.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Similar lengths share a batch, so little padding is computed; the order is restored below.
        unique = sorted(dict.fromkeys(texts), key=len)
        rows: list[Vectors] = []
        for lo in range(0, len(unique), self.batch_size):
            batch = unique[lo : lo + self.batch_size]
            if stop is not None and stop.is_set():
                raise EmbedStopped(f"{self.model_id}: the embedding was stopped")
            raw = self.embed_batch(batch) if stop is None else self.stoppable_batch(batch, stop)
            out = np.asarray(raw, dtype=np.float32)
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
