"""One process per project: the daemon that owns the watcher, the one writer and the linked state.

A project's daemon (``daemon.server``) holds ``.projectgraph/writer.pid`` for its whole life (a
kernel lock, ``daemon.writer``: one daemon per index folder, and no direct-mode writer beside it),
runs the watcher (``sync.watch``) in a thread, so the incremental link state stays in its memory,
and answers queries (MCP tool calls, CLI commands) from its open store. Clients find it through
the rendezvous file ``.projectgraph/daemon.json`` and talk to it over a Unix socket, one JSON
object a line (``daemon.protocol``); a client that finds none starts one (``daemon.client``).

Lifetimes: a client that keeps a connection open with ``lease`` (an MCP session, the viewer) keeps
the daemon alive; the daemon exits once no lease is held and no request came for its idle period
(``PROJECTGRAPH_DAEMON_IDLE`` seconds, 600 by default), when its index folder is removed or
replaced, when its own install changes (the interpreter, the package's version or files), and
when a client of a newer version asks it to drain. ``PROJECTGRAPH_NO_DAEMON=1`` (or
``--no-daemon``) is direct mode: each command reads and writes the store itself, as before.

This package's client side imports only the standard library (a CLI query through the daemon is
an interpreter start and a socket round trip); the server side imports the rest.
"""
