"""OSV advisories read from local files: no network.

A file holds one advisory (an object, as the OSV database exports them, ``<ID>.json``) or a list
of them; a folder is read recursively, its ``*.json`` files in path order. Of an advisory this
module keeps its id, aliases, summary, and each ``affected`` entry's package (ecosystem and name),
ranges, listed versions and the symbols it names:

- ``ecosystem_specific.imports[]`` (Go, and the same form in any ecosystem): ``{"path":
  "golang.org/x/net/html", "symbols": ["Tokenizer.Next", "Parse"]}``: the import path and the
  names under it;
- ``ecosystem_specific.affects.functions`` (crates.io, RustSec): ``"smallvec::SmallVec::insert_many"``;
- ``ecosystem_specific`` or ``database_specific`` ``affected_functions`` / ``symbols``: a PyPI dotted
  name (``"yaml.load"``, ``"yaml.constructor.FullConstructor"``), a Rust path, or a key (with
  ``//``, as ``lodash//template``).

Each symbol becomes the external key other code writes for it (``golang.org//x//net//html//
Tokenizer//Next``, ``yaml//load``, ``smallvec//SmallVec//insert_many``). An advisory that names no
symbol is answered at the level of its package. A file that is not JSON or not an advisory is an
``AdvisoryError`` naming the file; an advisory entry of an ecosystem this module does not compare is
kept and matches no package.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph import keys
from projectgraph.audit.versions import Range
from projectgraph.languages import advisory_language

ECOSYSTEMS = ("PyPI", "npm", "Go", "crates.io")


class AdvisoryError(ValueError):
    """An advisory file that cannot be read as OSV, with the file and the place named."""


@dataclass(frozen=True)
class Affected:
    """One ``affected`` entry: a package, the versions it affects, and the symbols it names."""

    ecosystem: str
    package: str
    ranges: tuple[Range, ...]
    versions: tuple[str, ...]
    symbols: tuple[str, ...]  # external keys, sorted; empty: the package as a whole


@dataclass(frozen=True)
class Advisory:
    id: str
    aliases: tuple[str, ...]
    summary: str
    affected: tuple[Affected, ...]
    source: str = ""
    withdrawn: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "aliases": list(self.aliases), "summary": self.summary, "source": self.source}


def read(paths: Iterable[str | Path]) -> list[Advisory]:
    """Every advisory of the files and folders, sorted by id (one id read twice: an error)."""
    found: dict[str, Advisory] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*.json") if p.is_file())
        elif path.is_file():
            files = [path]
        else:
            raise AdvisoryError(f"{path}: no such file or folder")
        for file in files:
            for advisory in read_file(file):
                if advisory.id in found and found[advisory.id] != advisory:
                    raise AdvisoryError(
                        f"{file}: advisory {advisory.id} is also in {found[advisory.id].source}, differently"
                    )
                found[advisory.id] = advisory
    return [found[k] for k in sorted(found)]


def read_file(path: Path) -> list[Advisory]:
    where = str(path)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise AdvisoryError(f"{where}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise AdvisoryError(f"{where}: not JSON: {error}") from None
    items = value if isinstance(value, list) else [value]
    return [
        _advisory(item, where if len(items) == 1 else f"{where}[{i}]", where) for i, item in enumerate(items)
    ]


def _advisory(item: Any, where: str, source: str) -> Advisory:
    if not isinstance(item, dict):
        raise AdvisoryError(f"{where}: an advisory must be a JSON object")
    ident = item.get("id")
    if not isinstance(ident, str) or not ident:
        raise AdvisoryError(f"{where}: an advisory needs an 'id' string")
    affected = item.get("affected", [])
    if not isinstance(affected, list):
        raise AdvisoryError(f"{where}: 'affected' must be a list")
    aliases = item.get("aliases") or []
    return Advisory(
        id=ident,
        aliases=tuple(sorted(a for a in aliases if isinstance(a, str))),
        summary=str(item.get("summary") or item.get("details") or "").strip().split("\n")[0],
        affected=tuple(
            _affected(entry, f"{where}: {ident}: affected[{i}]") for i, entry in enumerate(affected)
        ),
        source=source,
        withdrawn=str(item.get("withdrawn") or ""),
    )


def _affected(entry: Any, where: str) -> Affected:
    if not isinstance(entry, dict):
        raise AdvisoryError(f"{where}: must be an object")
    package = entry.get("package")
    if not isinstance(package, dict) or not isinstance(package.get("name"), str):
        raise AdvisoryError(f"{where}: needs a 'package' with a 'name'")
    ecosystem = str(package.get("ecosystem") or "").split(":")[0]  # "Debian:11" is Debian's
    ranges = []
    for i, one in enumerate(entry.get("ranges") or []):
        if not isinstance(one, dict) or not isinstance(one.get("events"), list):
            raise AdvisoryError(f"{where}: ranges[{i}] needs a 'type' and a list of 'events'")
        events = []
        for event in one["events"]:
            if not isinstance(event, dict) or len(event) != 1:
                raise AdvisoryError(f"{where}: ranges[{i}]: an event is one of introduced, fixed, ...")
            [(kind, version)] = event.items()
            events.append((str(kind), str(version)))
        ranges.append(Range(str(one.get("type") or ""), tuple(events)))
    versions = tuple(str(v) for v in entry.get("versions") or [])
    return Affected(
        ecosystem, package["name"], tuple(ranges), versions, tuple(sorted(_symbols(entry, ecosystem)))
    )


def _symbols(entry: dict[str, Any], ecosystem: str) -> set[str]:
    found: set[str] = set()
    for table_name in ("ecosystem_specific", "database_specific"):
        table = entry.get(table_name)
        if not isinstance(table, dict):
            continue
        for item in table.get("imports") or []:
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                for symbol in item.get("symbols") or []:
                    if isinstance(symbol, str) and symbol:
                        found.add(import_symbol(ecosystem, item["path"], symbol))
        affects = table.get("affects")
        named: list[Any] = list(affects.get("functions") or []) if isinstance(affects, dict) else []
        named += list(table.get("affected_functions") or []) + list(table.get("symbols") or [])
        found.update(symbol_key(ecosystem, s) for s in named if isinstance(s, str) and s)
    return {s for s in found if s}


def import_symbol(ecosystem: str, path: str, symbol: str) -> str:
    """The key of a symbol (``Tokenizer.Next``) under an import path (``golang.org/x/net/html``,
    split at ``/`` where no language names the ecosystem)."""
    spec = advisory_language(ecosystem)
    separator = spec.module_separator if spec is not None else "/"
    return keys.SEP.join([*(p for p in path.split(separator) if p), *(n for n in symbol.split(".") if n)])


def symbol_key(ecosystem: str, text: str) -> str:
    """The key of a symbol as an advisory writes it: a key, a Rust path, or a dotted name."""
    if keys.SEP in text:
        return text
    if "::" in text:
        return keys.SEP.join(p for p in text.split("::") if p)
    if ecosystem == "npm":
        module, _, names = text.partition(":")  # lodash:template, lodash/fp:template
        return keys.join(import_symbol(ecosystem, module, ""), *names.split(".")) if names else text
    return keys.SEP.join(p for p in text.split(".") if p)


def symbols_of(advisories: Sequence[Advisory]) -> list[str]:
    return sorted({s for a in advisories for e in a.affected for s in e.symbols})
