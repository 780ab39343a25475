"""A throwaway PostgreSQL cluster for the tests and CI: initdb in a folder, a Unix socket in it.

    python tests/pg_cluster.py start DIR   # prints the URL to connect with
    python tests/pg_cluster.py stop DIR

The server binaries are Debian's (``/usr/lib/postgresql/<major>/bin``, else ``pg_config --bindir``,
else ``PATH``). PostgreSQL refuses to run as root ("cannot be run as root"), so as root the cluster
is made and run as the ``postgres`` user (created, as a system user, when missing) through
``runuser``; the folder is handed to that user. Authentication is ``trust`` on the socket alone
(no TCP listener): only processes of this machine that can reach the folder connect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

USER = "postgres"


def bindir() -> Path | None:
    """The folder of initdb and pg_ctl, or None when the server is not installed."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    if versions:
        return versions[-1].parent
    if shutil.which("pg_config"):
        done = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        candidate = Path(done.stdout.strip())
        if (candidate / "initdb").is_file():
            return candidate
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    if subprocess.run(["id", "-u", USER], capture_output=True, check=False).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", USER], check=True)
    return ["runuser", "-u", USER, "--", *command]


def start(folder: Path) -> str:
    """Make and start a cluster in ``folder`` (kept if there already); the URL to connect with."""
    binaries = bindir()
    if binaries is None:
        raise RuntimeError("no PostgreSQL server binaries (apt-get install postgresql)")
    folder.mkdir(parents=True, exist_ok=True)
    data, socket = folder / "data", folder / "socket"
    socket.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        _as_server_user(["true"])  # creates the user when missing
        shutil.chown(folder, USER)
        shutil.chown(socket, USER)
        folder.chmod(0o755)
    if not (data / "PG_VERSION").is_file():
        subprocess.run(
            _as_server_user(
                [str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
            ),
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    status = subprocess.run(
        _as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "status"]),
        capture_output=True,
        check=False,
    )
    if status.returncode != 0:
        options = f"-c listen_addresses='' -c unix_socket_directories='{socket}' -c fsync=off"
        subprocess.run(
            _as_server_user(
                [
                    str(binaries / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(folder / "server.log"),
                    "-w",
                    "-t",
                    "120",
                    "-o",
                    options,
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    return f"postgresql://postgres@/postgres?host={socket}"


def stop(folder: Path) -> None:
    """Stop the cluster in ``folder`` if it runs (fast shutdown)."""
    binaries = bindir()
    data = folder / "data"
    if binaries is None or not (data / "PG_VERSION").is_file():
        return
    subprocess.run(
        _as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
        capture_output=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )


if __name__ == "__main__":
    action, where = sys.argv[1], Path(sys.argv[2])
    if action == "start":
        print(start(where))
    else:
        stop(where)
