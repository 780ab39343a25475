"""Runners: the same jobs (``work.attempt``) scheduled by Ray, by Apache Beam, or by a plain pool.

Each engine only schedules: a task is one ``attempt`` (a job in a process of its own, retried when
that process dies), so the answers and the store's records are the same whatever runs them, and
the engines are compared on scheduling alone (``bench/distributed_bench.py``, ``docs/scaling.md``).

- ``ray``: a local Ray cluster of ``workers`` CPUs (``ray.init(num_cpus=...)``); each attempt a
  remote task, with Ray's own ``max_retries`` for a Ray worker that dies; outcomes come back as
  they finish (progress per job).
- ``beam``: an Apache Beam pipeline on the DirectRunner in multi-processing mode with ``workers``
  workers (Create -> Reshuffle -> Map(attempt) -> WriteToText); outcomes are read back from the
  written files when the pipeline ends.
- ``local``: a pool of ``workers`` threads, each running attempts: no engine, the floor the two
  are measured against.

The engines are optional (the ``distributed`` extra); naming one that is not installed is an
``EngineError`` that says what to install.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from projectgraph.distributed.jobs import Job, parse_jobs
from projectgraph.distributed.store import open_store
from projectgraph.distributed.work import Outcome, attempt

ENGINES = ("beam", "local", "ray")
Progress = Callable[[Outcome], None]


class EngineError(RuntimeError):
    """An engine that is not installed or could not start, with what to do about it."""


def run(
    jobs: Sequence[Job],
    location: str,
    engine: str = "local",
    workers: int = 2,
    retries: int = 2,
    progress: Progress | None = None,
) -> list[Outcome]:
    """Run every job on ``engine`` with ``workers`` workers; the outcomes sorted by job."""
    if engine not in ENGINES:
        raise EngineError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    if workers < 1:
        raise EngineError(f"workers must be at least 1 (got {workers})")
    open_store(location).close()  # the tables exist before any worker opens the store
    report = progress or (lambda _outcome: None)
    ordered = sorted(set(jobs))
    if not ordered:
        return []
    if engine == "ray":
        outcomes = _ray(ordered, location, workers, retries, report)
    elif engine == "beam":
        outcomes = _beam(ordered, location, workers, retries, report)
    else:
        outcomes = _local(ordered, location, workers, retries, report)
    return sorted(outcomes, key=lambda o: o.job)


def _local(jobs: list[Job], location: str, workers: int, retries: int, report: Progress) -> list[Outcome]:
    outcomes = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(attempt, job, location, retries) for job in jobs]
        for future in as_completed(futures):
            outcome = future.result()
            report(outcome)
            outcomes.append(outcome)
    return outcomes


def _ray_task(spec: str, location: str, retries: int) -> dict[str, Any]:
    job = parse_jobs(spec).jobs[0]
    return attempt(job, location, retries).to_json()


def _ray(jobs: list[Job], location: str, workers: int, retries: int, report: Progress) -> list[Outcome]:
    try:
        import ray
    except ImportError:
        raise EngineError("the ray engine needs Ray: pip install 'projectgraph[ray]'") from None
    by_spec = {job.spec: job for job in jobs}
    # Ray waits a fixed 30 s for its raylet to register; on a loaded machine that can pass, so a
    # cluster that did not come up is started again (twice) before the run gives up
    for start in range(3):
        try:
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                ignore_reinit_error=True,
            )
            break
        except Exception as error:
            ray.shutdown()
            if start == 2:
                raise EngineError(f"Ray could not start a local cluster (3 tries): {error}") from None
    try:
        task = ray.remote(num_cpus=1, max_retries=retries)(_ray_task)
        pending = {task.remote(spec, location, retries): spec for spec in by_spec}
        outcomes = []
        while pending:
            done, _rest = ray.wait(list(pending), num_returns=1)
            for reference in done:
                spec = pending.pop(reference)
                outcome = Outcome.from_json(by_spec[spec], ray.get(reference))
                report(outcome)
                outcomes.append(outcome)
        return outcomes
    finally:
        ray.shutdown()


class _BeamAttempt:
    """The Beam step: one attempt per job spec, its outcome as a JSON line."""

    def __init__(self, location: str, retries: int) -> None:
        self.location = location
        self.retries = retries

    def __call__(self, spec: str) -> str:
        job = parse_jobs(spec).jobs[0]
        return json.dumps(attempt(job, self.location, self.retries).to_json(), sort_keys=True)


def _beam(jobs: list[Job], location: str, workers: int, retries: int, report: Progress) -> list[Outcome]:
    try:
        import apache_beam as beam
        from apache_beam.options.pipeline_options import PipelineOptions
    except ImportError:
        raise EngineError("the beam engine needs Apache Beam: pip install 'projectgraph[beam]'") from None
    by_spec = {job.spec: job for job in jobs}
    options = PipelineOptions(
        runner="DirectRunner", direct_num_workers=workers, direct_running_mode="multi_processing"
    )
    with tempfile.TemporaryDirectory(prefix="projectgraph-beam-") as tmp:
        prefix = str(Path(tmp) / "outcomes")
        try:
            with beam.Pipeline(options=options) as pipeline:
                (
                    pipeline
                    | "jobs" >> beam.Create(sorted(by_spec))
                    | "spread" >> beam.Reshuffle()
                    | "attempt" >> beam.Map(_BeamAttempt(location, retries))
                    | "outcomes" >> beam.io.WriteToText(prefix, file_name_suffix=".jsonl")
                )
        except Exception as error:
            raise EngineError(f"the Beam pipeline failed: {type(error).__name__}: {error}") from None
        outcomes = []
        for written in sorted(Path(tmp).glob("outcomes*.jsonl")):
            for line in written.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    data = json.loads(line)
                    outcome = Outcome.from_json(by_spec[data["job"]], data)
                    report(outcome)
                    outcomes.append(outcome)
    return outcomes
