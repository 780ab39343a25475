"""The taxonomy file (``projectgraph-docs.toml`` at the project root): the document kinds, the
relations a document may declare, and the anchor kinds with their resolver and governed scope.

```toml
id_key = "id"                 # the front matter key of a document's identifier (default "id")
relations_key = "relations"   # the front matter key of its relation block (default "relations")
corpus = "docs"               # the folder prose links are relative to for a leading "/" ("" = the root)
exclude = ["docs/archive/**"] # census rows excluded from the corpus (still in the path index)

[kinds.design]                # a document kind; a document has it by `kind: design` in its front
paths = ["docs/design/*.md"]  # matter, or by its path matching one of these globs

[relations.governs]
to = ["source"]               # kinds and anchor kinds a target may be (required)
inverse = "governed_by"       # the name of the other half; a document may write either
reciprocal = false            # both halves are written (a check finds the missing half)
lifecycle = false             # lifecycle-sensitive (a check reads it; resolution never does)

[anchors.source]
resolver = "source-tree"      # the one resolver of this anchor kind (by name)
scope = ["src/**"]            # what documents of the corpus may govern through it
```

The stage reads only what edge resolution needs and validates nothing else: the meta-schema of the
file (unknown keys, wrong types) is a ``TaxonomyError`` naming the key. A relation that declares no
``to`` is refused once, against its declaration (``refused``), not once per target.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from projectgraph.tomlfile import read_table

TAXONOMY_FILE = "projectgraph-docs.toml"


class TaxonomyError(ValueError):
    """The taxonomy file cannot be read or has the wrong shape."""


@dataclass(frozen=True)
class RelationDecl:
    name: str
    to: tuple[str, ...]
    inverse: str = ""
    reciprocal: bool = False
    lifecycle: bool = False


@dataclass(frozen=True)
class AnchorDecl:
    name: str
    resolver: str
    scope: tuple[str, ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    kinds: dict[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> path globs
    relations: dict[str, RelationDecl] = field(default_factory=dict)
    anchors: dict[str, AnchorDecl] = field(default_factory=dict)
    refused: tuple[tuple[str, str], ...] = ()  # (relation, why) of each declaration refused once
    id_key: str = "id"
    relations_key: str = "relations"
    corpus: str = ""
    exclude: tuple[str, ...] = ()
    source: str = ""  # where it was read

    def relation(self, written: str) -> tuple[RelationDecl, bool] | None:
        """The declaration of a relation as a document writes it, and whether it is the inverse half."""
        if written in self.relations:
            return self.relations[written], False
        for decl in self.relations.values():
            if decl.inverse == written:
                return decl, True
        return None

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every relation name a document (or a template) can write: the names and their inverses."""
        names = set(self.relations)
        names.update(d.inverse for d in self.relations.values() if d.inverse)
        names.update(name for name, _ in self.refused)
        return frozenset(names)


_TOP = {"id_key", "relations_key", "corpus", "exclude", "kinds", "relations", "anchors"}
_RELATION = {"to", "inverse", "reciprocal", "lifecycle"}
_ANCHOR = {"resolver", "scope"}
_KIND = {"paths"}


def load_taxonomy(root: Path) -> Taxonomy | None:
    """The taxonomy of the project under ``root``, or None when it has no taxonomy file."""
    path = root / TAXONOMY_FILE
    if not path.is_file() or path.is_symlink():
        return None
    table = read_table(path, TaxonomyError)
    return parse_taxonomy(table, str(path))


def parse_taxonomy(table: dict[str, Any], where: str = TAXONOMY_FILE) -> Taxonomy:
    _known(table, _TOP, where)
    kinds: dict[str, tuple[str, ...]] = {}
    for name, raw in _table(table, "kinds", where).items():
        spec = _mapping(raw, f"{where}: kinds.{name}")
        _known(spec, _KIND, f"{where}: kinds.{name}")
        kinds[name] = _strings(spec.get("paths", []), f"{where}: kinds.{name}.paths")
    anchors: dict[str, AnchorDecl] = {}
    for name, raw in _table(table, "anchors", where).items():
        spec = _mapping(raw, f"{where}: anchors.{name}")
        _known(spec, _ANCHOR, f"{where}: anchors.{name}")
        resolver = spec.get("resolver")
        if not isinstance(resolver, str) or not resolver:
            raise TaxonomyError(f"{where}: anchors.{name} needs a resolver name")
        if name in kinds:
            raise TaxonomyError(f"{where}: {name!r} is both a document kind and an anchor kind")
        anchors[name] = AnchorDecl(
            name, resolver, _strings(spec.get("scope", []), f"{where}: anchors.{name}.scope")
        )
    relations: dict[str, RelationDecl] = {}
    refused: list[tuple[str, str]] = []
    for name, raw in _table(table, "relations", where).items():
        spec = _mapping(raw, f"{where}: relations.{name}")
        _known(spec, _RELATION, f"{where}: relations.{name}")
        to = _strings(spec.get("to", []), f"{where}: relations.{name}.to")
        if not to:
            refused.append((name, "the relation declares no 'to'"))
            continue
        unknown = [t for t in to if t not in kinds and t not in anchors]
        if unknown:
            raise TaxonomyError(
                f"{where}: relations.{name}.to names no kind or anchor kind: {', '.join(unknown)}"
            )
        inverse = spec.get("inverse", "")
        if not isinstance(inverse, str):
            raise TaxonomyError(f"{where}: relations.{name}.inverse must be a string")
        relations[name] = RelationDecl(
            name, to, inverse, _flag(spec, "reciprocal", where, name), _flag(spec, "lifecycle", where, name)
        )
    written = [*relations, *(d.inverse for d in relations.values() if d.inverse)]
    twice = sorted({n for n in written if written.count(n) > 1})
    if twice:
        raise TaxonomyError(f"{where}: relation name(s) declared twice: {', '.join(twice)}")
    corpus = table.get("corpus", "")
    if not isinstance(corpus, str):
        raise TaxonomyError(f"{where}: corpus must be a folder path")
    return Taxonomy(
        kinds=kinds,
        relations=relations,
        anchors=anchors,
        refused=tuple(refused),
        id_key=_key(table, "id_key", "id", where),
        relations_key=_key(table, "relations_key", "relations", where),
        corpus=corpus.strip("/"),
        exclude=_strings(table.get("exclude", []), f"{where}: exclude"),
        source=where,
    )


def _known(table: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise TaxonomyError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )


def _table(table: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    return _mapping(table.get(name, {}), f"{where}: {name}")


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TaxonomyError(f"{where} must be a table")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaxonomyError(f"{where} must be a list of strings")
    return tuple(value)


def _flag(spec: dict[str, Any], name: str, where: str, relation: str) -> bool:
    value = spec.get(name, False)
    if not isinstance(value, bool):
        raise TaxonomyError(f"{where}: relations.{relation}.{name} must be true or false")
    return value


def _key(table: dict[str, Any], name: str, default: str, where: str) -> str:
    value = table.get(name, default)
    if not isinstance(value, str) or not value:
        raise TaxonomyError(f"{where}: {name} must be a non-empty string")
    return value
