"""The host side of one protocol v1 exchange: start the provider, write one request, read answers.

A provider is an executable that speaks JSON lines. The host starts one process per request in a
process group of its own, writes ONE request line, closes stdin, and reads lines until the first
``{"ok": true, ...}`` answer; ``{"progress": ...}`` lines before it are counted, not kept. Everything
the provider prints is data: each line is parsed as JSON into our own values and never interpreted
further here (``projectgraph.providers.validation`` turns a build answer into rows).

Every way an exchange can go wrong ends as ``ProviderUnavailable``, after the whole process group
is killed: the deadline passes, a line is not a JSON object, the output grows past its cap (counted
while reading, so one endless line is never buffered whole), ``ok: false``, a non-zero exit, or a
stdout that closes while the process keeps running (it gets a 2 s grace to exit first).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROTOCOL = "1"
BUILD_TIMEOUT = 1800  # seconds; PROJECTGRAPH_PLUGIN_TIMEOUT
CAPS_TIMEOUT = 10  # seconds; PROJECTGRAPH_PLUGIN_CAPS_TIMEOUT, never past the build timeout
MAX_OUTPUT = 256 * 1024 * 1024  # bytes of stdout, all lines together
EXIT_GRACE = 2.0  # seconds a process may keep running after its stdout closed or it answered
STDERR_TAIL = 2000  # characters of the provider's stderr kept in a failure's detail


class ProviderUnavailable(Exception):
    """The provider could not answer; ``detail`` says why (the ``provider_unavailable`` limitation)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class TimeoutSettingError(ValueError):
    """A timeout variable that is not a whole number of seconds above 0: refused, never defaulted."""


@dataclass(frozen=True)
class Answer:
    """The ``data`` of an ok answer and how many progress lines came before it."""

    data: Any
    progress_lines: int
    seconds: float
    stderr: str = field(default="", compare=False)


def whole_seconds(environ: Mapping[str, str], name: str, default: int) -> int:
    """A timeout from the environment: whole seconds above 0; anything else is refused."""
    raw = environ.get(name)
    if raw is None:
        return default
    text = raw.strip()
    if not text.isdigit() or int(text) <= 0:
        raise TimeoutSettingError(f"{name}={raw!r}: a timeout must be a whole number of seconds above 0")
    return int(text)


def timeouts(environ: Mapping[str, str]) -> tuple[int, int]:
    """The build timeout and the capabilities probe's deadline (the smaller of its own and the build's)."""
    build = whole_seconds(environ, "PROJECTGRAPH_PLUGIN_TIMEOUT", BUILD_TIMEOUT)
    caps = whole_seconds(environ, "PROJECTGRAPH_PLUGIN_CAPS_TIMEOUT", CAPS_TIMEOUT)
    return build, min(caps, build)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
        process.wait(timeout=5)


def _parse_line(raw: bytes) -> dict[str, Any]:
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        value = json.loads(text)
    except ValueError:
        raise ProviderUnavailable(f"a line that is not JSON: {text[:120]!r}") from None
    if not isinstance(value, dict):
        raise ProviderUnavailable(f"a line that is not a JSON object: {text[:120]!r}")
    return value


def _answer_of(line: dict[str, Any]) -> tuple[bool, Any]:
    """(True, data) for the ok answer, (False, None) for a progress line; else unavailable."""
    if "progress" in line and "ok" not in line:
        return False, None
    if line.get("ok") is True:
        return True, line.get("data")
    if line.get("ok") is False:
        error = line.get("error")
        if isinstance(error, dict):
            code, message = str(error.get("code", "")), str(error.get("message", ""))
            raise ProviderUnavailable(f"ok:false answer: {code}: {message}".rstrip(": "))
        raise ProviderUnavailable(f"ok:false answer: {str(error)[:200]}")
    raise ProviderUnavailable(f"a line that is neither progress nor an answer: {json.dumps(line)[:120]}")


def exchange(
    command: Sequence[str],
    request: dict[str, Any],
    *,
    timeout: float,
    env: Mapping[str, str],
    cwd: Path | None = None,
    max_output: int = MAX_OUTPUT,
) -> Answer:
    """Run one request through ``command`` and return its ok answer, or raise ProviderUnavailable."""
    started = time.monotonic()
    deadline = started + timeout
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,  # its own process group, killed whole
            )
        except OSError as error:
            raise ProviderUnavailable(f"cannot start {command[0]}: {error.strerror or error}") from None
        try:
            answer, progress = _read_answer(process, request, deadline, timeout, max_output)
            _await_exit(process, deadline, timeout)
        except ProviderUnavailable as error:
            raise ProviderUnavailable(error.detail + _stderr_tail(stderr)) from None
        finally:
            _kill_group(process)  # what the provider left running in its group goes with it
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
        return Answer(answer, progress, time.monotonic() - started, _stderr_tail(stderr))


def _stderr_tail(stderr: Any) -> str:
    stderr.seek(0, os.SEEK_END)
    size = stderr.tell()
    stderr.seek(max(0, size - STDERR_TAIL))
    text = stderr.read().decode("utf-8", errors="replace").strip()
    return f"; stderr: {text}" if text else ""


def _read_answer(
    process: subprocess.Popen[bytes],
    request: dict[str, Any],
    deadline: float,
    timeout: float,
    max_output: int,
) -> tuple[Any, int]:
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((json.dumps(request) + "\n").encode())
        process.stdin.close()
    except BrokenPipeError:
        pass  # a provider that does not read its request still gets judged by what it prints
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    progress = 0
    total = 0
    pending = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProviderUnavailable(f"timeout: no answer within {timeout:g} s")
            if not selector.select(left):
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:  # stdout closed
                if pending.strip():
                    done, data = _answer_of(_parse_line(bytes(pending)))
                    if done:
                        return data, progress
                return _closed_without_answer(process)
            total += len(chunk)
            if total > max_output:
                raise ProviderUnavailable(f"oversize output: more than {max_output} bytes on stdout")
            pending += chunk
            while True:
                end = pending.find(b"\n")
                if end < 0:
                    break
                raw = bytes(pending[:end])
                del pending[: end + 1]
                if not raw.strip():
                    continue
                done, data = _answer_of(_parse_line(raw))
                if done:
                    return data, progress
                progress += 1


def _exit_status(process: subprocess.Popen[bytes], wait: float, running: str) -> int:
    """The process's exit status within ``wait`` seconds; else unavailable: ``running`` says when."""
    try:
        return process.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        raise ProviderUnavailable(f"{running} (killed after {EXIT_GRACE:g} s)") from None


def _closed_without_answer(process: subprocess.Popen[bytes]) -> tuple[Any, int]:
    code = _exit_status(process, EXIT_GRACE, "stdout closed while the process kept running")
    if code != 0:
        raise ProviderUnavailable(f"exit status {code} with no answer")
    raise ProviderUnavailable("stdout closed with no answer")


def _await_exit(process: subprocess.Popen[bytes], deadline: float, timeout: float) -> None:
    """After the answer the process must exit, with status 0, within the grace (and the deadline)."""
    wait = max(0.0, min(EXIT_GRACE, deadline - time.monotonic()))
    code = _exit_status(process, wait, "the process kept running after its answer")
    if code != 0:
        raise ProviderUnavailable(f"exit status {code} after its answer")
