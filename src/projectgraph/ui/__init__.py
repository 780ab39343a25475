"""The browser viewer: ``projectgraph ui`` serves a page and a JSON API over the query engine.

``server`` binds the socket (loopback unless a host is named), refuses requests whose ``Host`` or
``Origin`` is not this server's (DNS rebinding), serves the page's static assets from this package
and streams the live channel; ``api`` answers each endpoint with one call of ``QueryEngine`` (or
``reach``), in the shapes of the CLI's ``--json``; ``live`` watches the store's sync generation and
the working copy's staleness for the live channel. The page (``static/``) is hand-written
JavaScript, CSS and SVG: no build step, no CDN, nothing fetched from the network at run time.
"""

from __future__ import annotations

from projectgraph.ui.server import BindRefusedError, UiServer, is_loopback

__all__ = ["BindRefusedError", "UiServer", "is_loopback"]
