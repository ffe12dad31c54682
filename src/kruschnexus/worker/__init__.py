"""Reading in a reader process the ingester can kill (see :mod:`kruschnexus.worker.reader`)."""

from kruschnexus.worker.pool import ReaderPool
from kruschnexus.worker.reader import ReaderBugError, ReadLimits, ReadWorker, RemoteSource

__all__ = ["ReadLimits", "ReadWorker", "ReaderBugError", "ReaderPool", "RemoteSource"]
