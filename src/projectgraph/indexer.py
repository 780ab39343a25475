"""The index run: discover, read each file once, serve unchanged files from the store, parse the
rest in a process pool, and give one ``FileIndex`` per file plus a status for every file.

Statuses: ``indexed`` (parsed now), ``cached`` (served by the store, no parse), ``missing`` (gone
before it was read, or not reached before a cancellation), ``failed`` (too large, binary,
unreadable, or the parser failed), ``truncated`` (an index limit was hit: the index holds the
records up to the limit). The result never depends on the worker count or the file system order.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import signal
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from projectgraph import fileindex, safefs
from projectgraph.config import ConfigError, ProjectConfig, load_config
from projectgraph.discover import (
    MINIFIED_NAMES,
    SCRIPT,
    Discovery,
    Excluded,
    SourceFile,
    discover,
    extension_map,
    language_of,
)
from projectgraph.fileindex import FileIndex, Key
from projectgraph.gcpause import paused_gc
from projectgraph.languages import LanguageSpec, all_languages
from projectgraph.languages.base import grammar_version, import_prefixes, parser
from projectgraph.manifests import Controls, read_controls
from projectgraph.units import AUTO_DEPS, DepsConfig, Unit, discover_units
from projectgraph.units.standard import standard_ecosystems

DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024
DEFAULT_MAX_RECORDS = 200_000
MINIFIED_LINE = 1000

Progress = Callable[[int, int], None]


class Plugin(Protocol):
    """An extra per-file analysis that gets the parsed tree of each file of its languages."""

    name: str
    version: str
    languages: tuple[str, ...]

    def analyze(self, tree: Any, source: bytes, path: str) -> Any: ...


class CachedPlugin(Plugin, Protocol):
    """A plugin whose per-file artifact the store keeps, so a later run restores it with no parse."""

    def restore(self, artifact: Any) -> Any: ...


@dataclass(frozen=True)
class IndexOptions:
    languages: tuple[str, ...] = ()  # empty: every language the registry knows
    workers: int = 0  # 0: the CPU count
    max_file_bytes: int = 0  # 0: 4 MiB
    max_records: int = 0  # 0: DEFAULT_MAX_RECORDS calls/definitions per file
    deadline: float | None = None  # seconds from the start; past it the run is cancelled
    plugins: tuple[Any, ...] = ()
    config: ProjectConfig | None = None  # None: read from the project root
    # the units of dependency code to index too: None is auto for a run (a sync: as the stored graph
    # was built, else auto); NO_DEPS is none
    deps: DepsConfig | None = None

    def validated(self) -> IndexOptions:
        """Check the options as the seed says; returns them with the defaults filled."""
        if self.workers < 0:
            raise ValueError(f"workers cannot be negative (got {self.workers})")
        if self.max_file_bytes < 0:
            raise ValueError(f"max_file_bytes cannot be negative (got {self.max_file_bytes})")
        if self.max_records < 0:
            raise ValueError(f"max_records cannot be negative (got {self.max_records})")
        known = all_languages()
        names = self.languages or tuple(known)
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"unknown language(s): {', '.join(unknown)} (known: {', '.join(known)})")
        if not names:
            raise ValueError("an index run needs at least one language")
        extension_map(known[name] for name in names)  # two languages may not share an extension
        return replace(
            self,
            languages=tuple(sorted(set(names))),
            workers=self.workers or os.cpu_count() or 1,
            max_file_bytes=self.max_file_bytes or DEFAULT_MAX_FILE_BYTES,
            max_records=self.max_records or DEFAULT_MAX_RECORDS,
        )


@dataclass(frozen=True, order=True)
class FileStatus:
    path: str
    language: str
    status: str  # indexed | cached | missing | failed | truncated
    hash: str = ""
    reason: str = ""
    flags: tuple[str, ...] = ()
    unit: str = ""  # the unit of dependency code of the file ("" for a project file)


@dataclass(frozen=True)
class UnitIndex:
    """The index run of one unit of dependency code: paths relative to ``unit.root``."""

    unit: Unit
    indexes: tuple[FileIndex, ...]
    statuses: tuple[FileStatus, ...]
    # its control files (go.mod, Cargo.toml), read with its files: what a linker reads of them
    controls: Controls = field(default_factory=Controls)


@dataclass(frozen=True)
class IndexResult:
    root: str
    indexes: tuple[FileIndex, ...]
    statuses: tuple[FileStatus, ...]
    excluded: tuple[Excluded, ...]
    error: str | None = None
    unclaimed: tuple[tuple[str, int], ...] = ()  # files of no language by extension (Discovery's)
    seconds: float = 0.0
    artifacts: dict[str, dict[str, Any]] = field(default_factory=dict)
    units: tuple[UnitIndex, ...] = ()  # the units of dependency code, by name

    @property
    def unit_statuses(self) -> tuple[FileStatus, ...]:
        """The status of each file of dependency code (``unit`` set, path relative to its root)."""
        return tuple(s for u in self.units for s in u.statuses)

    def unit(self, name: str) -> UnitIndex:
        """The indexes and the files of one unit; KeyError for a unit the run did not index."""
        for unit in self.units:
            if unit.unit.name == name:
                return unit
        raise KeyError(name)

    @property
    def failed(self) -> bool:
        """Whether anything failed: the run, a file, or a folder or file name discovery could not read."""
        return (
            self.error is not None
            or any(s.status in ("failed", "missing") for s in self.statuses)
            or any(e.error for e in self.excluded)
        )

    def status_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for status in self.statuses:
            counts[status.status] = counts.get(status.status, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> dict[str, Any]:
        by_language: dict[str, dict[str, int]] = {}
        for status in self.statuses:
            row = by_language.setdefault(status.language, {})
            row[status.status] = row.get(status.status, 0) + 1
        return {
            "root": self.root,
            "files": len(self.statuses),
            "statuses": self.status_counts(),
            "languages": {k: dict(sorted(v.items())) for k, v in sorted(by_language.items())},
            "excluded": len(self.excluded),
            "no_language": dict(self.unclaimed),  # files no language claims, by extension ("": none)
            "definitions": sum(len(i.definitions) for i in self.indexes),
            "calls": sum(len(i.calls) for i in self.indexes),
            "imports": sum(len(i.imports) for i in self.indexes),
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "problems": [
                {"path": s.path, "status": s.status, "reason": s.reason}
                for s in self.statuses
                if s.status in ("failed", "missing", "truncated") or s.reason
            ]
            + [{"path": e.path, "status": "excluded", "reason": e.reason} for e in self.excluded if e.error],
            "units": {
                u.unit.name: {
                    "files": len(u.statuses),
                    "statuses": dict(sorted(Counter(s.status for s in u.statuses).items())),
                }
                for u in self.units
            },
        }


# ---- the work of one file, in a worker process -------------------------------------------------


@cache
def _generated_marker(marker: bytes) -> re.Pattern[bytes]:
    return re.compile(marker, re.MULTILINE)


def _content_flags(path: str, language: str, data: bytes) -> tuple[str, ...]:
    """The flags of a file's content its language's record asks for (``LanguageSpec``)."""
    flags: list[str] = []
    spec = all_languages()[language]
    if data.startswith(b"#!") and not path.endswith(spec.extensions):
        flags.append(SCRIPT)  # as discovery found it: its shebang names its language
    if spec.generated_marker and _generated_marker(spec.generated_marker).search(data[:65536]):
        flags.append("generated")
    if path.endswith(MINIFIED_NAMES):  # as discovery flags it, whatever language reads it
        flags.append("minified")
    elif spec.minified_lines and data:
        long_bytes = sum(len(line) for line in data.split(b"\n") if len(line) >= MINIFIED_LINE)
        if long_bytes * 2 > len(data):
            flags.append("minified")
    return tuple(flags)


def _limit(index: FileIndex, max_records: int) -> tuple[FileIndex, bool]:
    over = len(index.calls) > max_records or len(index.definitions) > max_records
    if not over:
        return index, False
    return (
        replace(
            index,
            calls=index.calls[:max_records],
            definitions=index.definitions[:max_records],
            references=index.references[:max_records],
            reads=index.reads[:max_records],
            flags=(*index.flags, "truncated"),
        ),
        True,
    )


_Task = tuple[str, str, bytes, str, int, tuple[Any, ...]]
# (path, status, reason, flags, the index or its to_bytes form, plugin artifacts)
_Outcome = tuple[str, str, str, tuple[str, ...], FileIndex | bytes | None, dict[str, Any]]


def _index_one(task: _Task) -> _Outcome:
    """Parse and extract one file: (path, status, reason, flags, index, plugin artifacts)."""
    path, language, data, file_hash, max_records, plugins = task
    spec = all_languages()[language]
    flags = _content_flags(path, language, data)
    if _invalid_utf8_at(data) is not None:
        flags = (*flags, "invalid-utf8")
    try:
        tree = parser(spec.grammar).parse(data)
        tree, source, left_out = _within_depth(spec, tree, data)
        index = spec.extract_function()(tree, source, path, file_hash)
        if tree.root_node.has_error and not index.syntax_errors:
            # only a MISSING node (a token the parser made up): an error all the same, in every language
            index = replace(index, syntax_errors=1, flags=(*index.flags, "syntax-error"))
        artifacts = {p.name: p.analyze(tree, data, path) for p in plugins if language in p.languages}
        del tree
    except Exception as error:  # a parser or extractor bug must not end the run
        return path, "failed", f"index error: {type(error).__name__}: {error}", flags, None, {}
    if left_out:
        flags = (*flags, "deep-nesting")
    index = replace(index, flags=tuple(sorted({*index.flags, *flags})))
    index, truncated = _limit(index, max_records)
    if truncated and "generated" in index.flags:
        skeleton = _skeleton_index(spec, data, path, file_hash, flags, max_records)
        if skeleton is not None:
            index, truncated = skeleton
    status = "truncated" if truncated or left_out else "indexed"
    return path, status, _reason(index, data, max_records, left_out), index.flags, index, artifacts


MAX_DEPTH = 256
"""Syntax tree levels a file's index reads. Tree-sitter's query cursor keeps a state per pattern in
progress at each enclosing level, so captures cost about the nodes times the depth: 10,000 nested JS
arrays took 3.4 s, 100,000 took 236 s. Real code is shallow (63 levels at most over the 4,581
Python, JavaScript, TypeScript, Go, Rust and Java files of a venv and Debian's node_modules, minified
and generated files included), so a subtree that reaches below this depth is left out."""
_BLANK = re.compile(rb"[^\r\n]")
DEEP_LEVEL = 128
DEEP_NODES = 4096
"""More nodes than this below ``DEEP_LEVEL`` (many nests each within ``MAX_DEPTH``) cost as much as
one deep nest: then the subtrees from ``DEEP_LEVEL`` down are left out instead."""


def _within_depth(spec: LanguageSpec, tree: Any, data: bytes) -> tuple[Any, bytes, str]:
    """The tree and source to extract from, and where the too-deep code was left out ("" when none).

    The subtrees past the budget are blanked in the source (every byte but line ends made a space,
    so lines and columns stay) and the source parsed again: the rest of the file is indexed as it
    is. A scan visits only the nodes whose subtree is big enough to reach the budget (a node's
    ``descendant_count`` bounds the depth below it), a small share of the nodes of real code."""
    left: list[tuple[int, int, int, int]] = []
    source = data
    for _round in range(3):
        cut = _deep_subtrees(tree.root_node)
        if not cut:
            break
        left.extend(cut)
        blanked = bytearray(source)
        for start, end, _first, _last in cut:
            blanked[start:end] = _BLANK.sub(b" ", bytes(blanked[start:end]))
        source = bytes(blanked)
        tree = parser(spec.grammar).parse(source)
    else:
        if _deep_subtrees(tree.root_node):  # error recovery nested again: index nothing of it
            source = b""
            tree = parser(spec.grammar).parse(source)
    if not left:
        return tree, data, ""
    lines = sorted({(first, last) for _s, _e, first, last in left})
    shown = ", ".join(f"line {a}" if a == b else f"lines {a}-{b}" for a, b in lines[:5])
    more = f" and {len(lines) - 5} more" if len(lines) > 5 else ""
    return tree, source, shown + more


def _deep_subtrees(root: Any) -> list[tuple[int, int, int, int]]:
    """(start byte, end byte, first line, last line) of each subtree to leave out, in byte order."""
    at_limit: list[Any] = []
    at_deep: list[Any] = []
    deep_nodes = 0
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth == DEEP_LEVEL:
            at_deep.append(node)
            deep_nodes += node.descendant_count - 1
        if depth == MAX_DEPTH:
            at_limit.append(node)
            continue
        target = DEEP_LEVEL if depth < DEEP_LEVEL else MAX_DEPTH
        # a child of descendant_count c (itself included) reaches c - 1 levels below it
        need = max(target - depth - 1, 1)
        stack.extend((child, depth + 1) for child in node.children if child.descendant_count > need)
    chosen = at_deep if deep_nodes > DEEP_NODES else at_limit
    return sorted(
        (n.start_byte, n.end_byte, n.start_point[0] + 1, n.end_point[0] + 1)
        for n in chosen
        if n.descendant_count > 1
    )


def _skeleton_index(
    spec: LanguageSpec, data: bytes, path: str, file_hash: str, flags: tuple[str, ...], max_records: int
) -> tuple[FileIndex, bool] | None:
    """A generated file over the record limit, indexed from its skeleton: the language module's
    ``skeleton(source)`` blanks each top-level value that holds only data (a table of thousands of
    entries) and keeps function bodies, so the file's calls stay in the graph. None when the language
    has no skeleton or the file no data-only value; the result is cut to the limit again."""
    make = getattr(importlib.import_module(spec.extractor.partition(":")[0]), "skeleton", None)
    if make is None:
        return None
    try:
        source = make(data)
        if source is None:
            return None
        tree = parser(spec.grammar).parse(source)
        index = spec.extract_function()(tree, source, path, file_hash)
        del tree
    except Exception:  # the truncated index stands
        return None
    return _limit(replace(index, flags=tuple(sorted({*index.flags, *flags, "skeleton"}))), max_records)


def _needs_skeleton(index: FileIndex, max_records: int) -> bool:
    """A stored whole index of a generated file that this run's limit cuts: index its skeleton."""
    over = len(index.calls) > max_records or len(index.definitions) > max_records
    return over and "generated" in index.flags


