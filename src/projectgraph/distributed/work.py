"""One job, start to end: skip what the store has, fetch, index and link the unit alone, summarise,
store; and the attempt around it that a worker of any engine runs.

A job runs in a process of its own (``python -m projectgraph.distributed.work``), so a job that
dies (a crash, a kill, memory) takes only its process down: ``attempt`` sees it die and runs it
again, up to ``retries`` more times, then records the failure with the way it died. An error the
job itself meets (the registry has no such version, an archive that is no package) is recorded by
the job and not retried: it would fail again the same way. Either way the store has a ``failed``
row with the error; nothing is skipped silently.

A unit is linked alone, as a project whose only unit it is (``--deps DIR=UNIT``): the summary of
a unit holds its own code's reach sets and stops at the external keys of other packages, which
``summary.join`` joins to those packages' summaries in the project that asks.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph import summary
from projectgraph.distributed.fetch import fetch
from projectgraph.distributed.jobs import Job
from projectgraph.distributed.store import open_store
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.units import DepsConfig

JOB_TIMEOUT = 900.0  # seconds for one attempt (a download, an index and a summary)
BUILT, STORED, FAILED = "built", "stored", "failed"


@dataclass(frozen=True)
class Outcome:
    """What became of one job: built now, already stored, or failed (with its error)."""

    job: Job
    status: str  # built | stored | failed
    unit: str = ""
    seconds: float = 0.0  # the whole attempt's wall time, fetch included
    fetch_seconds: float = 0.0
    build_seconds: float = 0.0
    bytes: int = 0  # the stored summary's compressed size
    files: int = 0
    attempts: int = 0
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "job": self.job.spec,
            "status": self.status,
            "unit": self.unit,
            "seconds": round(self.seconds, 3),
            "fetch_seconds": round(self.fetch_seconds, 3),
            "build_seconds": round(self.build_seconds, 3),
            "bytes": self.bytes,
            "files": self.files,
            "attempts": self.attempts,
            "error": self.error,
        }

    @staticmethod
    def from_json(job: Job, data: dict[str, Any]) -> Outcome:
        fields = {k: data[k] for k in ("status", "unit", "seconds", "fetch_seconds", "build_seconds")}
        return Outcome(
            job,
            **fields,
            bytes=data["bytes"],
            files=data["files"],
            attempts=data["attempts"],
            error=data["error"],
        )


def run_job(job: Job, location: str) -> Outcome:
    """Run one job in this process (see the module docstring); the store records what became of it."""
    started = time.perf_counter()
    with open_store(location) as store:
        unit = store.stored_unit(job.lookup)
        if unit is not None:
            return Outcome(job, STORED, unit)
        attempts = store.begin(job.lookup, os.getpid(), socket.gethostname())
        try:
            with tempfile.TemporaryDirectory(prefix="projectgraph-job-") as tmp:
                fetched = fetch(job, Path(tmp) / "fetch")
                fetched_at = time.perf_counter()
                built, files = summarise(fetched.folder, fetched.unit, Path(tmp) / "project")
        except Exception as error:  # recorded with its type: the store keeps every failure
            store.fail(job.lookup, f"{type(error).__name__}: {error}")
            return Outcome(
                job, FAILED, seconds=time.perf_counter() - started, attempts=attempts, error=str(error)
            )
        seconds = time.perf_counter() - started
        size = store.put(job.lookup, built, seconds, fetched.requires)
        return Outcome(
            job,
            BUILT,
            fetched.unit,
            seconds,
            fetched_at - started,
            time.perf_counter() - fetched_at,
            size,
            files,
            attempts,
        )


def summarise(folder: Path, unit: str, scratch: Path) -> tuple[summary.Summary, int]:
    """The summary of the unit laid out in ``folder``, linked alone (an empty project at
    ``scratch`` whose only unit it is), and how many files of it indexed."""
    scratch.mkdir()
    deps = DepsConfig(auto=False, named=((str(folder), unit),))
    graph = build_graph(scratch, IndexOptions(deps=deps, workers=1)).graph
    return summary.build(graph, unit=unit), sum(1 for f in graph.files if f.unit == unit)


def attempt(job: Job, location: str, retries: int = 2) -> Outcome:
    """Run ``job`` in a process of its own, again when that process dies (``retries`` more times);
    a job that died every time is recorded as failed with how it died."""
    died = ""
    for _ in range(retries + 1):
        command = [sys.executable, "-m", "projectgraph.distributed.work", job.spec, location]
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=JOB_TIMEOUT,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            died = f"the job's process ran past {JOB_TIMEOUT:.0f} s"
            continue
        if done.returncode == 0:
            try:
                return Outcome.from_json(job, json.loads(done.stdout.strip().splitlines()[-1]))
            except (ValueError, IndexError, KeyError):
                died = f"the job's process printed no outcome: {done.stdout[-200:]!r}"
                continue
        how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
        tail = " | ".join(line for line in done.stderr.strip().splitlines()[-3:])
        died = f"the job's process died ({how}){': ' + tail if tail else ''}"
    with open_store(location) as store:
        store.fail(job.lookup, died)
        state = store.job(job.lookup)
    return Outcome(job, FAILED, attempts=state.attempts if state else 0, error=died)


def main(argv: list[str]) -> int:
    """``python -m projectgraph.distributed.work SPEC STORE``: run one job, print its outcome."""
    from projectgraph.distributed.jobs import parse_jobs

    spec, location = argv
    parsed = parse_jobs(spec)
    if len(parsed.jobs) != 1:
        print(f"not one job: {spec!r}", file=sys.stderr)
        return 2
    outcome = run_job(parsed.jobs[0], location)
    print(json.dumps(outcome.to_json(), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
