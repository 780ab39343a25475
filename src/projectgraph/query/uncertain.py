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

Everything is read in ids from the store (``Unknowns``), and the keys are looked up only for the
entries an answer lists. The tables are read whole once, then followed from one stored run to the
next: a write rewrites a file's rows as one group (``store.sqlite.write_graph``), so the groups
whose digest moved are read again and their old entries replaced; whether code that runs reaches
a dynamic flag is searched again only where a way it relied on may have changed (``_reach``).
A write that renumbers the node ids (``store.sqlite.NODE_IDS``) makes the next read whole.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left, insort
from dataclasses import dataclass, replace
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


FOLLOW_LIMIT = 256
"""Changed files past which a later run's uncertain callers are read whole rather than followed."""


def _canonical(p: Pending) -> tuple[Any, ...]:
    """Every field of an entry: the order of each list, the same however it was put together."""
    return (p.site.path, p.site.line, p.site.column, p.caller, p.reason, p.name, p.rule, p.kind)


def _prefixed(entry: tuple[str, Pending]) -> tuple[Any, ...]:
    return (*_canonical(entry[1]), entry[0])


class _Part(NamedTuple):
    """What the nodes of one file (a group of ``store.sqlite.write_graph``) hold, classified."""

    named: tuple[tuple[str, Pending], ...]
    prefixed: tuple[tuple[str, Pending], ...]
    computed: tuple[Pending, ...]
    everywhere: tuple[Pending, ...]  # dynamic flags scoped everywhere, before the reach filter
    roots: tuple[tuple[int, str, str], ...]


class _Reach(NamedTuple):
    """Whether code that runs reaches a node, and the nodes that say so: when reached, those of a
    way from a root to it (it holds while none of them changes); when not, every node that has a
    way to it (it holds until one of them gets a new caller or becomes a root)."""

    reached: bool
    nodes: frozenset[int]


@dataclass(frozen=True)
class _Basis:
    """What a later run's ``Unknowns`` is followed from: the groups as they were, by file."""

    mark: str | None  # store.sqlite.node_ids_mark: the node ids stay valid while it does
    digests: dict[str, str]
    members: dict[str, tuple[int, ...]]  # file -> its node ids
    parts: dict[str, _Part]
    everywhere: tuple[Pending, ...]  # every dynamic flag scoped everywhere, reached or not
    reach: dict[int, _Reach]  # the caller of each of those flags


@dataclass(frozen=True)
class Unknowns:
    """What the stored graph holds beside its edges, in ids: read whole once, then followed from
    one stored run to the next by the files whose rows the write changed (``follow``)."""

    run: int
    by_name: dict[str, tuple[Pending, ...]]  # name-scoped unresolved calls, by the name they call
    by_prefix: tuple[tuple[str, Pending], ...]  # prefix-scoped unresolved calls and dynamic flags
    computed_by_caller: dict[int, tuple[Pending, ...]]  # calls scoped everywhere, by caller
    computed_by_path: dict[str, tuple[Pending, ...]]  # the same, by file
    dynamic: tuple[Pending, ...]  # dynamic flags scoped everywhere, in code that runs
    roots: dict[int, tuple[tuple[str, str], ...]]  # node -> its (kind, rule)s
    basis: _Basis | None = None

    @staticmethod
    def load(connection: sqlite3.Connection, run: int) -> Unknowns:
        """Read whole (in the caller's snapshot)."""
        mark = sql.node_ids_mark(connection)
        digests = sql.group_digests(connection)
        members: dict[str, list[int]] = {}
        for node, path in sql.node_files(connection):
            members.setdefault(path, []).append(node)
        parts = _parts(connection, None, {n: p for p, ids in members.items() for n in ids})
        empty = Unknowns(run, {}, (), {}, {}, (), {})
        return _assemble(connection, empty, run, mark, digests, set(members) | set(parts), members, parts)

    def follow(self, connection: sqlite3.Connection, run: int) -> Unknowns:
        """The ``Unknowns`` of the stored run ``run`` (in the caller's snapshot), from this one and
        the files whose rows changed since (their digests moved); read whole when the node ids
        were renumbered meanwhile, when this one has no basis, or past ``FOLLOW_LIMIT`` files."""
        basis = self.basis
        mark = sql.node_ids_mark(connection)
        if basis is None or mark is None or mark != basis.mark:
            return Unknowns.load(connection, run)
        digests = sql.group_digests(connection)
        changed = sorted({p for p, _ in digests.items() ^ basis.digests.items()})
        if len(changed) > FOLLOW_LIMIT:
            return Unknowns.load(connection, run)
        if not changed:
            return replace(self, run=run)
        members: dict[str, list[int]] = {}
        for node, path in sql.node_files(connection, changed):
            members.setdefault(path, []).append(node)
        parts = _parts(connection, changed, {n: p for p, ids in members.items() for n in ids})
        try:
            return _assemble(connection, self, run, mark, digests, set(changed), members, parts)
        except _Drift:
            return Unknowns.load(connection, run)


