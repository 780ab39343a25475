"""Summaries of many package versions, past one machine: unit jobs on Ray or Beam, a shared store.

The work per package version (fetch its source, index and link it as a unit, summarise) is
independent of every other, and answers join through stored summaries (``summary.join``). So a job
list (``jobs``) is run as independent attempts (``work``) that an engine schedules (``engines``),
each writing its unit's summary into a shared store (``store``: PostgreSQL for many machines, a
SQLite file for one) keyed by unit and rule versions. A project's ``reach --summaries
--summary-store URL`` then reads, from the store, the summaries of the units it does not have
locally (``summaries_for``). Idempotent and restartable: a stored summary is not rebuilt, a job
whose process dies runs again, a failure is a record with its error.
"""

from __future__ import annotations

from projectgraph.distributed.engines import ENGINES, EngineError, run
from projectgraph.distributed.jobs import Job, JobList, JobListError, parse_jobs, read_jobs
from projectgraph.distributed.project import Shared, join, project_jobs, summaries_for
from projectgraph.distributed.store import StoreError, StoreStatus, SummaryStore, open_store
from projectgraph.distributed.work import Outcome, attempt, run_job

__all__ = [
    "ENGINES",
    "EngineError",
    "Job",
    "JobList",
    "JobListError",
    "Outcome",
    "Shared",
    "StoreError",
    "StoreStatus",
    "SummaryStore",
    "attempt",
    "join",
    "open_store",
    "parse_jobs",
    "project_jobs",
    "read_jobs",
    "run",
    "run_job",
    "summaries_for",
]
