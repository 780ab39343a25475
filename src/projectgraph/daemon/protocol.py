"""The daemon's wire format: one JSON object a line over a Unix stream socket.

A request has ``op`` (hello, status, ready, tool, cli, drain, stop) and its fields; the answer has
``ok`` and either the op's fields or ``error`` (a message). A connection may carry several
requests, one after the other; one opened with ``hello`` and ``lease: true`` is a lease: the daemon
counts it as a client until it closes. A query (tool, cli) may say ``settle``: the most seconds it
waits for a sync in progress before it is answered from the graph before it (``daemon.server``).
Standard library only.
"""

from __future__ import annotations

import json
import socket
from typing import Any

MAX_LINE = 512 * 1024 * 1024
"""The longest message read (a whole graph dump through the CLI is the largest)."""


class ProtocolError(ConnectionError):
    """The other end closed the connection, or sent what is not a message."""


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")


class Reader:
    """Messages from one socket, one line each (buffered across reads)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()

    def read(self) -> dict[str, Any] | None:
        """The next message, or None when the other end closed cleanly between two messages."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                try:
                    message = json.loads(line)
                except ValueError as error:
                    raise ProtocolError(f"not a message: {error}") from None
                if not isinstance(message, dict):
                    raise ProtocolError("not a message: not an object")
                return message
            if len(self._buffer) > MAX_LINE:
                raise ProtocolError("message too long")
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                if self._buffer:
                    raise ProtocolError("connection closed within a message")
                return None
            self._buffer += chunk