def _parts(
    connection: sqlite3.Connection, paths: list[str] | None, file_of: dict[int, str]
) -> dict[str, _Part]:
    """The classified rows of the nodes of the files ``paths`` (of every file: None), by file."""
    named: dict[str, list[tuple[str, Pending]]] = {}
    prefixed: dict[str, list[tuple[str, Pending]]] = {}
    computed: dict[str, list[Pending]] = {}
    everywhere: dict[str, list[Pending]] = {}
    roots: dict[str, list[tuple[int, str, str]]] = {}
    for caller, path, line, col, reason, name, text, prefix, covered in sql.unresolved_rows(
        connection, paths
    ):
        if covered:
            continue
        site = Unresolved("", Site(path, line, col), reason, name, text, prefix)
        where, value = unresolved_scope(site)
        pending = Pending("computed", caller, site.site, "unresolved-call", f"{reason}: {text}", name)
        group = file_of[caller]
        if where == NAME:
            named.setdefault(group, []).append((value, pending._replace(rule="name")))
        elif where == PREFIX:
            prefixed.setdefault(group, []).append((value, pending._replace(rule="prefix")))
        else:
            computed.setdefault(group, []).append(pending)
    for caller, path, line, col, kind, prefix in sql.dynamic_rows(connection, paths):
        flag = Dynamic("", Site(path, line, col), kind, prefix)
        where, value = dynamic_scope(flag)
        pending = Pending("dynamic", caller, flag.site, "dynamic-flag", kind, "")
        if where == PREFIX:
            prefixed.setdefault(file_of[caller], []).append((value, pending._replace(rule="prefix")))
        else:
            everywhere.setdefault(file_of[caller], []).append(pending)
    for node, kind, rule in sql.root_rows(connection, paths):
        roots.setdefault(file_of[node], []).append((node, kind, rule))
    groups = set(named) | set(prefixed) | set(computed) | set(everywhere) | set(roots)
    return {
        group: _Part(
            tuple(named.get(group, ())),
            tuple(prefixed.get(group, ())),
            tuple(computed.get(group, ())),
            tuple(everywhere.get(group, ())),
            tuple(roots.get(group, ())),
        )
        for group in groups
    }


class _Drift(Exception):
    """An entry to take out of a list is not in it: the basis does not match the store (followed
    no further: read whole)."""


def _edited(entries: tuple[Pending, ...], gone: list[Pending], added: list[Pending]) -> tuple[Pending, ...]:
    """A list in ``_canonical`` order with ``gone`` taken out and ``added`` put in, in order (a
    search per entry: a common name's list holds thousands)."""
    kept = list(entries)
    for p in gone:
        at = bisect_left(kept, _canonical(p), key=_canonical)
        if at == len(kept) or kept[at] != p:
            raise _Drift(p)
        del kept[at]
    for p in added:
        insort(kept, p, key=_canonical)
    return tuple(kept)


