"""The index record of one file: what linking needs, built from that file alone.

Conventions, stated once: lines are 1-based, columns 0-based (in bytes of the line). A *scope* is
the qualified name of the enclosing definition, with ``.`` between parts (``Parser.parse``); the
module top level is the empty scope ``""``. Names are as the source writes them. No tree-sitter
node and no source text past the short call text (``CALL_TEXT_MAX`` characters) lives here.

The per-site records (imports, definitions, calls, ...) are typed ``NamedTuple``s rather than frozen
dataclasses: a large file holds tens of thousands of them, and tuples are built, sorted, hashed,
pickled across the worker pool and encoded as JSON arrays in C, several times faster than frozen
dataclasses (measured on Django: the store's JSON shrank from 60 MB to a third). ``FileIndex``
itself is a frozen dataclass; ``to_json``/``from_json`` give its one deterministic, compact form.

``to_bytes``/``from_bytes`` give the binary form the store keeps and the worker pool hands back:
``marshal`` of plain tuples, which writes a string shared by many records once and reads back ten
times faster than JSON (Django's 2,788 files: 31 MB, about 0.3 s to decode every index). Its format
may change between Python versions, so ``CODEC`` names it with the record fields, and a stored row
of another codec is a miss.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

VERSION = 15
"""Bump when a rule that fills these records changes: every stored index then misses."""

CALL_TEXT_MAX = 80


class Import(NamedTuple):
    """One name an import statement binds.

    ``module`` is the module as written (``os.path``, ``./util``, ``""`` for ``from . import x``);
    ``name`` is the imported member (``None`` when the module itself is bound); ``alias`` is the
    local name bound (``None`` for ``import a.b``, which binds ``a``, and for side-effect imports).
    JavaScript: ``import x from 'm'`` is name ``default``; ``import * as ns`` and ``require('m')``
    bind the module (name ``None``).
    """

    line: int
    module: str
    name: str | None = None
    alias: str | None = None
    level: int = 0
    star: bool = False
    kind: str = "import"  # import | from | esm | require | dynamic
    scope: str = ""

    @property
    def bound(self) -> str | None:
        """The local name this import binds, or None."""
        if self.star:
            return None
        if self.alias:
            return self.alias
        if self.name is not None:
            return self.name
        if self.kind == "import":
            return self.module.split(".")[0]
        return None


class Export(NamedTuple):
    """A name a module exports (JS ``export``, Python ``__all__``), maybe re-exported ``from`` another."""

    line: int
    name: str  # exported name; "*" for ``export * from``; "default" for default export
    local: str | None = None  # local name it stands for
    module: str | None = None  # re-export source as written
    star: bool = False


class Param(NamedTuple):
    name: str
    type: str | None = None
    default: bool = False
    variadic: str = ""  # "" | "*" | "**" | "..."


class Definition(NamedTuple):
    """A function, method, class, or other named definition.

    ``qualname`` joins containers with ``.``; a function inside a function is ``outer.inner``.
    ``returns`` lists what the body returns that linking can read: a type annotation (``Foo``), a
    constructed or called name (``call:Foo``), a bare name (``name:inner``).
    """

    line: int
    end_line: int
    kind: str  # function | method | class | constructor | variable | property | ...
    name: str
    qualname: str
    column: int = 0
    signature: str = ""
    doc: str = ""
    bases: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    returns: tuple[str, ...] = ()
    exported: bool = True
    is_async: bool = False


class Call(NamedTuple):
    """A call site. ``callee`` is the callee text as written (``self.read``, ``yaml.load``);
    ``receiver`` the text before the last member access (``self``, ``yaml``, ``<call>`` for a call
    result, ``None`` for a bare name); ``name`` the last segment."""

    line: int
    column: int
    scope: str
    callee: str
    name: str
    receiver: str | None = None
    args: int = 0
    text: str = ""
    new: bool = False  # JS ``new X()``
    super_call: bool = False  # Python ``super().m()`` / JS ``super.m()``


class Reference(NamedTuple):
    """A function, class, or import used as a value (passed, stored, returned)."""

    line: int
    column: int
    scope: str
    name: str  # dotted text as written: ``process``, ``tasks.process``, ``self.handle``


class Assignment(NamedTuple):
    """``target = value`` facts for receivers and aliases.

    ``value`` is ``call:Foo`` (constructed/called), ``name:yaml.load`` (alias), or ``type:Foo``
    (declared type). ``target`` may be ``self.a``/``this.a``. A Python value opening with ``?``
    (``?call:Foo``) is one of a branch: the statement runs on some paths through its scope only
    (under an ``if``, a loop, an ``except``, a ``case``), so an earlier binding of the target may
    reach a later use as well.
    """

    line: int
    scope: str
    target: str
    value: str


class DynamicFlag(NamedTuple):
    """A dynamic feature: eval, exec, computed getattr, computed import/require.

    ``prefix`` is a static module prefix of a computed import when the source shows one."""

    line: int
    column: int
    scope: str
    kind: str  # eval | exec | getattr | import_module | __import__ | require | import
    prefix: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class FileIndex:
    path: str
    language: str
    hash: str
    imports: tuple[Import, ...] = ()
    exports: tuple[Export, ...] = ()
    definitions: tuple[Definition, ...] = ()
    calls: tuple[Call, ...] = ()
    references: tuple[Reference, ...] = ()
    assignments: tuple[Assignment, ...] = ()
    dynamic: tuple[DynamicFlag, ...] = ()
    main_guard: bool = False
    syntax_errors: int = 0
    flags: tuple[str, ...] = ()  # minified, generated, syntax-error, skeleton
    # attributes read, not called (Python: ``result.output``, whose property getter runs), one
    # record per scope, line and text; ``name`` is the dotted text as written
    reads: tuple[Reference, ...] = ()
    # every word of the file but the names its definitions bind, as a ``word_filter`` (0: not
    # computed): what says that a name occurs nowhere else, so nothing can call it by name
    words: int = 0

    def to_json(self) -> dict[str, Any]:
        """The compact JSON form: records as arrays in field order."""
        return _index_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileIndex:
        return _index_from_json(data)

    def to_bytes(self) -> bytes:
        """The binary form of ``CODEC``: what the store keeps and the worker pool hands back."""
        return _index_to_bytes(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> FileIndex:
        return _index_from_bytes(data)


_RECORDS: tuple[tuple[str, Any], ...] = (
    ("imports", Import),
    ("exports", Export),
    ("definitions", Definition),
    ("calls", Call),
    ("references", Reference),
    ("assignments", Assignment),
    ("dynamic", DynamicFlag),
    ("reads", Reference),
)


def _index_to_json(index: FileIndex) -> dict[str, Any]:
    out: dict[str, Any] = {"path": index.path, "language": index.language, "hash": index.hash}
    for name, _cls in _RECORDS:
        records = getattr(index, name)
        if records:
            out[name] = records  # NamedTuples encode as JSON arrays
    if index.main_guard:
        out["main_guard"] = True
    if index.syntax_errors:
        out["syntax_errors"] = index.syntax_errors
    if index.flags:
        out["flags"] = list(index.flags)
    if index.words:
        out["words"] = format(index.words, "x")
    return out


def _index_from_json(data: dict[str, Any]) -> FileIndex:
    rows = [data.get(name) or () for name, _ in _RECORDS]
    rows[2] = [  # definitions: bases, decorators, params and returns are arrays
        (*d[:8], tuple(d[8]), tuple(d[9]), tuple(map(_make_param, d[10])), tuple(d[11]), *d[12:])
        for d in rows[2]
    ]
    imports, exports, definitions, calls, references, assignments, dynamic, reads = (
        tuple(map(make, found)) for make, found in zip(_MAKERS, rows, strict=True)
    )
    return FileIndex(
        path=data["path"],
        language=data["language"],
        hash=data["hash"],
        imports=imports,
        exports=exports,
        definitions=definitions,
        calls=calls,
        references=references,
        assignments=assignments,
        dynamic=dynamic,
        reads=reads,
        main_guard=data.get("main_guard", False),
        syntax_errors=data.get("syntax_errors", 0),
        flags=tuple(data.get("flags", ())),
        words=int(data.get("words", "0"), 16),
    )


CODEC = "marshal{}-py{}.{}-{}".format(
    marshal.version,
    *sys.version_info[:2],
    hashlib.blake2b(
        repr(
            [list(FileIndex.__dataclass_fields__), *(c._fields for _, c in _RECORDS), Param._fields]
        ).encode(),
        digest_size=4,
    ).hexdigest(),
)
"""The binary form's name: marshal's format, the Python that wrote it, and the record fields."""

# tuple.__new__(cls, row) builds a NamedTuple from a row in C, without the generated __new__'s frame
_MAKERS = tuple(partial(tuple.__new__, cls) for _, cls in _RECORDS)
_make_param = partial(tuple.__new__, Param)


def _index_to_bytes(index: FileIndex) -> bytes:
    plain = tuple  # marshal takes exact tuples only, not NamedTuples
    rows = [
        [*map(plain, index.imports)],
        [*map(plain, index.exports)],
        [(*d[:10], [*map(plain, d[10])], *d[11:]) for d in index.definitions],
        [*map(plain, index.calls)],
        [*map(plain, index.references)],
        [*map(plain, index.assignments)],
        [*map(plain, index.dynamic)],
        [*map(plain, index.reads)],
    ]
    head = (
        index.path,
        index.language,
        index.hash,
        index.main_guard,
        index.syntax_errors,
        tuple(index.flags),
        index.words,
    )
    # the head first, with its length: ``index_words`` reads it without decoding the records
    written = marshal.dumps(head)
    return len(written).to_bytes(4, "little") + written + marshal.dumps(rows)


def _index_from_bytes(data: bytes) -> FileIndex:
    size = int.from_bytes(data[:4], "little")
    head = marshal.loads(data[4 : 4 + size])
    rows = marshal.loads(data[4 + size :])
    rows[2] = [(*d[:10], tuple(map(_make_param, d[10])), *d[11:]) for d in rows[2]]  # definitions' params
    imports, exports, definitions, calls, references, assignments, dynamic, reads = (
        tuple(map(make, found)) for make, found in zip(_MAKERS, rows, strict=True)
    )
    path, language, file_hash, main_guard, syntax_errors, flags, words = head
    return FileIndex(
        path,
        language,
        file_hash,
        imports,
        exports,
        definitions,
        calls,
        references,
        assignments,
        dynamic,
        main_guard,
        syntax_errors,
        flags,
        reads,
        words,
    )


_LAZY_FIELDS = (
    "imports",
    "exports",
    "definitions",
    "calls",
    "references",
    "assignments",
    "dynamic",
    "main_guard",
    "syntax_errors",
    "flags",
    "reads",
    "words",
)


class StoredIndex(FileIndex):
    """A stored index whose records are decoded on first use (``stored``: its ``CODEC`` form).

    A one-shot sync of a big project serves most files from the store and reads the records of
    only a few of them (the files a relink touches): decoding every index was most of its time.
    The path, language and hash are plain; every other field decodes the whole index once. It
    equals, hashes and pickles as the ``FileIndex`` it stands for."""

    def __init__(self, *args: Any, **fields: Any) -> None:
        """A plain index's fields (what ``dataclasses.replace`` gives): already decoded."""
        decoded = FileIndex(*args, **fields)
        object.__setattr__(self, "path", decoded.path)
        object.__setattr__(self, "language", decoded.language)
        object.__setattr__(self, "hash", decoded.hash)
        object.__setattr__(self, "_stored", None)
        object.__setattr__(self, "_decoded", decoded)

    @classmethod
    def of(cls, path: str, language: str, file_hash: str, stored: bytes) -> StoredIndex:
        """The index of a stored ``CODEC`` form, undecoded."""
        made = cls.__new__(cls)
        object.__setattr__(made, "path", path)
        object.__setattr__(made, "language", language)
        object.__setattr__(made, "hash", file_hash)
        object.__setattr__(made, "_stored", stored)
        object.__setattr__(made, "_decoded", None)
        return made

    @property
    def is_decoded(self) -> bool:
        return self.__dict__["_decoded"] is not None

    def decoded(self) -> FileIndex:
        """The plain index (decoded once)."""
        found: FileIndex | None = self.__dict__["_decoded"]
        if found is None:
            found = _index_from_bytes(self.__dict__["_stored"])
            object.__setattr__(self, "_decoded", found)
        return found

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredIndex):
            other = other.decoded()
        return self.decoded() == other

    def __hash__(self) -> int:
        return hash(self.decoded())

    def __repr__(self) -> str:
        return repr(self.decoded())

    def __reduce__(self) -> tuple[Any, ...]:
        decoded = self.decoded()  # (unpickled as the plain index)
        return (FileIndex, tuple(getattr(decoded, name) for name in FileIndex.__dataclass_fields__))


