"""What a change touches: a git diff mapped to the symbols it changes, each with its impact radius
(with the uncertain callers) and the tests whose roots reach it.

The diff is the working tree against HEAD (``base`` None), against a ref (``base``), or the index
(``staged``) against HEAD or the ref; files git does not track yet count as added in the working
tree. Both sides of each changed file are indexed (the old one from git, the new one from the
working tree or the index, with ``indexer.index_source``), and each changed line, blank lines
aside, belongs to the innermost definition around it (a line outside every definition to the
module). A definition on both sides is ``signature-changed`` when its signature differs, else
``body-changed``; one on the new side only is ``added``, on the old side only ``removed``; a removed
and an added one with the same text (dedented) are one ``moved`` symbol, and with the same body
under another header (name, parameters) one ``renamed`` symbol: a move or a rename is never
reported as a removal and an addition. The untouched definitions of a renamed file are moved.

The stored graph is the new side: impact and tests are read from it, so the answer is exact for
the working tree (a query indexes first) and for the index when it equals the working tree. A
removed symbol has no node: its answer lists the calls of its name the graph still holds
unresolved, which are what the removal breaks. Lines are 1-based.
"""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectgraph import keys, safefs
from projectgraph.discover import extension_map, language_of
from projectgraph.fileindex import Definition
from projectgraph.indexer import index_source
from projectgraph.languages import all_languages

if TYPE_CHECKING:
    from projectgraph.query import QueryEngine

CHANGES = ("added", "removed", "body-changed", "signature-changed", "moved", "renamed")
GIT_TIMEOUT = 60.0


class ChangesError(ValueError):
    """A diff that cannot be read (not a git repository, an unknown ref)."""


@dataclass(frozen=True)
class FileChange:
    """One file of the diff: its old and new paths ("" when absent) and the changed lines."""

    old_path: str
    new_path: str
    old_lines: frozenset[int]
    new_lines: frozenset[int]


