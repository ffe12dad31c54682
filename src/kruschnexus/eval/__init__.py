"""Retrieval evaluation: labelled suites (``suite``), pure metrics (``metrics``) and the gold-text check (``gold``)."""
