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
        "import os.path\nimport yaml as y\nfrom . import a\nfrom ..pkg.mod import b as c, d\nfrom m import *\n"
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
