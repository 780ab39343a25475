"""The viewer's HTTP server: the page, the JSON API and the live channel, on loopback by default.

Binding: ``UiServer`` refuses an address that is not loopback unless ``allow_remote`` is set (the
CLI sets it only when ``--host`` is named, and warns). Whatever the bind, every request must name
this server in its ``Host`` header (``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT``, or the
host named with ``--host``) and, when it has an ``Origin``, come from the same: a page of another
site that rebinds its DNS name to 127.0.0.1 reaches the socket but is refused (403), and so is a
cross-site ``fetch``. Only GET and HEAD are served; the API only reads.

The live channel, ``/api/events``, is a server-sent event stream: ``hello`` first, then
``generation`` when the store's sync generation moves and ``staleness`` when the working copy's
difference from the stored graph changes (``live.LiveState``), and a comment every
``KEEPALIVE`` seconds so a dead connection is noticed. Threads: one per request
(``ThreadingHTTPServer``), one per open event stream, one for the live state.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from projectgraph.ui.api import Api, ApiError
from projectgraph.ui.live import LiveState

KEEPALIVE = 15.0
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

log = logging.getLogger("projectgraph.ui")


class BindRefusedError(ValueError):
    """A bind to an address that is not loopback, without the host named explicitly."""


class ListenError(OSError):
    """The server cannot listen on the address asked for."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost`` (names are not resolved)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _with_port(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{shown}:{port}"


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values this server answers to (lower case, with the port)."""
    names = {"127.0.0.1", "localhost", "::1", host.strip("[]")}
    if host in ("0.0.0.0", "::"):  # every interface: the machine's own names too
        names |= {socket.gethostname(), socket.getfqdn()}
    values = {_with_port(name.lower(), port) for name in names if name}
    if port == 80:
        values |= {(f"[{n}]" if ":" in n else n).lower() for n in names if n}
    return frozenset(values)


class UiServer:
    """The viewer of the project at ``root`` on ``host:port`` (port 0: a free one), not yet serving."""

    def __init__(
        self,
        root: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        allow_remote: bool = False,
        poll: float = 0.25,
        check_every: float = 2.0,
    ) -> None:
        if not is_loopback(host) and not allow_remote:
            raise BindRefusedError(
                f"{host} is not a loopback address: the viewer serves 127.0.0.1 only, unless the "
                "host is named with --host (anyone who reaches it can then read the index)"
            )
        self.root = root.resolve()
        self.live = LiveState(self.root, poll=poll, check_every=check_every)
        self.api = Api(self.root, self.live)
        server_class = _Server6 if ":" in host.strip("[]") else _Server
        try:
            self.httpd = server_class((host.strip("[]"), port), _handler(self))
        except OSError as error:
            self.api.close()
            self.live.stop()
            raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
        self.host = host.strip("[]")
        self.port = int(self.httpd.server_address[1])
        self.hosts = allowed_hosts(self.host, self.port)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{_with_port(shown, self.port)}/"

    def allows(self, headers: Any) -> str | None:
        """Why a request is refused (its Host or Origin is not this server), or None."""
        host = (headers.get("Host") or "").strip().lower()
        if host not in self.hosts:
            return f"Host {host or '(none)'!r} is not this server (DNS rebinding is refused)"
        origin = headers.get("Origin")
        if origin is not None:
            parts = urlsplit(origin.strip().lower())
            if parts.scheme != "http" or parts.netloc not in self.hosts:
                return f"Origin {origin!r} is not this server (cross-site requests are refused)"
        return None

    def _begin(self) -> None:
        """Start the live state, and read in the background what the engine reads once per run."""
        self.live.on_new_run.append(self.api.warm)
        self.live.start()
        threading.Thread(target=self._warm, name="projectgraph-ui-warm", daemon=True).start()

    def _warm(self) -> None:
        try:
            self.api.warm()
        except Exception:  # the first question reads it then
            log.exception("warming the engine failed")

    def serve_forever(self) -> None:
        self._begin()
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self.close()

    def start(self) -> None:
        """Serve in a background thread (tests, benchmarks); ``stop`` ends it."""
        self._begin()
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.2,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.close()

    def close(self) -> None:
        self.live.stop()  # wakes the event streams, which then end
        self.httpd.server_close()
        self.api.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Server6(_Server):
    address_family = socket.AF_INET6


def _asset(name: str) -> bytes:
    return (resources.files("projectgraph.ui") / "static" / name).read_bytes()


def _handler(server: UiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "projectgraph-ui"
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s " + format, self.address_string(), *args)

        def _send(self, status: int, body: bytes, content_type: str, head: bool = False) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, status: int, data: dict[str, Any], head: bool = False) -> None:
            body = json.dumps(data, ensure_ascii=False).encode("utf-8")
            self._send(status, body, "application/json; charset=utf-8", head)

        def do_GET(self) -> None:
            self._get(head=False)

        def do_HEAD(self) -> None:
            self._get(head=True)

        def _refuse_method(self) -> None:
            self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "the viewer only reads: GET and HEAD"})

        do_POST = do_PUT = do_DELETE = do_PATCH = _refuse_method

        def _get(self, head: bool) -> None:
            refused = server.allows(self.headers)
            if refused is not None:
                self._json(HTTPStatus.FORBIDDEN, {"error": refused}, head)
                return
            parts = urlsplit(self.path)
            if parts.path == "/api/events":
                self._events()
                return
            if parts.path.startswith("/api/"):
                params = parse_qs(parts.query, keep_blank_values=True)
                try:
                    data = server.api.answer(parts.path[len("/api/") :], params)
                except ApiError as error:
                    self._json(error.status, error.to_json(), head)
                    return
                except Exception as error:  # the page gets a message, the server keeps serving
                    log.exception("%s failed", parts.path)
                    self._json(500, {"error": f"internal error ({type(error).__name__}: {error})"}, head)
                    return
                self._json(HTTPStatus.OK, data, head)
                return
            asset = STATIC.get(parts.path)
            if asset is None:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {parts.path}"}, head)
                return
            self._send(HTTPStatus.OK, _asset(asset[0]), asset[1], head)

        def _events(self) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            live = server.live
            state = live.snapshot()
            try:
                self._event("hello", state, retry=1000)
                while not live.stopped:
                    new = live.wait(state["version"], KEEPALIVE)
                    if live.stopped:
                        break
                    if new["version"] == state["version"]:
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                        continue
                    if new["generation"] != state["generation"]:
                        self._event("generation", new)
                    if new["staleness"] != state["staleness"]:
                        self._event("staleness", new)
                    state = new
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                return

        def _event(self, name: str, data: dict[str, Any], retry: int | None = None) -> None:
            text = f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
            if retry is not None:
                text = f"retry: {retry}\n" + text
            self.wfile.write(text.encode("utf-8"))
            self.wfile.flush()

    return Handler
