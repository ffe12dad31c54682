"""The MCP server (``nexus mcp``): seven tools over stdio, thin shells over :class:`~kruschnexus.corpus.Corpus`.

Needs the ``mcp`` extra (``pip install 'kruschnexus[mcp]'``); see ``docs/mcp.md``.
"""
