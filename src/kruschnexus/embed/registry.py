"""Embedder by name (``NEXUS_EMBEDDER``); the keys below are the only valid names."""

from __future__ import annotations

from collections.abc import Callable

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