def _lazy_field(name: str) -> property:
    return property(lambda self: getattr(self.decoded(), name))


for _name in _LAZY_FIELDS:
    setattr(StoredIndex, _name, _lazy_field(_name))
del _name


def index_words(index: FileIndex) -> int:
    """The index's word filter, without decoding a ``StoredIndex`` (its head holds it)."""
    if isinstance(index, StoredIndex) and not index.is_decoded:
        data: bytes = index.__dict__["_stored"]
        size = int.from_bytes(data[:4], "little")
        words: int = marshal.loads(data[4 : 4 + size])[6]
        return words
    return index.words


def is_truncated(index: FileIndex) -> bool:
    """Whether the index was cut to a record limit (a stored one never is: the store keeps whole
    indexes, and a run cuts its own copy), without decoding a ``StoredIndex``."""
    if isinstance(index, StoredIndex) and not index.is_decoded:
        return False
    return "truncated" in index.flags


# A word filter is a Bloom filter in an int: a marker bit just above its top bit says its size
# (so a computed filter is never 0); each word sets 3 bits from two checksums. A word
# it holds always answers yes; a word it lacks answers no but for a false positive (a few in a
# thousand at 16 bits a word), which only makes an answer uncertain where it could be precise.
_WORD_BITS = 16
_WORD_HASHES = 3


