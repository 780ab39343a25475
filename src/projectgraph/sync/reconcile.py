"""Sync: bring the stored graph up to date with the working tree, equal to what a full index gives.

The link stage is not file-local (parameter bindings flow across files, class hierarchies and name
candidates are global): a sync links the whole project again, unless its process keeps a tracked
link and can relink incrementally from it (``sync.relink``, ``python.link.incremental``); what it saves
besides is the rest:

- **index**: a file whose (size, mtime_ns) is the one stored, and whose mtime is older than the moment
  its stamp was taken (else it is "racy": it may have changed within the clock's resolution, as git
  calls it), is served from the store by its stored hash, without being read; the others go through
  the indexer, which parses only content the store has not seen;
- **nothing changed**: when every file's entry (path, language, status, hash, reason), every control
  file and the rule versions are the stored ones, the graph is the stored one: the sync only
  refreshes the stamps;
- **write**: ``store.sqlite.write_graph`` rewrites only the per-file groups of rows whose digest
  changed (after an incremental link, only the groups it touched are even compared).

A process that syncs again (a watcher, a server) keeps its last sync's indexes by key, so an
unchanged file's index is not even decoded from the store. Stamps are taken before a file is read,
so a file changed while a sync runs is seen by the next one. The caller holds the writer lock; the
write is one transaction, so a sync that fails or is killed leaves the previous graph, and the next
sync repairs; a Ctrl-C while files are read ends the sync with nothing written.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import time
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from projectgraph import fileindex, safefs
from projectgraph import graph as graph_module
from projectgraph.config import ProjectConfig, load_config
from projectgraph.discover import Discovery, SourceFile, discover
from projectgraph.fileindex import FileIndex, Key, StoredIndex
from projectgraph.graph import Graph
from projectgraph.indexer import (
    FileStatus,
    IndexOptions,
    IndexResult,
    Progress,
    _limit,
    index_files,
    index_units,
    run_languages,
)
from projectgraph.languages import LanguageSpec, all_languages
from projectgraph.languages.base import grammar_version, pack_version
from projectgraph.store import sqlite as sql
from projectgraph.sync import relink
from projectgraph.sync.controls import ControlFile, control_files, is_control_name
from projectgraph.units import AUTO_DEPS, DepsConfig, Unit, discover_units

_log = logging.getLogger(__name__)

RACY_NS = 2_000_000_000
"""A file modified less than this before its stamp was taken is read again by the next sync: a
coarse file system clock (2 s on FAT, 1 s on some network file systems) could hide a change."""

_GRAMMARS: dict[str, str] = {}
_MEMO: weakref.WeakKeyDictionary[Any, dict[Key, FileIndex]] = weakref.WeakKeyDictionary()
"""The indexes of each store's last sync in this process, by key: a process that syncs again (a
watcher, a server) takes an unchanged file's index from here, not from the store."""

_MADE: weakref.WeakKeyDictionary[Any, dict[str, tuple[Key, FileStatus | None]]] = weakref.WeakKeyDictionary()
"""Each file's key and cached status of a store's last sync in this process, by path: a next sync
whose file has the same hash, language, reason and flags takes these objects again instead of
making new equal ones (a frozen dataclass is slow to make; on Django that was a tenth of a sync)."""


@dataclass(frozen=True)
class _Seen:
    """What a process's last sync of a store found, for a next sync told which files changed."""

    root: str
    options: IndexOptions
    config: ProjectConfig
    deps: DepsConfig
    found: Discovery
    known: frozenset[str]  # the project's source files of ``found``
    stamps: dict[str, tuple[int, int, bool]]  # path -> (size, mtime_ns, a regular file)
    units: tuple[Unit, ...]
    controls: tuple[ControlFile, ...]