@dataclass(frozen=True)
class Symbol:
    """A definition on one side of the diff, with the texts a move or a rename is matched by."""

    key: str
    path: str
    definition: Definition
    text: str  # the whole definition, dedented
    body: str  # without its first line (the header), dedented


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotePath=false", *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as error:
        raise ChangesError("git is not installed: changes reads the git diff") from error
    if done.returncode != 0:
        raise ChangesError(f"git {' '.join(args[:2])}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def _show(root: Path, spec: str) -> bytes | None:
    done = subprocess.run(
        ["git", "-C", str(root), "show", spec],
        capture_output=True,
        timeout=GIT_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout if done.returncode == 0 else None


def read_diff(root: Path, base: str | None, staged: bool) -> list[FileChange]:
    """The changed files of the diff, with their changed line numbers on each side."""
    if _git(root, "rev-parse", "--is-inside-work-tree").strip() != "true":
        raise ChangesError(f"{root} is not in a git work tree")
    ref = base or "HEAD"
    if base is not None:
        try:
            _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
        except ChangesError as error:
            raise ChangesError(f"--base {base!r} names no commit of {root}") from error
    # --relative: paths from the project's folder, which may sit below the repository's root
    args = [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--relative",
        "-U0",
        "-M",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ]
    if staged:
        args.append("--cached")
    changes = _parse_patch(_git(root, *args, ref, "--", "."))
    if not staged:
        for path in _git(root, "ls-files", "--others", "--exclude-standard", "-z").split("\0"):
            if path:
                data = safefs.read_or_none(root / path, root=root)  # a FIFO, a folder of mode 000
                lines = data.count(b"\n") + 1 if data is not None else 0
                changes.append(FileChange("", path, frozenset(), frozenset(range(1, lines + 1))))
    return sorted(changes, key=lambda c: (c.new_path or c.old_path, c.old_path))


def _parse_patch(text: str) -> list[FileChange]:
    """``git diff -U0 -M`` output: each file's paths and the line numbers its hunks remove and add."""
    found: list[FileChange] = []
    old = new = ""
    removed: set[int] = set()
    added: set[int] = set()
    started = False

    def close() -> None:
        if started and (old or new):
            found.append(FileChange(old, new, frozenset(removed), frozenset(added)))

    for line in text.splitlines():
        if line.startswith("diff --git "):
            close()
            started, old, new = True, "", ""
            removed, added = set(), set()
            a, _, b = line[len("diff --git a/") :].partition(" b/")
            old, new = a, b  # replaced by the ---/+++ or rename lines when present
        elif line.startswith("rename from "):
            old = line[len("rename from ") :]
        elif line.startswith("rename to "):
            new = line[len("rename to ") :]
        elif line.startswith("new file mode"):
            old = ""
        elif line.startswith("deleted file mode"):
            new = ""
        elif line.startswith("--- "):
            old = "" if line == "--- /dev/null" else line[len("--- a/") :]
        elif line.startswith("+++ "):
            new = "" if line == "+++ /dev/null" else line[len("+++ b/") :]
        elif line.startswith("@@ "):
            minus, plus = line.split(" ")[1:3]
            removed.update(_range(minus[1:]))
            added.update(_range(plus[1:]))
    close()
    return found


def _range(text: str) -> range:
    start, _, count = text.partition(",")
    first, length = int(start), int(count) if count else 1
    return range(first, first + length)


def _symbols(path: str, data: bytes | None, languages: dict[str, str]) -> list[Symbol]:
    """The definitions of one side of a file (none for a file no language indexes)."""
    if data is None or not path:
        return []
    language = language_of(path, languages)
    if language is None:
        return []
    index = index_source(path, language, data)
    if index is None:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    found = []
    for d in index.definitions:
        if not d.qualname:
            continue
        text = textwrap.dedent("\n".join(lines[d.line - 1 : d.end_line]))
        body = textwrap.dedent("\n".join(lines[d.line : d.end_line])).strip()
        found.append(Symbol(keys.first_party(path, d.qualname), path, d, text, body))
    return found


def _innermost(symbols: list[Symbol], lines: Iterable[int], text: list[str]) -> tuple[set[str], bool]:
    """The keys of the innermost definitions around the non-blank lines, and whether a line is
    outside them all (a module-level change)."""
    touched: set[str] = set()
    outside = False
    for number in lines:
        if number > len(text) or not text[number - 1].strip():
            continue
        around = [s for s in symbols if s.definition.line <= number <= s.definition.end_line]
        if around:
            inner = min(around, key=lambda s: (s.definition.end_line - s.definition.line, -s.definition.line))
            touched.add(inner.key)
        else:
            outside = True
    return touched, outside


@dataclass(frozen=True)
class Changed:
    change: str
    new: Symbol | None
    old: Symbol | None
    module: str = ""  # a module-level change: the module's key (its path)

    @property
    def key(self) -> str:
        if self.module:
            return self.module
        symbol = self.new or self.old
        assert symbol is not None
        return symbol.key


def changed_symbols(root: Path, base: str | None, staged: bool) -> list[Changed]:
    """The symbols the diff changes, moves and renames matched by their text."""
    languages = extension_map(all_languages().values())
    ref = base or "HEAD"
    found: list[Changed] = []
    removed: list[Symbol] = []
    added: list[Symbol] = []
    for change in read_diff(root, base, staged):
        old_data = _show(root, f"{ref}:./{change.old_path}") if change.old_path else None
        if not change.new_path:
            new_data = None
        elif staged:
            new_data = _show(root, f":./{change.new_path}")
        else:
            file = root / change.new_path
            new_data = safefs.read_or_none(file, root=root)
        old_syms = _symbols(change.old_path, old_data, languages)
        new_syms = _symbols(change.new_path, new_data, languages)
        old_text = (old_data or b"").decode("utf-8", errors="replace").splitlines()
        new_text = (new_data or b"").decode("utf-8", errors="replace").splitlines()
        old_touched, old_outside = _innermost(old_syms, change.old_lines, old_text)
        new_touched, new_outside = _innermost(new_syms, change.new_lines, new_text)
        old_by_qual = {s.definition.qualname: s for s in old_syms}
        new_by_qual = {s.definition.qualname: s for s in new_syms}
        moved_file = bool(change.old_path and change.new_path and change.old_path != change.new_path)
        for qualname in sorted(set(old_by_qual) | set(new_by_qual)):
            before, after = old_by_qual.get(qualname), new_by_qual.get(qualname)
            if before is not None and after is not None:
                touched = before.key in old_touched or after.key in new_touched
                if not touched and not moved_file:
                    continue
                if before.definition.signature != after.definition.signature:
                    found.append(Changed("signature-changed", after, before))
                elif touched and before.text != after.text:
                    found.append(Changed("body-changed", after, before))
                elif moved_file:
                    found.append(Changed("moved", after, before))
            elif after is not None and (after.key in new_touched or not change.old_path or moved_file):
                added.append(after)
            elif before is not None and (before.key in old_touched or not change.new_path or moved_file):
                removed.append(before)
        if (old_outside or new_outside) and change.new_path and change.old_path:
            found.append(Changed("body-changed", None, None, module=change.new_path))
    found += _matched(removed, added)
    return sorted(found, key=lambda c: (c.key, c.change))


def _matched(removed: list[Symbol], added: list[Symbol]) -> list[Changed]:
    """Removed and added definitions paired by their text (moved) or their body (renamed); the
    rest stay removed and added."""
    found: list[Changed] = []
    left = sorted(removed, key=lambda s: s.key)
    for field, change in (("text", "moved"), ("body", "renamed")):
        by_text: dict[str, list[Symbol]] = {}
        for s in left:
            value = getattr(s, field)
            if value:
                by_text.setdefault(value, []).append(s)
        unmatched = []
        for s in sorted(added, key=lambda s: s.key):
            candidates = by_text.get(getattr(s, field), [])
            if candidates:
                old = candidates.pop(0)
                left.remove(old)
                found.append(Changed(change, s, old))
            else:
                unmatched.append(s)
        added = unmatched
    found += [Changed("removed", None, s) for s in left]
    found += [Changed("added", s, None) for s in added]
    return found


def changes(
    engine: QueryEngine,
    root: Path,
    base: str | None = None,
    staged: bool = False,
    depth: int = 2,
    limit: int = 20,
) -> dict[str, Any]:
    """Each changed symbol with its impact radius, uncertain callers and the tests that reach it."""
    from projectgraph.query import QueryError

    symbols = []
    for changed in changed_symbols(root, base, staged):
        entry: dict[str, Any] = {"key": changed.key, "change": changed.change}
        old, new = changed.old, changed.new
        if old is not None and new is not None and old.key != new.key:
            entry["from"] = old.key
        shown = new or old
        if shown is not None:
            d = shown.definition
            entry |= {"kind": d.kind, "path": shown.path, "line": d.line, "end_line": d.end_line}
            if changed.change == "signature-changed" and old is not None:
                entry["signature"] = {"old": old.definition.signature, "new": d.signature}
        else:
            entry |= {"kind": "module", "path": changed.key, "line": 1, "end_line": 0}
        if old is not None and (new is None or new.definition.name != old.definition.name):
            # a removal or a rename: the calls of the old name the graph still holds unresolved
            entry["stillCalled"] = engine.calls_of_name(old.definition.name, limit)
        if changed.change == "removed":
            entry["inGraph"] = False
        else:
            try:
                impact = engine.impact(changed.key, depth, limit=limit)
            except QueryError:
                entry["inGraph"] = False  # the stored graph does not hold it (a staged version)
            else:
                entry["inGraph"] = True
                entry["impact"] = _radius(impact, limit)
                entry["tests"] = engine.tests_reaching(changed.key, limit)
        symbols.append(entry)
    counts = {c: sum(1 for s in symbols if s["change"] == c) for c in CHANGES}
    return {
        "base": base or "HEAD",
        "side": "index" if staged else "working tree",
        "counts": {c: n for c, n in counts.items() if n},
        "symbols": symbols,
    }


def _radius(impact: dict[str, Any], limit: int) -> dict[str, Any]:
    rest = impact["impacted"][1:]
    return {
        "total": len(rest),
        "truncated": len(rest) > limit,
        "impacted": [{"key": i["key"], "depth": i["depth"]} for i in rest[:limit]],
        "byDepth": impact["byDepth"],
        "uncertain": impact["uncertain"],
        "status": impact["status"],
    }
