"""The REST API (``/v1``) and the web page (``/``), served by ``nexus serve``: thin routes over :class:`Corpus`."""
