"""The MCP server for coding agents: the query engine's answers as tools, over stdio or streamable
HTTP, checked against the working copy. ``projectgraph serve --mcp`` runs it.

The SDK is imported only by ``projectgraph.mcp.server``, so the tool table and the checks can be
used (and tested) without starting a transport.
"""

from __future__ import annotations

from projectgraph.mcp.tools import TOOLS, Tool

__all__ = ["TOOLS", "Tool"]
