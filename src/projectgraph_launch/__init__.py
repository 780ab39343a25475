"""The ``projectgraph`` command's entry point: a query goes to the project's daemon first.

A query through a running daemon is an interpreter start, one socket round trip and a print, so
the quick path here (``forward``) imports nothing but what ``python -c pass`` has already loaded and
the C modules of ``json`` and of the socket: it reads the rendezvous (``.projectgraph/daemon.json``),
and when the daemon there runs from this install (it recorded this very file: ``launcher_file``)
and speaks this protocol, it sends the command and prints the answer. Anything else (no daemon
yet, another install's, a refused connection, direct mode, a command that is not a query) goes the
long way: ``projectgraph.daemon.fastcli`` (which starts a daemon, drains an older one, waits for one
starting), imported without running the package's ``__init__`` (about a second of imports), and
then the full command group (``projectgraph.cli.main``). The names the daemon's client shares with
this path live here (``projectgraph.daemon.paths`` takes them from this module).
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing is not among the modules an interpreter has loaded at start)
    from typing import Any

INDEX_FOLDER = ".projectgraph"
RENDEZVOUS = "daemon.json"
PROTOCOL = 1
"""The request protocol's version: a client and a daemon of different protocols do not talk."""
NO_DAEMON = "PROJECTGRAPH_NO_DAEMON"
VERSION_OVERRIDE = "PROJECTGRAPH_DAEMON_VERSION"
"""The version a daemon reports instead of the installed one (tests: an older daemon to drain)."""
CONNECT_TIMEOUT = 5.0

ROUTED = frozenset(
    (
        "callers",
        "callees",
        "symbol",
        "search",
        "impact",
        "path",
        "hierarchy",
        "cycles",
        "reach",
        "changes",
        "explore",
    )
)
"""The query commands a daemon answers."""
LOCAL = frozenset(("-h", "--help", "--version"))


def direct_mode() -> bool:
    """Whether ``PROJECTGRAPH_NO_DAEMON`` asks for direct mode (any value but empty, 0, false, no)."""
    return os.environ.get(NO_DAEMON, "").strip().lower() not in ("", "0", "false", "no")


def project_of(args: list[str]) -> tuple[str, list[str]] | None:
    """The project root ``args`` name (``--project``, else the working directory), resolved, and
    ``args`` without it; None when the value is missing (the command line then reports it)."""
    rest: list[str] = []
    named: str | None = None
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            rest += args[index:]
            break
        if arg == "--project":
            if index + 1 >= len(args):
                return None
            named, skip = args[index + 1], True
        elif arg.startswith("--project="):
            named = arg.partition("=")[2]
        else:
            rest.append(arg)
    try:
        root = os.path.realpath(os.path.expanduser(named or os.getcwd()))
    except (OSError, ValueError):
        return None
    return root, rest


def launcher_file() -> str:
    """This module's file, links resolved: the same file is the same install (a daemon records its
    own in the rendezvous; it exits once its install changes)."""
    return os.path.realpath(__file__)


def deliver(answer: dict[str, Any]) -> int:
    """Print a CLI answer of the daemon as the command would have; its exit code."""
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer.get("code")
    return code if isinstance(code, int) else 1


class _Decoding:
    """What the C scanner of ``_json`` reads from its context (``json.JSONDecoder``'s names)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity


def _decode(data: bytes) -> Any:
    """The JSON value at the start of ``data`` (None when there is none). ``json`` itself imports
    ``re`` and ``enum`` and compiles its patterns, as much again as the interpreter's own start:
    its C scanner alone reads the same JSON."""
    try:
        import _json
    except ImportError:  # (an interpreter without it)
        import json

        try:
            return json.loads(data)
        except ValueError:
            return None
    try:
        text = data.decode("utf-8")
        value, _end = _json.make_scanner(_Decoding())(text.lstrip(), 0)  # type: ignore[arg-type]
    except (StopIteration, ValueError):
        return None
    return value


def _encode(message: dict[str, str | list[str]]) -> bytes:
    """A request as one JSON line (its values strings or lists of strings, all this path sends)."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:
        import json

        return json.dumps(message).encode("ascii") + b"\n"
    fields = []
    for key, value in message.items():
        shown = quote(value) if isinstance(value, str) else "[" + ",".join(quote(v) for v in value) + "]"
        fields.append(f"{quote(key)}:{shown}")
    return ("{" + ",".join(fields) + "}\n").encode("ascii")


def _rendezvous(root: str) -> dict[str, Any] | None:
    try:
        fd = os.open(
            os.path.join(root, INDEX_FOLDER, RENDEZVOUS), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        )
    except OSError:
        return None
    try:
        data = os.read(fd, 1 << 16) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return None
    finally:
        os.close(fd)
    value = _decode(data)
    return value if isinstance(value, dict) else None


def _ask(path: str, message: dict[str, str | list[str]]) -> dict[str, Any] | None:
    """One request to the socket at ``path`` and its answer (None: no answer, whatever the cause)."""
    # the C module: ``socket`` imports selectors, enum and collections first, a fifth of the
    # interpreter's own start
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        sock.settimeout(None)  # the answer may wait for a sync (daemon.server: SETTLE)
        sock.sendall(_encode(message))
        chunks: list[bytes] = []
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return None
            if chunk.endswith(b"\n"):
                chunks.append(chunk)
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    answer = _decode(b"".join(chunks))
    return answer if isinstance(answer, dict) else None


def forward(argv: list[str]) -> int | None:
    """The exit code of the query of ``argv`` as the running daemon of its project answered it, or
    None when this quick path does not apply (see the module docstring)."""
    args = argv[1:]
    if (
        not args
        or args[0] not in ROUTED
        or "--no-daemon" in args
        or LOCAL.intersection(args)
        or direct_mode()
        or os.environ.get(VERSION_OVERRIDE, "").strip()
    ):
        return None
    found = project_of(args[1:])
    if found is None:
        return None
    root, rest = found
    info = _rendezvous(root)
    if (
        info is None
        or info.get("protocol") != PROTOCOL
        or info.get("launcher") != launcher_file()
        or not isinstance(info.get("socket"), str)
    ):
        return None
    answer = _ask(
        info["socket"], {"op": "cli", "argv": [args[0], *rest, "--project", root], "cwd": os.getcwd()}
    )
    if answer is None or not answer.get("ok"):
        return None  # a daemon stopping, or gone: the long way starts or finds the next one
    return deliver(answer)


def main() -> None:
    code = forward(sys.argv)
    if code is not None:
        sys.stdout.flush()
        sys.exit(code)
    import importlib.util

    spec = importlib.util.find_spec("projectgraph")
    if spec is None or spec.loader is None or "projectgraph" in sys.modules:
        from projectgraph.cli import main as full

        full()
        return
    package = importlib.util.module_from_spec(spec)
    sys.modules["projectgraph"] = package  # its __init__ has not run: its submodules import alone
    try:
        from projectgraph.daemon import fastcli

        code = fastcli.run(sys.argv)
    except BaseException:
        del sys.modules["projectgraph"]
        raise
    if code is not None:
        sys.stdout.flush()
        sys.exit(code)
    spec.loader.exec_module(package)  # the package as an import would have made it, then the CLI
    from projectgraph.cli import main as full

    full()