_SEEN: weakref.WeakKeyDictionary[Any, _Seen] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class SyncResult:
    """What one sync did. ``relinked`` is False when nothing that the graph depends on changed."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]  # files whose content (hash), status or language changed
    controls: tuple[str, ...]  # control files that came, went or changed
    read: int  # files read and hashed (the others were served by their stamp)
    parsed: int  # files parsed (the store had no index for their content)
    relinked: bool
    index: IndexResult
    graph: Graph | None  # the new graph when relinked (None after a link from the stored state)
    stats: dict[str, Any] = field(default_factory=dict)  # the new graph's stats when relinked
    written: dict[str, int] = field(default_factory=dict)  # rows written per table
    seconds: dict[str, float] = field(default_factory=dict)  # discover, index, link, write, total
    # how it linked: "full", "tracked" (in full, recording what each unit read), "incremental" (from
    # the tracked link this process keeps), "stored" (from the state in the store: sync.relink)
    link: str = ""
    relinked_units: int = 0  # units of the Python link an incremental link ran again
    discovered: bool = True  # False: the changed paths the caller named let it skip discovery
    fallback: str = ""  # why the state in the store could not be followed (a link in full)

    @property
    def files_changed(self) -> int:
        return len(self.added) + len(self.removed) + len(self.changed)

    def summary(self) -> dict[str, Any]:
        return {
            "root": self.index.root,
            "files": len(self.index.statuses),
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
            "controls": list(self.controls),
            "read": self.read,
            "parsed": self.parsed,
            "relinked": self.relinked,
            "link": self.link,
            "relinked_units": self.relinked_units,
            "fallback": self.fallback,
            "written": self.written,
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
            "error": self.index.error,
        }


def _grammar_of(language: str) -> str:
    spec = all_languages().get(language)
    return _grammar(spec) if spec is not None else ""


def _grammar(spec: LanguageSpec) -> str:
    version = _GRAMMARS.get(spec.grammar)
    if version is None:
        version = _GRAMMARS[spec.grammar] = grammar_version(spec.grammar)
    return version


def _stored_grammar(connection: Any, spec: LanguageSpec) -> str:
    """The grammar's version as the store last computed it for the installed pack's version, else
    computed (loading the grammar: 30-45 ms for Python, a no-op sync's only use of it) and kept.
    The pack's version names its grammars' builds, and it is part of what is kept under."""
    if spec.grammar in _GRAMMARS:
        return _GRAMMARS[spec.grammar]
    name = f"grammar/{pack_version()}/{spec.grammar}"
    version = sql.metadata_text(connection, name)
    if version is None or not version.startswith(f"{pack_version()}/"):
        version = _grammar(spec)
        sql.set_metadata(connection, name, version)
    _GRAMMARS[spec.grammar] = version
    return version


def reconcile(
    root: str | os.PathLike[str],
    store: sql.SqliteStore,
    options: IndexOptions | None = None,
    progress: Progress | None = None,
    *,
    full: bool = False,
    always_link: bool = False,
    partial: bool = False,
    incremental: bool | None = None,
    changed_paths: tuple[str, ...] | None = None,
) -> SyncResult:
    """Sync the stored graph of the project under ``root`` (the caller holds the writer lock).

    ``full`` reads every file (no stamp shortcut): the full reconcile of a watcher that may have
    missed events, and of ``index``; ``always_link`` links and writes even when nothing changed;
    ``partial`` stores what a run interrupted by Ctrl-C read (``index``) instead of writing nothing.
    ``incremental`` says when to keep a tracked link in memory and relink from it (``sync.relink``).
    ``changed_paths``: the project paths (relative, ``/``-separated) that the caller knows are all
    that changed since this process's last sync of the store (a watcher's events). When each is a
    source file that sync found and is still a regular file, and none is a control file, the sync
    takes that sync's discovery, units, control files and other files' stamps instead of walking
    the tree again; anything else (a new or deleted file, a manifest, a configuration) syncs as
    without them.
    """
    clock = time.perf_counter()
    started = time.time()
    started_mono = time.monotonic()
    seconds: dict[str, float] = {}

    def remembered(units: tuple[Unit, ...], controls: tuple[ControlFile, ...]) -> _Seen:
        """What this sync found, for the next one (the bindings as they are when it is called)."""
        assert options is not None  # (made one below, before the first call)
        known = frozenset(s.path for s in found.files)
        return _Seen(folder, options, config, wanted_deps, found, known, seen_stamps, units, controls)

    base = Path(root)
    config = load_config(base)
    options = options or IndexOptions()
    if options.config is None:
        options = replace(options, config=config)
    options = options.validated()
    specs = run_languages(options, config)
    connection = store.connection
    folder = os.fspath(base)
    deps = options.deps if options.deps is not None else stored_deps(connection, base, store.path)
    wanted_deps = deps if deps is not None else AUTO_DEPS
    seen = _SEEN.pop(store, None)  # kept again only by a sync that ends well
    hinted = frozenset(changed_paths or ())
    if not (
        seen is not None
        and hinted
        and not full
        and (seen.root, seen.options, seen.config, seen.deps) == (folder, options, config, wanted_deps)
        and all(_unchanged_kind(folder, path, seen.known) for path in hinted)
    ):
        seen = None
    found = seen.found if seen is not None else discover(base, specs, config)
    stored = sql.stored_files(connection)
    stamped_at = sql.metadata_int(connection, "stamped_at_ns")
    seconds["discover"] = time.perf_counter() - clock

    # ---- index: stamps first (before any read), then the stamp shortcut, then the indexer ----------
    mark = time.perf_counter()
    stamp_time = time.time_ns()
    # only the languages the project has: a grammar's version loads the grammar
    present = {source.language for source in found.files}
    grammars = {spec.name: _stored_grammar(connection, spec) for spec in specs if spec.name in present}
    stamps: dict[str, tuple[int, int]] = {}
    by_stamp: list[tuple[SourceFile, Key, str]] = []
    rest: list[SourceFile] = []
    # a plugin's artifacts come from the indexer only: with plugins, every file goes through it
    trust = not (full or stamped_at is None or options.plugins)
    trust_before = stamped_at - RACY_NS if trust and stamped_at is not None else None
    seen_stamps: dict[str, tuple[int, int, bool]] = {}
    made = _MADE.pop(store, {})
    remade: dict[str, tuple[Key, FileStatus | None]] = {}

    def key_of(path: str, digest: str, language: str) -> Key:
        """The key of ``path``'s content: the last sync's object when it is that one."""
        last = made.get(path)
        if last is not None:
            key = last[0]
            if key.hash == digest and key.language == language and key.grammar == grammars[language]:
                return key
        return Key(digest, path, fileindex.VERSION, grammars[language], language)

    for source in found.files:
        last = seen.stamps.get(source.path) if seen is not None and source.path not in hinted else None
        if last is not None:
            size, mtime_ns, regular = last
        else:
            try:
                st = os.stat(os.path.join(folder, source.path))
            except OSError:
                rest.append(source)
                continue
            size, mtime_ns, regular = st.st_size, st.st_mtime_ns, stat.S_ISREG(st.st_mode)
        stamps[source.path] = (size, mtime_ns)
        seen_stamps[source.path] = (size, mtime_ns, regular)
        row = stored.get(source.path)
        if (
            trust_before is not None
            and row is not None
            and row.language == source.language
            and row.status == "indexed"
            and row.hash
            and (row.size, row.mtime_ns) == (size, mtime_ns)
            and mtime_ns < trust_before
            and regular
            and size <= options.max_file_bytes  # the limit may have changed since
        ):
            key = key_of(source.path, row.hash, source.language)
            by_stamp.append((source, key, row.reason))
        else:
            rest.append(source)
    if not rest and not (always_link or incremental):
        quick = _unchanged_by_stamps(
            base, store, options, wanted_deps, seen, found, stored, by_stamp, stamps, stamp_time
        )
        if quick is not None:
            _SEEN[store] = remembered((), quick[1])
            _MADE[store] = made
            result = quick[0]
            result.seconds.update(discover=seconds["discover"], index=time.perf_counter() - mark)
            result.seconds["total"] = time.perf_counter() - clock
            return result
    statuses: dict[str, FileStatus] = {}
    indexes: dict[str, FileIndex] = {}
    memo = _MEMO.setdefault(store, {})
    hits: dict[Key, FileIndex] = {key: memo[key] for _, key, _ in by_stamp if key in memo}
    # a file served by its stamp has the stored status "indexed": its index was not cut by the
    # limit the stored files were checked against (MAX_RECORDS), so with that limit it is not cut
    # now either, and its index is decoded only if the link reads it (``StoredIndex``)
    checked = sql.metadata_text(connection, MAX_RECORDS) == str(options.max_records)
    if len(hits) < len(by_stamp):
        wanted = (key for _, key, _ in by_stamp if key not in hits)
        hits |= store.get_stored(wanted) if checked else store.get_many(wanted)
    for source, key, reason in by_stamp:
        hit = hits.get(key)
        if hit is not None:
            truncated = False
            if not checked:
                hit, truncated = _limit(hit, options.max_records)
            if not truncated:
                flags = _flags(hit, source)
                last_status = made.get(source.path, (key, None))[1]
                if not (
                    last_status is not None
                    and last_status.hash == key.hash
                    and last_status.language == source.language
                    and last_status.reason == reason
                    and last_status.flags == flags
                ):
                    last_status = FileStatus(source.path, source.language, "cached", key.hash, reason, flags)
                statuses[source.path] = last_status
                remade[source.path] = (key, last_status)
                indexes[source.path] = hit
                continue
        rest.append(source)
    rest.sort()
    part = index_files(
        base, Discovery(found.root, tuple(rest), (), found.git), specs, options, store, progress, started_mono
    )
    if part.error == "cancelled (interrupted)" and not (always_link or partial):
        raise KeyboardInterrupt  # a sync writes nothing half done: the stored graph stays as it was
    statuses.update((s.path, s) for s in part.statuses)
    indexes.update((i.path, i) for i in part.indexes)
    keys = {
        s.path: key_of(s.path, s.hash, s.language)
        for s in statuses.values()
        if s.hash and s.status in ("indexed", "cached")
    }
    _MEMO[store] = {keys[path]: index for path, index in indexes.items() if path in keys}
    _MADE[store] = {path: remade.get(path, (key, None)) for path, key in keys.items()}
    indexed = IndexResult(
        root=str(base),
        indexes=tuple(indexes[p] for p in sorted(indexes)),
        statuses=tuple(statuses[s.path] for s in found.files),
        excluded=found.excluded,
        unclaimed=found.unclaimed,
        error=part.error,
        seconds=time.monotonic() - started_mono,
        artifacts=part.artifacts,
    )
    if seen is not None:
        units_found = seen.units
    elif wanted_deps.empty or indexed.error is not None:
        units_found = ()
    else:
        units_found = discover_units(base, wanted_deps)
    indexed = index_units(indexed, replace(options, deps=deps), store, started_mono, units_found)
    seconds["index"] = time.perf_counter() - mark

    # ---- what changed -----------------------------------------------------------------------
    # (the link package is imported here: a no-op decided by the stamps above never loads it)
    from projectgraph.link import _file_entries
    from projectgraph.link.units import unit_table

    entries = _file_entries(indexed.indexes, indexed.statuses)
    now = {e.path: (e.language, e.status, e.hash, e.reason) for e in entries}
    now.update(
        (
            f"{s.unit}//{s.path}",
            (s.language, s.status if s.status != "cached" else "indexed", s.hash, s.reason),
        )
        for s in indexed.unit_statuses
    )
    before = {path: (r.language, r.status, r.hash, r.reason) for path, r in stored.items()}
    controls = seen.controls if seen is not None else control_files(base, (s.path for s in found.files))
    stored_controls = sql.stored_controls(connection)
    changed_controls = sorted(
        {c.path for c in controls if stored_controls.get(c.path) != c.digest}
        | (set(stored_controls) - {c.path for c in controls})
    )
    run = sql.last_run(connection)
    current = (
        run is not None
        and run["versions"] == _RULE_VERSIONS
        and now == before
        and not changed_controls
        and (run["stats"].get("units") or {}) == unit_table(indexed.units)
    )
    # the project's files (a unit file's path holds "//": its changes show as a relink only)
    added = tuple(sorted(p for p in set(now) - set(before) if "//" not in p))
    removed = tuple(sorted(p for p in set(before) - set(now) if "//" not in p))
    changed = tuple(sorted(p for p in set(now) & set(before) if now[p] != before[p] and "//" not in p))
    parsed = sum(1 for s in part.statuses if s.status in ("indexed", "truncated"))
    written: dict[str, int] = {}
    graph: Graph | None = None
    stats: dict[str, Any] = {}
    how, units, fallback = "", 0, ""
    if current and not always_link:
        mark = time.perf_counter()
        written = sql.write_stamps(connection, stamps, _control_rows(controls), stamp_time)
        seconds["write"] = time.perf_counter() - mark
        if incremental:
            relink.prime(base, config, indexed, store)
    else:
        mark = time.perf_counter()

        def old_index(path: str, digest: str) -> FileIndex | None:
            row = stored.get(path)
            if row is None:
                return None
            key = Key(digest, path, fileindex.VERSION, _grammar_of(row.language), row.language)
            return store.get_many([key]).get(key)

        linked = relink.link(
            base, config, indexed, store, entries, incremental, bool(changed_controls), old_index
        )
        seconds["link"] = time.perf_counter() - mark
        mark = time.perf_counter()
        run_row = {"started": started, "root": str(base), "error": indexed.error}
        if linked.stored is not None:
            done = linked.stored
            try:
                written = sql.write_groups(
                    connection,
                    done.groups,
                    done.files,
                    done.stats,
                    stamps,
                    run_row,
                    _control_rows(controls),
                    stamp_time,
                    done.patch,
                )
            except sql.GroupsDoNotFit:  # (rare: no node id left in place) link and write in full
                linked = relink.link(base, config, indexed, store, entries, incremental, True)
        if linked.graph is not None:
            written = sql.write_graph(
                connection,
                linked.graph,
                stamps,
                run_row,
                controls=_control_rows(controls),
                stamped_at=stamp_time,
                changed=(
                    linked.kept[1].changed_groups
                    if linked.how == "incremental" and linked.kept is not None
                    else None
                ),
                link_state=linked.save,
            )
        graph = linked.graph
        stats = graph.stats if graph is not None else linked.stored.stats if linked.stored else {}
        how, units, fallback = linked.how, linked.units, linked.why
        seconds["write"] = time.perf_counter() - mark
        relink.keep(store, linked.kept)
    if sql.metadata_text(connection, MAX_RECORDS) != str(options.max_records):
        sql.set_metadata(connection, MAX_RECORDS, str(options.max_records))
    if options.deps is not None and (
        sql.metadata_text(connection, "deps") != _deps_text(options.deps)
        or sql.metadata_text(connection, "deps_binding") != _binding(base, store.path)
    ):
        sql.set_metadata(connection, "deps", _deps_text(options.deps))
        sql.set_metadata(connection, "deps_binding", _binding(base, store.path))
    if indexed.error is None:
        _SEEN[store] = remembered(units_found, controls)
    seconds["total"] = time.perf_counter() - clock
    return SyncResult(
        added=added,
        removed=removed,
        changed=changed,
        controls=tuple(changed_controls),
        read=len(rest),
        parsed=parsed,
        relinked=bool(how),
        index=indexed,
        graph=graph,
        stats=stats,
        written=written,
        seconds=seconds,
        link=how,
        relinked_units=units,
        discovered=seen is None,
        fallback=fallback,
    )


_RULE_VERSIONS = {"fileindex": fileindex.VERSION, "projectgraph": graph_module.VERSION}
"""The rule versions a stored run records: a run of others is not the graph these rules give."""

MAX_RECORDS = "max_records"
"""The metadata row that holds the record limit the stored files were last checked against."""


def _unchanged_by_stamps(
    base: Path,
    store: sql.SqliteStore,
    options: IndexOptions,
    wanted_deps: DepsConfig,
    seen: _Seen | None,
    found: Discovery,
    stored: dict[str, Any],
    by_stamp: list[tuple[SourceFile, Key, str]],
    stamps: dict[str, tuple[int, int]],
    stamp_time: int,
) -> tuple[SyncResult, tuple[ControlFile, ...]] | None:
    """The sync of a project whose every file is served by its stamp and is the stored one, with
    the same control files, rule versions and record limit, and no unit of dependency code: the
    stored graph is the graph, so only the stamps are refreshed, and no file's index is even
    decoded (on Django that was most of a no-op sync). None when any of it does not hold (the
    sync goes on as usual). Its cached files carry the flags discovery gives (``minified``,
    ``script``), not those of their content, which only their index holds; the record limit is
    the one the stored files were checked against (``MAX_RECORDS``), so none can be cut now."""
    connection = store.connection
    run = sql.last_run(connection)
    if (
        run is None
        or run["versions"] != _RULE_VERSIONS
        or (run["stats"].get("units") or {})
        or set(stored) != {source.path for source in found.files}
        or sql.metadata_text(connection, MAX_RECORDS) != str(options.max_records)
    ):
        return None
    units = seen.units if seen is not None else () if wanted_deps.empty else discover_units(base, wanted_deps)
    if units:
        return None
    controls = seen.controls if seen is not None else control_files(base, (s.path for s in found.files))
    stored_controls = sql.stored_controls(connection)
    if {c.path: c.digest for c in controls} != stored_controls:
        return None
    # every index is still stored under its key (the key holds the grammar's version: a new
    # grammar makes new keys, and their files must be parsed again)
    if not store.holds_all(key for _, key, _ in by_stamp):
        return None
    statuses = {
        source.path: FileStatus(source.path, source.language, "cached", key.hash, reason, source.flags)
        for source, key, reason in by_stamp
    }
    indexed = IndexResult(
        root=str(base),
        indexes=(),
        statuses=tuple(statuses[s.path] for s in found.files),
        excluded=found.excluded,
        unclaimed=found.unclaimed,
    )
    written = sql.write_stamps(connection, stamps, _control_rows(controls), stamp_time)
    result = SyncResult(
        added=(),
        removed=(),
        changed=(),
        controls=(),
        read=0,
        parsed=0,
        relinked=False,
        index=indexed,
        graph=None,
        written=written,
        discovered=seen is None,
    )
    return result, controls


def _flags(index: FileIndex, source: SourceFile) -> tuple[str, ...]:
    """A cached file's flags: its index's, or discovery's (``minified``, ``script``) while the
    index is not decoded (as ``_unchanged_by_stamps`` gives them): no stage reads a status's flags,
    and decoding every index for them was most of a one-shot sync of a big project."""
    if isinstance(index, StoredIndex) and not index.is_decoded:
        return source.flags
    return index.flags


def _unchanged_kind(folder: str, path: str, known: frozenset[str]) -> bool:
    """Whether a changed ``path`` leaves the project's file list as it was: a source file the last
    sync found, still a regular file (not gone, not a link), and no control file."""
    if path not in known or is_control_name(path):
        return False
    try:
        return stat.S_ISREG(os.lstat(os.path.join(folder, path)).st_mode)
    except OSError:
        return False


def stored_deps(connection: Any, root: Path, database: Path) -> DepsConfig | None:
    """The units the stored graph was built with (None: the default, auto).

    The database is not trusted with paths: a ``graph.db`` committed to a repository could name
    ``/home/you/.ssh`` as a dependency folder. A named folder outside the project is used only when
    this store wrote it itself: the ``deps_binding`` beside it names the project root and the
    database file (device and inode) it was written for, which a planted or copied file does not
    have. Another one is left out, with a warning that says how to name it again."""
    text = sql.metadata_text(connection, "deps")
    try:
        deps = DepsConfig.from_json(json.loads(text)) if text else None
    except ValueError:
        return None
    if deps is None or not deps.named:
        return deps
    bound = sql.metadata_text(connection, "deps_binding") == _binding(root, database)
    kept = tuple(pair for pair in deps.named if bound or safefs.inside(pair[0], root))
    if len(kept) < len(deps.named):
        dropped = ", ".join(f"{folder}={what}" for folder, what in deps.named if (folder, what) not in kept)
        _log.warning(
            "projectgraph: the stored graph names dependency folders outside the project that this "
            "store did not record itself (%s): not read; run `projectgraph index --deps VALUE` "
            "to use one",
            dropped,
        )
    return DepsConfig(deps.auto, deps.stdlib, kept)


def _binding(root: Path, database: Path) -> str:
    """What ties stored dependency folders to this project's own database file."""
    try:
        st = os.stat(database)
    except OSError:
        return ""
    return json.dumps([os.path.realpath(root), st.st_dev, st.st_ino])


def _deps_text(deps: DepsConfig) -> str:
    return json.dumps(deps.to_json(), sort_keys=True)


def _control_rows(controls: tuple[ControlFile, ...]) -> list[tuple[str, str, int, int]]:
    return [(c.path, c.digest, c.size, c.mtime_ns) for c in controls]