def word_filter(words: Iterable[str]) -> int:
    """The filter of a set of words (see ``FileIndex.words``)."""
    unique = set(words)
    size = max(64, _WORD_BITS * len(unique))  # a multiple of 8
    table = bytearray(size // 8 + 1)
    table[-1] = 1  # the marker: a computed filter, of ``size`` bits
    for word in unique:
        data = word.encode()
        first, second = zlib.crc32(data), zlib.adler32(data) | 1
        for i in range(_WORD_HASHES):
            position = (first + i * second) % size
            table[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(table, "little")  # (a bytearray, not an int: no copy per bit set)


def filter_may_hold(bits: int, word: str) -> bool:
    """Whether a word filter may hold ``word`` (always, for a filter not computed: 0)."""
    if not bits:
        return True
    size = bits.bit_length() - 1
    data = word.encode()
    first, second = zlib.crc32(data), zlib.adler32(data) | 1
    return all(bits >> ((first + i * second) % size) & 1 for i in range(_WORD_HASHES))


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, order=True)
class Key:
    """The cache key of one file's index: any change of bytes, path or rules misses."""

    hash: str
    path: str
    version: int
    grammar: str
    language: str

    def text(self) -> str:
        return f"{self.language}:{self.grammar}:{self.version}:{self.hash}:{self.path}"


DEFAULT_TEST_PATHS: tuple[str, ...] = (
    "test/**",
    "tests/**",
    "**/test/**",
    "**/tests/**",
    "**/__tests__/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/*.test.js",
    "**/*.test.ts",
    "**/*.test.tsx",
    "**/*.spec.js",
    "**/*.spec.ts",
    "**/*.spec.tsx",
    "**/*_test.go",
    # the generic tier's conventions (a glob's "*" crosses folders)
    "Tests/*.swift",
    "**/Tests/*.swift",
    "spec/*.rb",
    "**/spec/*.rb",
    "**/test_*.c",
    "**/*_test.c",
    "**/test_*.cc",
    "**/*_test.cc",
    "**/*_unittest.cc",
    "**/test_*.cpp",
    "**/*_test.cpp",
    "**/*Test.cs",
    "**/*Tests.cs",
    "**/*_test.rb",
    "**/*_spec.rb",
    "**/*Test.php",
    "**/*Test.kt",
    "**/*Tests.kt",
    "**/*Test.swift",
    "**/*Tests.swift",
    "**/*_test.dart",
    "**/*_test.zig",
    "**/test-*.R",
    "**/test_*.R",
    "**/test-*.r",
    "**/test_*.r",
    "**/*Test.m",
    "**/test_*.m",
    "**/test_*.lua",
    "**/*_test.lua",
    "**/*_spec.lua",
    "**/*Test.scala",
    "**/*Spec.scala",
    "**/*Suite.scala",
)

__all__ = [
    "CALL_TEXT_MAX",
    "CODEC",
    "DEFAULT_TEST_PATHS",
    "VERSION",
    "Assignment",
    "Call",
    "Definition",
    "DynamicFlag",
    "Export",
    "FileIndex",
    "Import",
    "Key",
    "Param",
    "Reference",
    "content_hash",
    "filter_may_hold",
    "word_filter",
]
