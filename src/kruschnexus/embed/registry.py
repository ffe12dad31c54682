"""Embedder by name (``NEXUS_EMBEDDER``); the keys below are the only valid names."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError


def _local(settings: Settings, _arg: str) -> Embedder:
    from kruschnexus.embed.local import MiniLmEmbedder

    if settings.embed_batch is None:
        return MiniLmEmbedder(threads=settings.threads)
    return MiniLmEmbedder(threads=settings.threads, batch_size=settings.embed_batch)


def _ollama(settings: Settings, arg: str) -> Embedder:
    from kruschnexus.embed.ollama import OllamaEmbedder

    if settings.embed_batch is None:
        return OllamaEmbedder(arg, settings.ollama_url)
    return OllamaEmbedder(arg, settings.ollama_url, batch_size=settings.embed_batch)


def _hash(_settings: Settings, arg: str) -> Embedder:
    from kruschnexus.embed.fake import HashEmbedder

    return HashEmbedder(int(arg) if arg else 64)


EMBEDDERS: dict[str, Callable[[Settings, str], Embedder]] = {
    "local": _local,
    "ollama": _ollama,
    "hash": _hash,
}


def make_embedder(settings: Settings) -> Embedder:
    """Build the embedder ``settings.embedder`` names (``local``, ``ollama:<model>``, ``hash[:dim]``)."""
    name, _, arg = settings.embedder.partition(":")
    if name not in EMBEDDERS:
        raise ConfigError(f"unknown embedder {settings.embedder!r}; choose one of: {', '.join(EMBEDDERS)}")
    return EMBEDDERS[name](settings, arg)


def bundled(settings: Settings) -> bool:
    """Whether ``settings`` name the bundled model (``local``), whose load is worth starting early: another
    (``ollama:``) asks its server on first use, and waiting on that would hold up an interrupt."""
    return settings.embedder.partition(":")[0] == "local"


def load_embedder(settings: Settings) -> Future[Embedder]:
    """:func:`make_embedder` on a thread of its own (``nexus-model``), begun now: a command that will search starts
    the bundled model's load (0.3 s) before it imports and opens the rest (docs/scaling.md, "From the shell"). The
    load's error is the future's."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nexus-model")
    try:
        return pool.submit(make_embedder, settings)
    finally:
        pool.shutdown(wait=False)  # the thread ends with its one load