def _index_batch(batch: list[_Task]) -> list[_Outcome]:
    """``_index_one`` over a batch in a worker: each index goes back in its ``to_bytes`` form, which
    the store keeps as it is and the parent decodes several times faster than it would unpickle."""
    outcomes: list[_Outcome] = []
    for task in batch:
        path, status, reason, flags, index, artifacts = _index_one(task)
        encoded = _encoded(index) if isinstance(index, FileIndex) else None
        outcomes.append((path, status, reason, flags, encoded if encoded is not None else index, artifacts))
    return outcomes


def _encoded(index: FileIndex) -> bytes | None:
    """The ``to_bytes`` form, or None when a record holds what it cannot write (then not stored)."""
    try:
        return index.to_bytes()
    except ValueError:
        return None


def _batches(tasks: list[_Task], workers: int) -> list[list[_Task]]:
    """The tasks (largest first) in batches of about a 32nd of a worker's share of the bytes: one
    round trip per batch instead of per file (the pool's own cost fell from 0.7 to 0.3 s of the
    parent's time on Django), the large files alone at the start, small batches at the end."""
    budget = max(sum(len(task[2]) for task in tasks) // (workers * 32), 1 << 16)
    batches: list[list[_Task]] = []
    size = budget
    for task in tasks:
        if size + len(task[2]) > budget or len(batches[-1]) >= 64:
            batches.append([])
            size = 0
        batches[-1].append(task)
        size += len(task[2])
    return batches


def _worker_init() -> None:
    # Extraction builds many small objects and keeps them; the cyclic collector only slows it down.
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# ---- the run ----------------------------------------------------------------------------------


def _read(root: Path, rel: str, max_bytes: int) -> tuple[bytes | None, str, str]:
    """Read a file once: (bytes, status, reason); bytes None when it cannot be indexed."""
    full = root / rel
    try:
        st = full.stat()
        if not stat.S_ISREG(st.st_mode):
            return None, "failed", "not a regular file"
        if st.st_size > max_bytes:
            return None, "failed", f"file of {st.st_size} bytes is larger than the limit of {max_bytes} bytes"
        # non-blocking and checked on the descriptor: a file swapped for a pipe since the stat
        # must not hang the run
        data = safefs.read_bytes(full, limit=max_bytes)
    except FileNotFoundError:
        return None, "missing", "deleted before it was read"
    except safefs.NotRegularFileError:
        return None, "failed", "not a regular file"
    except safefs.TooLargeError:
        return None, "failed", f"file grew past the limit of {max_bytes} bytes while read"
    except OSError as error:
        return None, "failed", f"unreadable: {error.strerror or error}"
    if b"\0" in data[:8192]:
        return None, "failed", "binary content (NUL bytes)"
    return data, "", ""


def run_index(
    root: str | os.PathLike[str],
    options: IndexOptions | None = None,
    store: Any | None = None,
    progress: Progress | None = None,
) -> IndexResult:
    """Index the project under ``root``. ``store`` (MemoryStore, SqliteStore, or None) caches."""
    started = time.monotonic()
    base = Path(root)
    options = (options or IndexOptions()).validated()
    config = options.config if options.config is not None else load_config(base)
    specs = run_languages(options, config)
    try:
        found = discover(base, specs, config)
    except KeyboardInterrupt:  # Ctrl-C before any file was known: an empty, cancelled result
        seconds = time.monotonic() - started
        return IndexResult(str(base), (), (), (), error="cancelled (interrupted)", seconds=seconds)
    result = index_files(base, found, specs, options, store, progress, started)
    return index_units(result, options, store, started)


def run_languages(options: IndexOptions, config: ProjectConfig) -> list[LanguageSpec]:
    """The languages of a run: the options', limited by the project configuration."""
    known = all_languages()
    names = options.languages
    if config.languages:
        unknown = [n for n in config.languages if n not in known]
        if unknown:
            raise ConfigError(f"{config.source}: unknown language(s) {', '.join(unknown)}")
        names = tuple(n for n in names if n in config.languages)
        if not names:
            asked, allowed = ", ".join(options.languages), ", ".join(config.languages)
            raise ConfigError(
                f"{config.source}: no language left to index: the run asks for {asked}, "
                f"the configuration limits it to {allowed}"
            )
    return [known[name] for name in names]


def index_units(
    result: IndexResult,
    options: IndexOptions,
    store: Any | None,
    started: float | None = None,
    discovered: tuple[Unit, ...] | None = None,
) -> IndexResult:
    """The run with the units of dependency code ``options.deps`` asks for indexed too.

    Auto-discovered units are indexed as the project's imports need them: a unit that gives a name
    the project imports, then a unit that gives a name such a unit imports, until none is new (a
    unit that nothing imports is never entered by a path). Named folders are indexed whole, and so
    is the standard library when the project has files of its language. Each unit's files are
    cached in the store like a project's, so a unit is parsed once per version. A cancelled run
    indexes no unit.

    ``discovered``: the units ``discover_units`` gives for ``options.deps`` (a caller that knows
    nothing changed in the dependency folders since it asked passes them; else they are found)."""
    deps = options.deps if options.deps is not None else AUTO_DEPS
    if result.error is not None or deps.empty:
        return result
    started = time.monotonic() if started is None else started
    units = discovered if discovered is not None else discover_units(result.root, deps)
    if not units:
        return result
    options = options.validated()
    named = {folder for folder, _ in deps.named}
    languages = {index.language for index in result.indexes}
    # a standard library serves a project with files of its language (no Python std for a Go tree)
    wanted = [
        u
        for u in units
        if u.root in named or (u.ecosystem in standard_ecosystems() and languages.intersection(u.languages))
    ]
    pending = {u.name for u in wanted}
    providers: dict[str, list[Unit]] = {}
    for unit in units:
        for name in unit.provides:
            providers.setdefault(name, []).append(unit)
    done: dict[str, UnitIndex] = {}
    imported = _imported_names(result.indexes)
    while True:
        for name in sorted(imported):
            for unit in providers.get(name, ()):
                if unit.name not in done and unit.name not in pending:
                    pending.add(unit.name)
                    wanted.append(unit)
        batch = [u for u in wanted if u.name not in done]
        if not batch:
            break
        imported = set()
        for made in _index_unit_batch(batch, options, store, started):
            done[made.unit.name] = made
            imported |= _imported_names(made.indexes)
    return replace(result, units=tuple(done[n] for n in sorted(done)), seconds=time.monotonic() - started)


def _imported_names(indexes: Iterable[FileIndex]) -> set[str]:
    """The names the indexes ask units by, as each one's language says (``LanguageSpec.unit_names``;
    by default each absolute import and its prefixes): what a unit's import names are matched
    against."""
    known = all_languages()
    names: set[str] = set()
    for index in indexes:
        spec = known.get(index.language)
        names |= spec.hook("unit_names")(index) if spec and spec.unit_names else import_prefixes(index)
    return names


def _index_unit_batch(
    units: Sequence[Unit], options: IndexOptions, store: Any | None, started: float
) -> list[UnitIndex]:
    """Index units, one indexer run per root folder (the dists of one site-packages share it).

    A unit this process indexed before whose files all have the size and modification time they had
    then (each older than that run by more than ``UNIT_RACY_NS``) is that run's again, with no file
    read: a watcher's or a server's syncs do not hash the environment's files each time."""
    known = all_languages()
    by_root: dict[str, list[Unit]] = {}
    made: list[UnitIndex] = []
    fresh: dict[str, tuple[tuple[Any, ...], tuple[tuple[int, int], ...] | None]] = {}
    now = time.time_ns()
    for unit in units:
        memo_key = (unit, options.max_file_bytes, options.max_records, fileindex.VERSION)
        stamps = _unit_stamps(unit)
        kept = _UNIT_MEMO.get(memo_key)
        if (
            stamps is not None
            and kept is not None
            and kept[0] == stamps
            and all(mtime < kept[1] - UNIT_RACY_NS for _size, mtime in stamps)
        ):
            made.append(kept[2])
            continue
        fresh[unit.name] = (memo_key, stamps)
        by_root.setdefault(unit.root, []).append(unit)
    for root, group in sorted(by_root.items()):
        names = sorted({language for unit in group for language in unit.languages if language in known})
        specs = [known[name] for name in names]
        mapping = extension_map(specs)
        owner: dict[str, Unit] = {}
        files: list[SourceFile] = []
        for unit in group:
            for path in unit.files:
                language = language_of(path, mapping)
                if language is not None and path not in owner:
                    owner[path] = unit
                    files.append(SourceFile(path, language))
        files.sort()
        run = index_files(
            Path(root), Discovery(root, tuple(files), (), False), specs, options, store, None, started
        )
        for unit in group:
            mine = [s for s in run.statuses if owner.get(s.path) is unit]
            own = tuple(i for i in run.indexes if owner.get(i.path) is unit)
            result = UnitIndex(
                unit,
                own,
                tuple(replace(s, unit=unit.name) for s in mine),
                read_controls(unit.root, tuple(i.path for i in own), tuple(unit.languages)),
            )
            made.append(result)
            memo_key, stamps = fresh[unit.name]
            if stamps is not None and run.error is None:
                # served again, a file's index is as a store hit's: cached, not parsed
                again = tuple(
                    replace(s, status="cached") if s.status == "indexed" else s for s in result.statuses
                )
                _UNIT_MEMO[memo_key] = (stamps, now, replace(result, statuses=again))
    while len(_UNIT_MEMO) > UNIT_MEMO_SIZE:
        del _UNIT_MEMO[next(iter(_UNIT_MEMO))]
    return made


UNIT_RACY_NS = 2_000_000_000  # as a sync's stamps: a change within a coarse clock's tick is not missed
UNIT_MEMO_SIZE = 4096
_UNIT_MEMO: dict[tuple[Any, ...], tuple[tuple[tuple[int, int], ...], int, UnitIndex]] = {}


def _unit_stamps(unit: Unit) -> tuple[tuple[int, int], ...] | None:
    """(size, mtime_ns) of each file of a unit, or None when one cannot be read."""
    stamps = []
    for path in unit.files:
        try:
            st = os.stat(os.path.join(unit.root, path))
        except OSError:
            return None
        stamps.append((st.st_size, st.st_mtime_ns))
    return tuple(stamps)


# The run builds millions of small tuples and keeps them: the cyclic collector would rescan them
# again and again for nothing (a quarter of a warm run's time on Django).
@paused_gc()
def index_files(
    base: Path,
    found: Discovery,
    specs: Sequence[LanguageSpec],
    options: IndexOptions,
    store: Any | None,
    progress: Progress | None,
    started: float,
) -> IndexResult:
    """Index the discovered files (the part of ``run_index`` after discovery)."""
    present = {source.language for source in found.files}  # a grammar's version loads it
    grammars = {spec.name: grammar_version(spec.grammar) for spec in specs if spec.name in present}
    statuses: dict[str, FileStatus] = {}
    indexes: dict[str, FileIndex] = {}
    artifacts: dict[str, dict[str, Any]] = {p.name: {} for p in options.plugins}
    total = len(found.files)
    done = 0
    error: str | None = None

    def deadline_passed() -> bool:
        return options.deadline is not None and time.monotonic() - started > options.deadline

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    # indexes not stored yet, with the to_bytes form when a worker made it
    fresh: list[tuple[Key, FileIndex, bytes | None]] = []
    fresh_bytes = 0

    def store_fresh() -> None:
        nonlocal fresh_bytes
        fresh_bytes = 0
        if store is None or not fresh:
            return
        if hasattr(store, "put_encoded"):
            forms = [(key, data if data is not None else _encoded(index)) for key, index, data in fresh]
            store.put_encoded([(key, data) for key, data in forms if data is not None])
        else:
            store.put_many([(key, index) for key, index, _ in fresh])
        fresh.clear()

    # 1. read each file once, hash it, and ask the store in one batch
    pending: list[tuple[str, str, bytes, Key]] = []
    try:
        for source in found.files:
            if deadline_passed():
                raise TimeoutError(f"deadline of {options.deadline} s passed")
            data, status, reason = _read(base, source.path, options.max_file_bytes)
            if data is None:
                statuses[source.path] = FileStatus(source.path, source.language, status, reason=reason)
                tick()
                continue
            file_hash = fileindex.content_hash(data)
            key = Key(file_hash, source.path, fileindex.VERSION, grammars[source.language], source.language)
            pending.append((source.path, source.language, data, key))
        cached = store.get_many(key for *_, key in pending) if store is not None else {}
        misses: list[tuple[str, str, bytes, Key]] = []
        for path, language, data, key in pending:
            hit = cached.get(key)
            plugin_hits = _restore_plugins(store, key, language, options.plugins) if hit else None
            if hit is not None and plugin_hits is not None and not _needs_skeleton(hit, options.max_records):
                hit, truncated = _limit(hit, options.max_records)
                indexes[path] = hit
                status = "truncated" if truncated else "cached"
                reason = _reason(hit, data, options.max_records)
                statuses[path] = FileStatus(path, language, status, key.hash, reason, hit.flags)
                for name, artifact in plugin_hits.items():
                    artifacts[name][path] = artifact
                tick()
            else:
                misses.append((path, language, data, key))
        # 2. parse what the store did not have, largest first so one big file does not cap the pool
        misses.sort(key=lambda item: (-len(item[2]), item[0]))
        keys = {path: key for path, _, _, key in misses}
        tasks: list[_Task] = [
            (path, language, data, key.hash, options.max_records, _plugins_for(language, options.plugins))
            for path, language, data, key in misses
        ]
        for outcome in _map(tasks, options.workers, deadline_passed):
            path, status, reason, flags, made, produced = outcome
            encoded = made if isinstance(made, bytes) else None
            index = FileIndex.from_bytes(made) if isinstance(made, bytes) else made
            key = keys[path]
            language = key.language
            statuses[path] = FileStatus(path, language, status, key.hash, reason, flags)
            if index is not None:
                indexes[path] = index
                # the store keeps whole indexes; each run cuts to its limit (or makes a skeleton)
                if status != "truncated" and "skeleton" not in index.flags:
                    fresh.append((key, index, encoded))
                    fresh_bytes += len(encoded) if encoded is not None else 0
                    if fresh_bytes > 1 << 21 or len(fresh) >= 256:  # stored while the workers parse
                        store_fresh()
                for name, artifact in produced.items():
                    artifacts[name][path] = artifact
                    if store is not None and hasattr(_plugin(options.plugins, name), "restore"):
                        plugin = _plugin(options.plugins, name)
                        store.put_artifact(key, name, str(plugin.version), artifact)
            tick()
    except KeyboardInterrupt:
        error = "cancelled (interrupted)"
    except TimeoutError as timeout:
        error = f"cancelled: {timeout}"
    store_fresh()  # also after a cancellation: the next run starts from what this one did
    for source in found.files:
        if source.path not in statuses:
            statuses[source.path] = FileStatus(
                source.path, source.language, "missing", reason="not indexed: the run was cancelled"
            )
    ordered = tuple(statuses[s.path] for s in found.files)
    return IndexResult(
        root=str(base),
        indexes=tuple(indexes[p] for p in sorted(indexes)),
        statuses=ordered,
        excluded=found.excluded,
        unclaimed=found.unclaimed,
        error=error,
        seconds=time.monotonic() - started,
        artifacts={name: dict(sorted(v.items())) for name, v in sorted(artifacts.items())},
    )


def _invalid_utf8_at(data: bytes) -> int | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return None


def _reason(index: FileIndex, data: bytes, max_records: int, left_out: str = "") -> str:
    """Why an index is not the plain index of a clean file; the same text fresh or from the store
    (``left_out``: where code nested past the depth budget was left out)."""
    reasons = []
    if left_out:
        reasons.append(f"nesting deeper than {MAX_DEPTH} levels: left out of the index at {left_out}")
    if "invalid-utf8" in index.flags:
        reasons.append(f"invalid UTF-8 at byte {_invalid_utf8_at(data)} (read with replacement)")
    if index.syntax_errors:
        reasons.append(f"{index.syntax_errors} syntax error(s), indexed what the parser recovered")
    if "skeleton" in index.flags:
        reasons.append(
            f"generated file over the limit of {max_records} records: indexed as a skeleton "
            "(data-only top-level values blanked, function bodies kept)"
        )
    if "truncated" in index.flags:
        reasons.append(f"more than {max_records} records: index cut at the limit")
    return "; ".join(reasons)


def _plugin(plugins: Iterable[Any], name: str) -> Any:
    return next(p for p in plugins if p.name == name)


def _plugins_for(language: str, plugins: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(p for p in plugins if language in p.languages)


def _restore_plugins(store: Any, key: Key, language: str, plugins: Iterable[Any]) -> dict[str, Any] | None:
    """Artifacts of every plugin of this language from the store, or None when one must parse."""
    restored: dict[str, Any] = {}
    for plugin in _plugins_for(language, plugins):
        if not hasattr(plugin, "restore") or store is None:
            return None
        artifact = store.get_artifact(key, plugin.name, str(plugin.version))
        if artifact is None:
            return None
        restored[plugin.name] = plugin.restore(artifact)
    return restored


def _map(tasks: list[_Task], workers: int, cancelled: Callable[[], bool]) -> Iterable[_Outcome]:
    """Run ``_index_one`` over the tasks, in this process for one worker or few files."""
    if workers <= 1 or len(tasks) < 4:
        enabled = gc.isenabled()
        gc.disable()
        try:
            for task in tasks:
                if cancelled():
                    raise TimeoutError("deadline passed")
                yield _index_one(task)
        finally:
            if enabled:
                gc.enable()
        return
    import multiprocessing  # (here: 25-90 ms of a process start, and a sync that parses nothing has no pool)

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    pool = context.Pool(min(workers, len(tasks)), initializer=_worker_init)
    try:
        for outcomes in pool.imap_unordered(_index_batch, _batches(tasks, workers), chunksize=1):
            for outcome in outcomes:
                if cancelled():
                    raise TimeoutError("deadline passed")
                yield outcome
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def index_source(path: str, language: str, data: bytes) -> FileIndex | None:
    """One file's index from its bytes, outside a run (``changes`` indexes the old version of a
    changed file with it); None when the parse or the extraction fails."""
    index = _index_one((path, language, data, "", DEFAULT_MAX_RECORDS, ()))[4]
    return index if isinstance(index, FileIndex) else None
