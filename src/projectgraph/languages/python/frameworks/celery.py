"""Celery: a task's ``delay()``, ``apply_async()`` or signature (``s()``, ``si()``) runs it.

A call of one of those methods on a name that resolves to a first-party function decorated as a
task (``@app.task`` on a ``Celery`` app, ``@shared_task``, ``@celery.task``, the decorator resolved
in the task's own file to Celery's API) gets a ``celery-task`` edge to the function: a worker runs
it, on behalf of the caller. The task itself is a root (rules.yaml ``celery-tasks``).
"""

from __future__ import annotations

from projectgraph.graph import Site
from projectgraph.languages.python.frameworks import FileContext, ext_key, under

_METHODS = frozenset(
    {
        "delay",
        "apply_async",
        "apply",
        "s",
        "si",
        "signature",
        "map",
        "starmap",
        "chunks",
    }
)


def resolve(ctx: FileContext) -> None:
    for call in ctx.pyfile.index.calls:
        if call.name not in _METHODS or not call.receiver or call.receiver.startswith("<"):
            continue
        value = ctx.value(call.scope, call.receiver, call.line)
        if not ctx.is_callable(value) or value is None or not is_task(ctx, value.key):
            continue
        ctx.edge(
            ctx.caller(call.scope),
            value.key,
            "celery-task",
            Site(ctx.path, call.line, call.column),
        )


def is_task(ctx: FileContext, key: str) -> bool:
    """Whether a first-party function is decorated with Celery's task decorator."""
    found = ctx.defined_in(key)
    if found is None:
        return False
    info, pyfile, scope = found
    d = info.definition
    for text in d.decorators:
        if text.rpartition(".")[2] not in ("task", "shared_task"):
            continue
        if not all(part.isidentifier() for part in text.split(".")):
            continue
        decorator = ctx.linker._resolve_dotted(pyfile, scope, text, d.line)
        if under(ext_key(decorator), "celery"):
            return True
    return False