def _assemble(
    connection: sqlite3.Connection,
    old: Unknowns,
    run: int,
    mark: str | None,
    digests: dict[str, str],
    files: set[str],
    members: dict[str, list[int]],
    parts: dict[str, _Part],
) -> Unknowns:
    """``old`` with the entries of the nodes of ``files`` replaced by ``parts``, their new rows
    (``members``: their nodes now; every file when ``old`` has no basis). A node of another file
    never has the id of a node of these files, before or now (a node keeps its id while its key
    stays, a new one takes a free id): the entries to replace are the old parts' of these files."""
    basis = old.basis
    before = [basis.parts[f] for f in sorted(files) if f in basis.parts] if basis is not None else []
    after = [parts[f] for f in sorted(files) if f in parts]
    ids = {n for f in files for n in members.get(f, ())}
    if basis is not None:
        ids |= {n for f in files for n in basis.members.get(f, ())}

    def changes(
        rows: list[tuple[str, Pending]], into: dict[str, tuple[list[Pending], list[Pending]]], side: int
    ) -> None:
        for key, pending in rows:
            into.setdefault(key, ([], []))[side].append(pending)

    named: dict[str, tuple[list[Pending], list[Pending]]] = {}
    at_path: dict[str, tuple[list[Pending], list[Pending]]] = {}
    for side, listed in ((0, before), (1, after)):
        for part in listed:
            changes(list(part.named), named, side)
            changes([(p.site.path, p) for p in part.computed], at_path, side)
    by_name = dict(old.by_name)
    by_path = dict(old.computed_by_path)
    for table, edits in ((by_name, named), (by_path, at_path)):
        for key, (gone, added) in edits.items():
            if basis is None:
                entries = tuple(sorted(added, key=_canonical))
            else:
                entries = _edited(table.get(key, ()), gone, added)
            if entries:
                table[key] = entries
            else:
                table.pop(key, None)
    by_prefix = [e for e in old.by_prefix if e[1].caller not in ids]
    by_prefix += [e for part in after for e in part.prefixed]
    by_caller = dict(old.computed_by_caller)
    roots = dict(old.roots)
    for part in before:
        for p in part.computed:
            by_caller.pop(p.caller, None)
        for node, _, _ in part.roots:
            roots.pop(node, None)
    fresh: dict[int, list[Pending]] = {}
    fresh_roots: dict[int, list[tuple[str, str]]] = {}
    for part in after:
        for p in part.computed:
            fresh.setdefault(p.caller, []).append(p)
        for node, kind, rule in part.roots:
            fresh_roots.setdefault(node, []).append((kind, rule))
    by_caller |= {c: tuple(sorted(found, key=_canonical)) for c, found in fresh.items()}
    roots |= {n: tuple(sorted(found)) for n, found in fresh_roots.items()}

    everywhere = [p for p in basis.everywhere if p.caller not in ids] if basis is not None else []
    everywhere = sorted(everywhere + [p for part in after for p in part.everywhere], key=_canonical)
    woken = {node for part in after for node, _, _ in part.roots}
    if basis is not None:
        woken |= {callee for _, callee in sql.walked_pairs(connection, WALKED, sorted(files))}
    reach = _reach(connection, basis.reach if basis is not None else {}, ids, woken, roots, everywhere)
    kept_members = dict(basis.members) if basis is not None else {}
    kept_parts = dict(basis.parts) if basis is not None else {}
    for f in files:
        kept_members.pop(f, None)
        kept_parts.pop(f, None)
    return Unknowns(
        run=run,
        by_name=by_name,
        by_prefix=tuple(sorted(by_prefix, key=_prefixed)),
        computed_by_caller=by_caller,
        computed_by_path=by_path,
        dynamic=tuple(p for p in everywhere if reach[p.caller].reached),
        roots=roots,
        basis=_Basis(
            mark,
            digests,
            kept_members | {f: tuple(m) for f, m in members.items()},
            kept_parts | {f: parts[f] for f in files if f in parts},
            tuple(everywhere),
            reach,
        ),
    )


def _reach(
    connection: sqlite3.Connection,
    before: dict[int, _Reach],
    changed: set[int],
    woken: set[int],
    roots: dict[int, Any],
    flags: list[Pending],
) -> dict[int, _Reach]:
    """Whether code that runs reaches the node of each flag: a search backwards from it along what
    reach walks, to a root (``roots``). A node's earlier answer (``before``) stands unless it or
    a node of its way from a root is one of the ``changed`` nodes (their rows were rewritten), or,
    not reached, a node that has a way to it is ``woken`` (a new root, or an edge of a changed
    file goes to it)."""
    found: dict[int, _Reach] = {}
    known: dict[int, frozenset[int]] = {}  # a reached node -> nodes of a way from a root to it
    redo: list[int] = []
    for node in sorted({p.caller for p in flags}):
        last = before.get(node)
        if last is None or node in changed:
            redo.append(node)
        elif last.reached and last.nodes.isdisjoint(changed):
            found[node] = last
            known.update(dict.fromkeys(last.nodes, last.nodes))
        elif not last.reached and last.nodes.isdisjoint(woken):
            found[node] = last
        else:
            redo.append(node)
    for node in redo:
        found[node] = answer = _search(connection, node, roots, known)
        if answer.reached:
            known.update(dict.fromkeys(answer.nodes, answer.nodes))
    return found


def _search(
    connection: sqlite3.Connection, start: int, roots: dict[int, Any], known: dict[int, frozenset[int]]
) -> _Reach:
    """One node's ``_Reach``: breadth first backwards (one query a level) to a root or to a node
    known reached."""
    if start in roots:
        return _Reach(True, frozenset((start,)))
    if start in known:
        return _Reach(True, known[start])
    parent: dict[int, int] = {start: start}
    level = [start]
    while level:
        following: list[int] = []
        for caller, callee in sorted(sql.walked_callers(connection, level, WALKED)):
            if caller in parent:
                continue
            parent[caller] = callee
            if caller in roots or caller in known:
                way = {caller}
                node = callee
                while node != start:
                    way.add(node)
                    node = parent[node]
                way.add(start)
                return _Reach(True, frozenset(way) | known.get(caller, frozenset()))
            following.append(caller)
        level = following
    return _Reach(False, frozenset(parent))


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
