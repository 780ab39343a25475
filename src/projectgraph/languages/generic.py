"""The generic tier: one extractor for every language whose rules fit in a tree-sitter query.

A generic language is one folder: ``queries.scm`` says which node is what, and ``__init__.py`` builds
a :class:`GenericLanguage` (the few facts a query cannot say: name separators, the receiver names of
the instance, how an import names a file) whose ``spec`` is the folder's ``LANGUAGES`` entry and
whose ``extract`` is its extractor. No language needs Python of its own.

The query's vocabulary. A pattern's *kind* is its one capture named after a kind; the other captures
are its fields; a capture whose name starts with ``_`` only serves a predicate.

- ``@definition.<kind>`` a definition (``function``, ``method``, ``constructor``, ``class``,
  ``struct``, ``interface``, ``trait``, ``enum``, ``module``, ...). Fields: ``@name`` (a qualified
  name such as ``Shape::area`` or ``M.new`` is split on the language's separators into containers
  and the name), ``@body`` (the definition spans its node and its body, which may be a sibling, as
  in Dart), ``@doc`` (a doc comment inside the node, as MATLAB's help text), ``@base`` (a base type
  as written). A function directly inside a type is a ``method``; a method named after its type or
  in ``constructor_names`` is a ``constructor``.
- ``@scope`` a container that defines nothing (a C++ namespace), with ``@name``; ``@scope.<kind>``
  one whose functions are methods of a type (``@scope.extension``: a Swift extension).
- ``@call`` / ``@call.new`` a call / a construction (``new Foo()``). Fields: ``@call.name`` the
  called name; ``@call.callee`` the callee expression, whose text before the name (less the member
  separator) is the receiver; ``@call.receiver`` the receiver node itself; ``@call.member`` marks a
  call on a receiver the query cannot capture.
- ``@import`` / ``@import.<kind>`` an import (kind ``include``, ``require``, ``use``, ...). Fields:
  ``@import.module`` (as written, quotes stripped), ``@import.name``, ``@import.alias``,
  ``@import.star``.
- ``@comment`` a comment: the block of comments that ends on the line above a definition is its doc.

Several matches of one node (a call matched with and without its receiver) merge: the one with more
fields wins. A call that is also an import (``require("x")``) is the import only. Scopes follow the
definitions in byte order with a stack; a call's scope is its nearest enclosing function (type
bodies are transparent, as in the deep languages, unless they run when the type is constructed),
an assembly label runs to the next label.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectgraph.fileindex import CALL_TEXT_MAX, Call, Definition, FileIndex, Import
from projectgraph.languages.base import (
    CAPTURE,
    DeclarationError,
    LanguageSpec,
    StandardLibrary,
    folder_text,
    kind_query,
    read_declaration,
    record_values,
    short_text,
    uncommented,
)

if TYPE_CHECKING:
    from tree_sitter import Node, Query

# Definition kinds whose functions are methods and whose name can be a receiver's type.
TYPE_KINDS = frozenset(
    {
        "class",
        "struct",
        "interface",
        "trait",
        "enum",
        "object",
        "record",
        "union",
        "protocol",
        "mixin",
        "type",
        "extension",
    }
)
# Containers of functions that stay functions.
MODULE_KINDS = frozenset({"module", "namespace", "package"})
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro", "test"})
_FIELDS = {
    "definition": frozenset({"name", "body", "doc", "base"}),
    "call": frozenset({"call.name", "call.callee", "call.receiver", "call.member"}),
    "import": frozenset({"import.module", "import.name", "import.alias", "import.star"}),
}
_ALL_FIELDS = frozenset().union(*_FIELDS.values())
_SIMPLE_RECEIVER = re.compile(r"[A-Za-z_$@\\][\w$@]*(?:(?:\?\.|\.|::|->|\\|:)[A-Za-z_$@][\w$@]*)*")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
_MEMBER_SEPARATOR = re.compile(r"(?:\?\.|\?->|\.|::|->|:|\\|\$)\s*$")
_QUOTES = "\"'`<>"
# what opens or closes a comment line, longest first
_COMMENT_MARKERS = re.compile(
    r"^\s*(?:/\*\*|/\*!|/\*|\*/|///|//!|//|#'|##|#|---|--|%\{|%\}|%%|%|;+|\*)+\s?|\s*\*/\s*$"
)
_XML_TAG = re.compile(r"</?\w[^>]*>")


# the generic tier's root rules, which a language's record names (``GenericLanguage.roots``)
TEST_ROOTS = str(Path(__file__).with_name("generic-roots.yaml"))
MAIN_ROOTS = str(Path(__file__).with_name("generic-main-roots.yaml"))


@dataclass(frozen=True)
class GenericLanguage:
    """A language of the generic tier: its query beside ``source`` and the facts a query cannot hold.

    ``imports`` maps an import kind to groups of path templates that name the imported file: within
    a group every template that matches one file gives an edge; the first group that matches wins.
    A template starting ``./`` is relative to the importing file's folder, ``**/`` matches the end of
    any path, any other is relative to the project root. Placeholders: ``{module}`` as written,
    ``{path}`` the module with its separators made ``/``, ``{path_tail}`` the same less its first
    part, ``{dashed}`` lower case with ``-`` for separators (GNAT's file names), ``{package}`` a
    Dart ``package:name/rest`` URI's ``rest``.
    """

    name: str
    module: str  # the language package, whose ``extract`` is this object's extractor
    source: str  # a file of the folder (``__file__``): queries.scm is beside it
    extensions: tuple[str, ...]
    grammar: str
    separators: tuple[str, ...] = (".",)
    self_names: tuple[str, ...] = ("this", "self")
    super_names: tuple[str, ...] = ()  # a receiver that is the instance seen as its base type
    constructor_names: tuple[str, ...] = ()
    new_methods: tuple[str, ...] = ()  # ``Foo.new`` constructs (Ruby)
    imports: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    family: str = ""  # languages of one family link names together (C and C++); default: the name
    flat: bool = False  # a definition runs to the next one (assembly labels)
    # calls in a type's body (field initializers) belong to the type, whose construction runs them;
    # False where a class body runs when its file loads (Ruby): they belong to the enclosing scope
    type_bodies_run_on_construction: bool = False
    query_file: str = "queries.scm"
    interpreters: tuple[str, ...] = ()  # what a shebang line names for a script of the language
    module_separator: str = "."  # how an external key's module is written (``LanguageSpec``'s)
    standard: StandardLibrary | None = None  # its standard library's names (``LanguageSpec``'s)
    # its root rules (``LanguageSpec.roots``): ``TEST_ROOTS`` (test files by their conventions) or
    # ``MAIN_ROOTS`` (those and a main function), the generic tier's files
    roots: str = ""

    @property
    def link_family(self) -> str:
        return self.family or self.name

    @cached_property
    def query_text(self) -> str:
        return folder_text(self.source, (self.query_file,))

    @cached_property
    def captures(self) -> frozenset[str]:
        """Every capture name the query uses."""
        return frozenset(CAPTURE.findall(uncommented(self.query_text)))

    @cached_property
    def spec(self) -> LanguageSpec:
        return LanguageSpec(
            name=self.name,
            extensions=self.extensions,
            grammar=self.grammar,
            extractor=f"{self.module}:extract",
            tier="generic",
            edge_kinds=self._edge_kinds(),
            extracts=self._extracts(),
            interpreters=self.interpreters,
            module_separator=self.module_separator,
            standard=self.standard,
            linker="projectgraph.link.generic:make_linker",
            roots=self.roots,
        )

    def _extracts(self) -> tuple[str, ...]:
        """What the extractor reads, from the query's capture names (so the table cannot drift)."""
        kinds = sorted({c.partition(".")[2] for c in self.captures if c.startswith("definition.")})
        if "function" in kinds and self.separators:
            kinds = sorted({*kinds, "method"})  # a function in a type, or named `Type::f`, is a method
        out = [_plural(kind) for kind in kinds]
        if "scope" in self.captures:
            out.append("namespaces")
        out.extend(_plural(c.partition(".")[2]) for c in sorted(self.captures) if c.startswith("scope."))
        if "call" in self.captures:
            receivers = {"call.callee", "call.receiver"} & self.captures
            out.append("calls with receivers" if receivers else "calls")
        if "call.new" in self.captures:
            out.append("constructions")
        import_kinds = sorted(
            c.partition(".")[2] or "import"
            for c in self.captures
            if c == "import" or (c.startswith("import.") and c not in _ALL_FIELDS)
        )
        if import_kinds == ["import"]:
            out.append("imports")
        elif import_kinds:
            out.append("imports (" + ", ".join(dict.fromkeys(import_kinds)) + ")")
        if "base" in self.captures:
            out.append("bases")
        if "comment" in self.captures or "doc" in self.captures:
            out.append("doc comments")
        out.append("signatures")
        return tuple(out)

    def _edge_kinds(self) -> tuple[str, ...]:
        """The edge kinds the generic linker can give this language's files."""
        kinds = []
        if {"call", "call.new"} & self.captures:
            kinds += ["direct", "name"]
        if self.imports:
            kinds.append("import")
        if "base" in self.captures:
            kinds += ["extends", "implements"]
        return tuple(kinds)

    # ---- extraction -----------------------------------------------------------------------------
    @cached_property
    def _compiled(self) -> tuple[Query, tuple[str, ...]]:
        """The query (with an ERROR pattern appended) and each pattern's kind."""
        return kind_query(self.grammar, self.query_text + "\n(ERROR) @error\n", _is_kind, self.name)

    def extract(self, tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
        """Build the FileIndex of one parsed file."""
        return _Extraction(self, source).run(tree.root_node, path, file_hash)


_ROOTS = {"main": MAIN_ROOTS, "test": TEST_ROOTS}


def from_folder(
    module: str, source: str
) -> tuple[GenericLanguage, tuple[LanguageSpec, ...], Callable[[Any, bytes, str, str], FileIndex]]:
    """The generic-tier language that the ``language.toml`` beside ``source`` declares (its package
    ``module``), with what the package exports: ``GENERIC, LANGUAGES, extract``.

    Each key is a field of ``GenericLanguage``: a list is a tuple, ``roots`` is ``main`` or ``test``
    (``MAIN_ROOTS``, ``TEST_ROOTS``), ``[imports]`` maps a kind to its groups of templates and
    ``[standard]`` holds the fields of a ``StandardLibrary`` (its sets as lists)."""
    path, data = read_declaration(source)
    values = record_values(path, data, GenericLanguage, frozenset({"module", "source"}))
    try:
        if "roots" in values:
            if values["roots"] not in _ROOTS:
                raise ValueError(f"roots = {values['roots']!r}: one of {', '.join(sorted(_ROOTS))}")
            values["roots"] = _ROOTS[values["roots"]]
        language = GenericLanguage(module=module, source=source, **values)
    except (TypeError, ValueError) as error:
        raise DeclarationError(f"{path}: not a language declaration ({error})") from None
    return language, (language.spec,), language.extract


def _is_kind(capture: str) -> bool:
    if capture.startswith("_") or capture in _ALL_FIELDS:
        return False
    head = capture.partition(".")[0]
    if head in ("definition", "import"):
        return True
    return head == "scope" or capture in ("call", "call.new", "comment", "error")


def _plural(kind: str) -> str:
    if kind.endswith("s"):
        return kind + "es"
    if kind.endswith("y"):
        return kind[:-1] + "ies"
    return kind + "s"


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _strip_quotes(text: str) -> str:
    text = text.strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def doc_line(text: str) -> str:
    """The first line of a comment's text that says something, without the comment markers."""
    for raw in text.splitlines():
        line = _XML_TAG.sub("", _COMMENT_MARKERS.sub("", raw)).strip()
        line = _COMMENT_MARKERS.sub("", line).strip()
        if line and any(ch.isalnum() for ch in line):
            return line[:200]
    return ""


_Captures = dict[str, list["Node"]]
_END = 1 << 62


class _Extraction:
    """One file's extraction: used once, returns what it collected."""

    def __init__(self, language: GenericLanguage, source: bytes) -> None:
        self.language = language
        self.source = source
        parts = sorted(language.separators, key=len, reverse=True)
        self.split_name = re.compile("|".join(re.escape(p) for p in parts)) if parts else None
        # scope entries in byte order: start, end, parent entry, qualname, nearest function's qualname
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.parents: list[int] = []
        self.functions: list[str] = []

    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        from tree_sitter import QueryCursor

        query, kinds = self.language._compiled
        # matches of one node merge (node equality is tree-sitter's node identity)
        definitions: dict[Node, tuple[str, _Captures]] = {}
        calls: dict[Node, tuple[str, _Captures]] = {}
        imports: dict[Node, tuple[str, _Captures, list[_Captures]]] = {}
        comments: dict[int, list[Node]] = {}  # by end line
        errors = 0
        for index, captures in QueryCursor(query).matches(root):
            kind = kinds[index]
            node = captures[kind][0]
            head = kind[0]
            if head == "c":
                if kind == "comment":
                    comments.setdefault(_last_row(node), []).append(node)
                    continue
                kept = calls.get(node)
                if kept is None or _call_score(captures) > _call_score(kept[1]):
                    calls[node] = (kind, captures)
            elif head == "d" or head == "s":
                dkept = definitions.get(node)
                if dkept is None:
                    definitions[node] = (kind, captures)
                else:  # another match of the node (one per base): merge; the named match's kind wins
                    if "name" in captures and "name" not in dkept[1]:
                        definitions[node] = (kind, dkept[1])
                    _merge(dkept[1], captures)
            elif head == "e":
                errors += 1
            else:
                ikept = imports.get(node)
                if ikept is None:
                    imports[node] = (kind, dict(captures), [captures])
                elif ikept[0] == kind:  # a path captured part by part, or one match per imported name
                    _merge(ikept[1], captures)
                    ikept[2].append(captures)
        found = [
            (node.start_byte, node.end_byte, kind, captures) for node, (kind, captures) in definitions.items()
        ]
        defs = self._definitions(found, comments, len(self.source), _last_row(root))
        call_records = [
            self._call(node, kind, captures)
            for node, (kind, captures) in calls.items()
            if node not in imports
        ]
        import_records = [
            record
            for node, (kind, merged, matches) in imports.items()
            for record in self._imports(kind, merged, matches, node.start_byte)
        ]
        return FileIndex(
            path=path,
            language=self.language.name,
            hash=file_hash,
            imports=tuple(sorted(set(import_records))),
            definitions=tuple(sorted(defs)),
            calls=tuple(sorted(set(call_records))),
            syntax_errors=errors,
            flags=("syntax-error",) if errors else (),
        )

    # ---- definitions -----------------------------------------------------------------------------
    def _definitions(
        self,
        found: list[tuple[int, int, str, _Captures]],
        comments: dict[int, list[Node]],
        size: int,
        last_row: int,
    ) -> list[Definition]:
        events = []
        for start, end, kind, captures in found:
            last = captures[kind][0]
            body = captures.get("body")
            if body:
                start = min(start, body[0].start_byte)
                if body[0].end_byte > end:
                    end, last = body[0].end_byte, body[0]
            events.append((start, -end, _last_row(last), kind, captures))
        events.sort(key=lambda e: (e[0], e[1]))
        if self.language.flat:  # each definition runs to the line before the next one
            flat = []
            for i, (start, _, row, kind, captures) in enumerate(events):
                if i + 1 < len(events):
                    following = events[i + 1]
                    end, row = following[0], max(row, following[4][following[3]][0].start_point[0] - 1)
                else:
                    end, row = size, last_row
                flat.append((start, -end, row, kind, captures))
            events = flat
        out: list[Definition] = []
        stack: list[int] = []  # entries
        containers: list[tuple[str, str]] = []  # per entry: qualname, kind
        previous: tuple[int, int] | None = None
        for start, neg_end, end_row, capture_kind, captures in events:
            if (start, neg_end) == previous:
                continue  # one node matched by two patterns: the first in query order wins
            previous = (start, neg_end)
            while stack and self.ends[stack[-1]] <= start:
                stack.pop()
            parent = stack[-1] if stack else -1
            outer, outer_kind = containers[parent] if parent >= 0 else ("", "")
            names = captures.get("name")
            raw = (
                ".".join(_strip_quotes(_TEMPLATE_ARGS.sub("", _text(self.source, n))) for n in names)
                if names
                else ""
            )
            parts = [p.strip() for p in (self.split_name.split(raw) if self.split_name else [raw])]
            parts = [p for p in parts if p]
            name = parts[-1] if parts else ""
            qualname = ".".join(p for p in (outer, *parts) if p)
            # a scope's kind is its suffix (``@scope.extension`` holds methods) or "scope"
            kind = capture_kind.partition(".")[2] or "scope"
            is_scope = capture_kind.startswith("scope")
            if kind == "function" and (outer_kind in TYPE_KINDS or len(parts) > 1):
                kind = "method"
            if kind == "method":
                owner = parts[-2] if len(parts) > 1 else outer.rpartition(".")[2]
                if name and (name == owner or name in self.language.constructor_names):
                    kind = "constructor"
            node = captures[capture_kind][0]
            self.starts.append(start)
            self.ends.append(-neg_end)
            self.parents.append(parent)
            # a type's body runs when it is constructed (field initializers, a Kotlin supertype's
            # constructor call) or, in a language whose class bodies run at load, with its container
            callable_ = kind in CALLABLE_KINDS or (
                self.language.type_bodies_run_on_construction and kind in TYPE_KINDS and not is_scope
            )
            self.functions.append(qualname if callable_ else (self.functions[parent] if parent >= 0 else ""))
            containers.append((qualname, kind))
            stack.append(len(self.starts) - 1)
            if is_scope or not name:
                continue
            line = node.start_point[0] + 1
            body = captures.get("body")
            out.append(
                Definition(
                    line=min(line, body[0].start_point[0] + 1) if body else line,
                    end_line=end_row + 1,
                    kind=kind,
                    name=name,
                    qualname=qualname,
                    column=node.start_point[1],
                    signature=self._signature(node, body[0] if body else None),
                    doc=self._doc(node, captures.get("doc"), comments),
                    bases=tuple(_strip_quotes(_text(self.source, b)) for b in captures.get("base", ())),
                )
            )
        return out

    def _signature(self, node: Node, body: Node | None) -> str:
        end = node.end_byte
        if body is not None and node.start_byte < body.start_byte < end:
            end = body.start_byte
        raw = self.source[node.start_byte : min(end, node.start_byte + 1000)]
        if body is None or end == node.end_byte:
            raw = raw.split(b"\n", 1)[0]
        text = " ".join(raw.decode("utf-8", "replace").split())
        return text.rstrip("{:=; ").rstrip()[:200]

    def _doc(self, node: Node, inner: list[Node] | None, comments: dict[int, list[Node]]) -> str:
        if inner:
            return doc_line(_text(self.source, inner[0]))
        line = node.start_point[0]  # 0-based: the comment must end on line - 1
        block: list[Node] = []
        while True:
            above = [c for c in comments.get(line - 1, ()) if self._starts_line(c)]
            if not above:
                break
            block.insert(0, above[-1])
            line = above[-1].start_point[0]
        for comment in block:
            text = doc_line(_text(self.source, comment))
            if text:
                return text
        return ""

    def _starts_line(self, node: Node) -> bool:
        """Whether only blanks come before the node on its line (a comment of its own, not a tail)."""
        start = node.start_byte
        line_start = self.source.rfind(b"\n", 0, start) + 1
        return not self.source[line_start:start].strip()

    def scope_at(self, position: int) -> str:
        """The nearest enclosing function's qualified name at a byte offset ("" for the top level)."""
        j = bisect_right(self.starts, position) - 1
        while j >= 0 and self.ends[j] <= position:
            j = self.parents[j]
        return self.functions[j] if j >= 0 else ""

    # ---- calls and imports -----------------------------------------------------------------------
    def _call(self, node: Node, kind: str, captures: _Captures) -> Call:
        # a node property costs about a microsecond: each is read once
        source = self.source
        start = node.start_byte
        end = node.end_byte
        point_node = node
        found = captures.get("call.name")
        name_node = found[0] if found else None
        name_start = name_end = 0
        if name_node is not None:
            name_start, name_end = name_node.start_byte, name_node.end_byte
            if name_start < start:
                start, point_node = name_start, name_node
        name = source[name_start:name_end].decode("utf-8", "replace").strip()
        if "<" in name:
            name = _TEMPLATE_ARGS.sub("", name).strip()
        if " " in name:  # ``obj.template get<T>()``
            name = name.split()[-1]
        receiver: str | None = None
        separator = "."
        found = captures.get("call.receiver")
        if found:
            receiver_node = found[0]
            receiver_start, receiver_end = receiver_node.start_byte, receiver_node.end_byte
            if receiver_start < start:
                start, point_node = receiver_start, receiver_node
            receiver = source[receiver_start:receiver_end].decode("utf-8", "replace")
            if name_node is not None and receiver_end <= name_start:
                between = source[receiver_end:name_start].decode("utf-8", "replace")
                separator = "".join(between.split())[:3] or "."
        elif "call.callee" in captures and name_node is not None:
            callee_node = captures["call.callee"][0]
            callee_start = callee_node.start_byte
            if callee_start < start:
                start, point_node = callee_start, callee_node
            if callee_start < name_start:
                prefix = source[callee_start:name_start].decode("utf-8", "replace").rstrip()
                separator_match = _MEMBER_SEPARATOR.search(prefix)
                if separator_match is not None:
                    separator, prefix = separator_match.group().strip(), prefix[: separator_match.start()]
                receiver = prefix or None
        elif "call.member" in captures:
            receiver = "<expr>"
        if receiver is not None:
            receiver = _receiver(receiver)
        if not name:
            callee = "<expr>"
        elif receiver is None:
            callee = name
        else:
            callee = f"{receiver}{separator}{name}"
        row, column = point_node.start_point
        return Call(
            row + 1,
            column,
            self.scope_at(start),
            callee,
            name,
            receiver,
            0,
            short_text(source[start:end], CALL_TEXT_MAX),
            kind == "call.new",
        )

    def _module(self, captures: _Captures) -> str:
        """The module as written: the span of its nodes (a path captured part by part), unquoted."""
        nodes = captures.get("import.module")
        if not nodes:
            return ""
        start = min(n.start_byte for n in nodes)
        end = max(n.end_byte for n in nodes)
        return _strip_quotes("".join(self.source[start:end].decode("utf-8", "replace").split()))

    def _imports(self, kind: str, merged: _Captures, matches: list[_Captures], start: int) -> list[Import]:
        """One import node's records: one per name it imports (with its alias), else one."""
        node = merged[kind][0]
        module = self._module(merged)
        names: dict[str | None, str | None] = {}
        for captures in matches:
            name = captures.get("import.name")
            alias = captures.get("import.alias")
            key = _text(self.source, name[0]).strip() if name else None
            if alias or key not in names:
                names[key] = _text(self.source, alias[0]).strip() if alias else None
        if len(names) > 1:
            names.pop(None, None)  # the match that saw no name
        line = node.start_point[0] + 1
        scope = self.scope_at(start)
        star = "import.star" in merged
        import_kind = kind.partition(".")[2] or "import"
        return [
            Import(line, module, name, alias, star=star, kind=import_kind, scope=scope)
            for name, alias in names.items()
        ]


def _merge(kept: _Captures, new: _Captures) -> None:
    """Fold another match of one node into the first: lists of bases and path parts grow, other
    fields fill in when missing."""
    for key, nodes in new.items():
        if key in ("base", "import.module"):
            have = kept.setdefault(key, [])
            have.extend(n for n in nodes if n not in have)
        elif key not in kept:
            kept[key] = nodes


def _call_score(captures: _Captures) -> int:
    """How much a match tells of a call: a receiver beats a mere mark of one, which beats nothing."""
    if "call.receiver" in captures or "call.callee" in captures:
        return 2
    return 1 if "call.member" in captures else 0


def _receiver(text: str) -> str:
    """A receiver as written when it is a name chain; ``<call>`` for a call's result, else ``<expr>``."""
    text = "".join(text.split())
    if _SIMPLE_RECEIVER.fullmatch(text):
        return text
    return "<call>" if text.endswith(")") else "<expr>"


def _last_row(node: Node) -> int:
    """The 0-based last line of a node, not counting a final newline it ends with."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


__all__ = ["CALLABLE_KINDS", "MODULE_KINDS", "TYPE_KINDS", "GenericLanguage", "doc_line"]
