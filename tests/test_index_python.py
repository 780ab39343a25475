"""The Python index records, on real parses of small sources."""

from __future__ import annotations

from projectgraph.fileindex import FileIndex, content_hash
from projectgraph.languages import language
from projectgraph.languages.base import parser


def index(source: str, path: str = "m.py") -> FileIndex:
    data = source.encode()
    spec = language("python")
    return spec.extract_function()(parser(spec.grammar).parse(data), data, path, content_hash(data))


def test_imports_of_every_form() -> None:
    fi = index(
        "import os.path\nimport yaml as y\nfrom . import a\n"
        "from ..pkg.mod import b as c, d\nfrom m import *\n"
    )
    got = {(i.module, i.name, i.alias, i.level, i.star, i.bound) for i in fi.imports}
    assert got == {
        ("os.path", None, None, 0, False, "os"),
        ("yaml", None, "y", 0, False, "y"),
        ("", "a", None, 1, False, "a"),
        ("pkg.mod", "b", "c", 2, False, "c"),
        ("pkg.mod", "d", None, 2, False, "d"),
        ("m", None, None, 0, True, None),
    }


def test_definitions_scopes_and_calls() -> None:
    fi = index(
        '''class Parser(Base, metaclass=Meta):
    """Parse things.

    More text."""
    def __init__(self, reader: Reader):
        self.reader = reader
        self.cache = Cache()

    def parse(self, path):
        data = self.read(path)
        return helper(data)

def helper(x):
    def inner():
        return x
    return inner
'''
    )
    defs = {d.qualname: d for d in fi.definitions}
    assert set(defs) == {"Parser", "Parser.__init__", "Parser.parse", "helper", "helper.inner"}
    assert defs["Parser"].bases == ("Base",)
    assert defs["Parser"].doc == "Parse things."
    assert defs["Parser.__init__"].kind == "constructor"
    assert defs["Parser.parse"].kind == "method"
    assert defs["Parser.__init__"].params[1].type == "Reader"
    assert defs["helper"].returns == ("name:inner",)
    calls = {(c.scope, c.callee, c.receiver, c.name) for c in fi.calls}
    assert ("Parser.parse", "self.read", "self", "read") in calls
    assert ("Parser.parse", "helper", None, "helper") in calls
    assert ("Parser.__init__", "Cache", None, "Cache") in calls
    assigns = {(a.scope, a.target, a.value) for a in fi.assignments}
    assert ("Parser.__init__", "self.cache", "call:Cache") in assigns


def test_dynamic_flags_and_main_guard() -> None:
    fi = index(
        'import importlib\nname = input()\neval(name)\ngetattr(obj, name)()\ngetattr(obj, "x")\n'
        'importlib.import_module("plugins." + name)\n__import__("json")\n'
        'if __name__ == "__main__":\n    run()\n'
    )
    kinds = sorted((d.kind, d.prefix) for d in fi.dynamic)
    assert kinds == [("eval", None), ("getattr", None), ("import_module", "plugins.")]
    assert fi.main_guard
    assert any(i.module == "json" and i.kind == "dynamic" for i in fi.imports)


def test_syntax_error_keeps_definitions_after_it() -> None:
    fi = index("def a():\n    return (\n\ndef b():\n    pass\n\ndef c():\n    b()\n")
    assert fi.syntax_errors > 0
    names = {d.name for d in fi.definitions}
    assert "c" in names


def test_json_round_trip() -> None:
    fi = index("class A:\n    def m(self, x: int = 1, *a, **k) -> 'A':\n        return A()\n")
    assert FileIndex.from_json(fi.to_json()) == fi


def test_imports_of_one_module_on_one_line_sort() -> None:
    # `None` and text in one field of two imports once made sorting fail, and the file with it
    fi = index("import os; from os import path; import os as o\n")
    assert {(i.module, i.name, i.alias) for i in fi.imports} == {
        ("os", None, None),
        ("os", "path", None),
        ("os", None, "o"),
    }


TRICKY = '''import os; import os as o
from . import (a,
    b as c)


class K(Base, mixins.M, metaclass=Meta):
    """Doc.

    More."""
    x: int = 5
    f = lambda self: self.g()

    @property
    def p(self) -> "K":
        return K()

    @deco.attr(1)
    async def m(self, a, b: int = 1, *args: str, c=None, **kw) -> Optional[K]:
        super().m(a)
        super(K, self).m()
        None.__class__()
        self . spaced (1)
        self.g(  # a comment
            a, b)
        f(x)(y)
        a.b().c(d)
        [x][0]()
        é = ñ.ü()
        t = self.helper(a, b)
        u = await self.fetch()
        p, q = make(), self.other
        return self.h


def g(*, a, b=lambda x, y: x, c: "list[int]" = [], d: mod.T | None = None, /, e: Optional[X] = None):
    getattr(a, b)
    eval(b)
    importlib.import_module("x." + b)
    return call(a, *b, k=c)


class Empty():
    pass


if __name__ == "__main__":
    g()
'''


def test_fast_readers_agree_with_the_node_readers() -> None:
    # A syntax error after the code makes the extractor read every field from the tree (its exact,
    # slower path); the records of the code before the error must not change.
    fast = index(TRICKY)
    exact = index(TRICKY + "\nx = = 1 )\n")
    assert not fast.syntax_errors and exact.syntax_errors
    last = TRICKY.count("\n")
    for field in ("imports", "exports", "definitions", "calls", "references", "assignments", "dynamic"):
        kept = tuple(r for r in getattr(exact, field) if r.line <= last)
        assert getattr(fast, field) == kept, field
    assert fast.main_guard and exact.main_guard
    defs = {d.qualname: d for d in fast.definitions}
    assert defs["K"].bases == ("Base", "mixins.M")
    assert [(p.name, p.type, p.default, p.variadic) for p in defs["K.m"].params] == [
        ("self", None, False, ""),
        ("a", None, False, ""),
        ("b", "int", True, ""),
        ("args", "str", False, "*"),
        ("c", None, True, ""),
        ("kw", None, False, "**"),
    ]
    calls = {(c.callee, c.receiver, c.name, c.args, c.super_call) for c in fast.calls}
    assert ("super().m", "super()", "m", 1, True) in calls
    assert ("self.spaced", "self", "spaced", 1, False) in calls
    assert ("self.g", "self", "g", 2, False) in calls  # the comment is not an argument
    assert ("a.b().c", "a.b()", "c", 1, False) in calls
    assert ("<expr>.__class__", "<expr>", "__class__", 0, False) in calls


def test_byte_form_round_trip() -> None:
    fi = index(TRICKY)
    assert FileIndex.from_bytes(fi.to_bytes()) == fi
    assert FileIndex.from_json(fi.to_json()) == fi


def test_an_index_the_byte_form_cannot_hold_is_kept_but_not_stored() -> None:
    from dataclasses import replace

    from projectgraph.fileindex import Param
    from projectgraph.indexer import _encoded

    odd = replace(index("x = 1\n"), flags=(Param("p"),))  # type: ignore[arg-type]
    assert _encoded(odd) is None
    assert _encoded(index("x = 1\n")) is not None
