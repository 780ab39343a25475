"""Uncertain callers: what might call a symbol beside the graph's edges, so that callers and impact
say "no caller" only when nothing unresolved could name it (the honesty rule reach keeps).

An edge is a caller the link proved; an uncertain caller is a place the link could not resolve that
could be one. Each has the site, the reason the link gave and the rule that ties it to the symbol:

- ``name``: an unresolved call whose method name is the symbol's name (an unknown receiver, no
  definition, an ambiguous or an interface receiver), scoped as reach scopes it
  (``reach.unresolved_scope``);
- ``prefix``: an unresolved call or a dynamic flag limited to a key prefix the symbol is under (a
  computed import with a static prefix: ``reach.prefix_concerns``);
- ``value``: the symbol used as a value (a reference edge: passed, stored, decorated); whoever gets
  the value may call it;
- ``argument``: a call that gets the symbol as an argument (a call edge of the value's caller on the
  value's line, at or before it) into code that calls a value it cannot resolve (``f()``);
- ``computed``: another call of a computed value (scoped everywhere by reach) in a file that uses the
  symbol as a value (a dict of handlers, a list of callbacks);
- ``dynamic``: a dynamic feature (eval, exec, a computed getattr or import) with no static prefix in
  code that runs (reached from the roots, as reach walks): anything may run there, so it concerns
  every symbol; an answer lists these once, not per symbol.

A call of a computed value can only call what flowed to it, and a function that is never used as a
value flows nowhere: without a reference edge, only a name, a prefix or a dynamic feature can make a
call of it that the graph does not hold. Sites the link marked ``covered`` (every value that reaches
them is a reference edge, now a ``calls`` edge of kind reference) are left out, as reach leaves them.
A root (a main, a test, a framework handler) is called from outside the project: answers name its
rule beside the callers.

Everything is read in ids from the store once per stored run (``Unknowns``), and the keys are looked
up only for the entries an answer lists.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from dataclasses import dataclass
from typing import Any, NamedTuple

from projectgraph.graph import Dynamic, Site, Unresolved
from projectgraph.reach import (
    NAME,
    PREFIX,
    WALKED,
    dynamic_scope,
    prefix_concerns,
    unresolved_scope,
)
from projectgraph.store import sqlite as sql

RULES = ("name", "prefix", "argument", "value", "computed", "dynamic")
"""The rules, strongest tie first: an answer lists its uncertain callers in this order."""
_RANK = {rule: index for index, rule in enumerate(RULES)}

VALUE_REASON = "used as a value here (passed, stored or decorated): what gets it may call it"


class Pending(NamedTuple):
    """An uncertain caller in ids: the rule, the node whose code holds the site, the site, the kind
    of uncertainty (unresolved-call, reference, dynamic-flag), the reason and the name it calls."""

    rule: str
    caller: int
    site: Site
    kind: str
    reason: str
    name: str

    def order(self) -> tuple[Any, ...]:
        return (_RANK[self.rule], self.site.path, self.site.line, self.site.column, self.caller, self.reason)


@dataclass(frozen=True)
class Unknowns:
    """What the stored graph holds beside its edges, in ids: read once per stored run."""

    run: int
    by_name: dict[str, tuple[Pending, ...]]  # name-scoped unresolved calls, by the name they call
    by_prefix: tuple[tuple[str, Pending], ...]  # prefix-scoped unresolved calls and dynamic flags
    computed_by_caller: dict[int, tuple[Pending, ...]]  # calls scoped everywhere, by caller
    computed_by_path: dict[str, tuple[Pending, ...]]  # the same, by file
    dynamic: tuple[Pending, ...]  # dynamic flags scoped everywhere, in code that runs
    roots: dict[int, tuple[tuple[str, str], ...]]  # node -> its (kind, rule)s

    @staticmethod
    def load(connection: sqlite3.Connection, run: int) -> Unknowns:
        by_name: dict[str, list[Pending]] = {}
        by_prefix: list[tuple[str, Pending]] = []
        by_caller: dict[int, list[Pending]] = {}
        by_path: dict[str, list[Pending]] = {}
        for caller, path, line, col, reason, name, text, prefix, covered in sql.unresolved_rows(connection):
            if covered:
                continue
            site = Unresolved("", Site(path, line, col), reason, name, text, prefix)
            where, value = unresolved_scope(site)
            pending = Pending("computed", caller, site.site, "unresolved-call", f"{reason}: {text}", name)
            if where == NAME:
                by_name.setdefault(value, []).append(pending._replace(rule="name"))
            elif where == PREFIX:
                by_prefix.append((value, pending._replace(rule="prefix")))
            else:
                by_caller.setdefault(caller, []).append(pending)
                by_path.setdefault(path, []).append(pending)
        everywhere: list[Pending] = []
        for caller, path, line, col, kind, prefix in sql.dynamic_rows(connection):
            flag = Dynamic("", Site(path, line, col), kind, prefix)
            where, value = dynamic_scope(flag)
            pending = Pending("dynamic", caller, flag.site, "dynamic-flag", kind, "")
            if where == PREFIX:
                by_prefix.append((value, pending._replace(rule="prefix")))
            else:
                everywhere.append(pending)
        roots: dict[int, list[tuple[str, str]]] = {}
        for node, kind, rule in sql.root_rows(connection):
            roots.setdefault(node, []).append((kind, rule))
        if everywhere:
            running = _running(connection, roots)
            everywhere = [p for p in everywhere if p.caller in running]
        return Unknowns(
            run=run,
            by_name={name: tuple(found) for name, found in by_name.items()},
            by_prefix=tuple(by_prefix),
            computed_by_caller={caller: tuple(found) for caller, found in by_caller.items()},
            computed_by_path={path: tuple(found) for path, found in by_path.items()},
            dynamic=tuple(everywhere),
            roots={node: tuple(found) for node, found in roots.items()},
        )


def _running(connection: sqlite3.Connection, roots: dict[int, Any]) -> set[int]:
    """The nodes code that runs reaches: a search from the roots along what reach walks."""
    out: dict[int, list[int]] = {}
    for caller, callee in sql.walked_pairs(connection, WALKED):
        out.setdefault(caller, []).append(callee)
    seen = set(roots)
    queue = deque(seen)
    while queue:
        for callee in out.get(queue.popleft(), ()):
            if callee not in seen:
                seen.add(callee)
                queue.append(callee)
    return seen


def uncertain_callers(
    connection: sqlite3.Connection, unknowns: Unknowns, targets: dict[int, tuple[Any, ...]]
) -> dict[int, list[Pending]]:
    """The uncertain callers of each target node (a node row of ``sql.nodes_by_ids``), sorted by
    rule then site; the ``dynamic`` ones, which concern every symbol, are not among them."""
    found: dict[int, dict[tuple[str, int, Site], Pending]] = {t: {} for t in targets}
    # a site the link both resolved (a low-confidence name edge) and kept unresolved is an edge
    proved = {
        (e[1], e[0], Site(e[5], e[6], e[7]))
        for e in sql.edges_touching(connection, targets, "in", ("calls",))
    }

    def add(target: int, pending: Pending) -> None:
        # one entry per site, under its strongest rule
        if pending.kind == "unresolved-call" and (target, pending.caller, pending.site) in proved:
            return
        slot = (pending.kind, pending.caller, pending.site)
        kept = found[target].get(slot)
        if kept is None or _RANK[pending.rule] < _RANK[kept.rule]:
            found[target][slot] = pending

    for target, row in targets.items():
        for pending in unknowns.by_name.get(row[3] or "", ()):
            add(target, pending)
        if unknowns.by_prefix:
            names = [k for k in (row[1], row[12]) if k]
            for prefix, pending in unknowns.by_prefix:
                if any(prefix_concerns(prefix, key) for key in names):
                    add(target, pending)
    values = sql.edges_touching(connection, targets, "in", ("references",))
    # the calls on each value's line in its caller: the call that gets the value as an argument
    calls: dict[tuple[int, str, int], list[tuple[int, int]]] = {}
    for caller, callee, _rel, _kind, _conf, path, line, col, _via in sql.edges_touching(
        connection, {v[0] for v in values}, "out", ("calls",)
    ):
        calls.setdefault((caller, path, line), []).append((col, callee))
    for caller, target, _rel, _kind, _conf, path, line, col, _via in values:
        site = Site(path, line, col)
        add(target, Pending("value", caller, site, "reference", VALUE_REASON, ""))
        for call_col, callee in sorted(calls.get((caller, path, line), ())):
            if call_col > col:
                continue
            for computed in unknowns.computed_by_caller.get(callee, ()):
                add(
                    target,
                    computed._replace(
                        rule="argument", reason=f"{computed.reason} (gets it as an argument at {path}:{line})"
                    ),
                )
        for computed in unknowns.computed_by_path.get(path, ()):
            add(target, computed._replace(rule="computed"))
    return {t: sorted(by_slot.values(), key=Pending.order) for t, by_slot in found.items()}


def entries(
    connection: sqlite3.Connection, pending: list[Pending], extra: dict[int, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The JSON entries of uncertain callers (the caller's key looked up for these alone)."""
    nodes = sql.nodes_by_ids(connection, (p.caller for p in pending))
    listed = []
    for index, p in enumerate(pending):
        entry = {
            "key": nodes[p.caller][1],
            "rule": p.rule,
            "kind": p.kind,
            "reason": p.reason,
            "name": p.name,
            "site": p.site.to_json() if p.site.path else None,
        }
        if extra is not None:
            entry |= extra.get(index, {})
        listed.append(entry)
    return listed


def counts(pending: list[Pending]) -> dict[str, int]:
    """How many uncertain callers each rule gives, in rule order (rules with none left out)."""
    tally: dict[str, int] = {}
    for p in pending:
        tally[p.rule] = tally.get(p.rule, 0) + 1
    return {rule: tally[rule] for rule in RULES if rule in tally}
