"""The Python linker's per-file tables, which only make linking fast: the class body that holds
a line (a list per function scope, not a key per line) and the argument lists read from a call's
text (a scan from stop to stop, not a loop over every character)."""

from __future__ import annotations

from projectgraph.fileindex import FileIndex, content_hash
from projectgraph.languages import language
from projectgraph.languages.base import parser
from projectgraph.languages.python.link import linker as py


def index(source: str, path: str = "m.py") -> FileIndex:
    data = source.encode()
    spec = language("python")
    return spec.extract_function()(parser(spec.grammar).parse(data), data, path, content_hash(data))


SOURCE = """\
x = print


class Outer:
    a = print

    class Inner:
        b = print

    c = print


def f():
    class Local:
        d = print

    return Local


y = print
"""


def test_the_class_body_of_each_line_in_each_function_scope() -> None:
    pyfile = py._new_file(index(SOURCE), "m")
    at = [(line, py._class_body_at(pyfile, "", line)) for line in range(0, 22)]
    assert [line for line, body in at if body == "Outer"] == [4, 5, 6, 9, 10]
    assert [line for line, body in at if body == "Outer.Inner"] == [7, 8]
    assert all(body is None for line, body in at if line < 4 or line > 10)
    # a class inside a function: its body is a line of the function's scope, not of the module's
    assert [line for line in range(0, 22) if py._class_body_at(pyfile, "f", line) == "f.Local"] == [14, 15]
    assert py._class_body_at(pyfile, "", -1) is None
    assert py._class_body_at(pyfile, "f", 100) is None
    assert py._class_body_at(pyfile, "nowhere", 5) is None
    assert pyfile.class_scopes == frozenset({"", "f"})
    # the assignments of a class body bind the class's names, not the module's
    assert set(pyfile.class_attrs) == {("Outer", "a"), ("Outer.Inner", "b"), ("Outer", "c"), ("f.Local", "d")}
    assert {target for _scope, target in pyfile.assigns} == {"x", "y"}


def test_the_arguments_of_a_call_text() -> None:
    assert py._call_arguments("f(a, b=c, *d, e)") == [(0, "", "a"), (-1, "b", "c"), (-1, "", "e")]
    assert py._call_arguments("f(g(a, b), [c, d], {e: (f, g)}, h == i)") == [
        (0, "", "g(a, b)"),
        (1, "", "[c, d]"),
        (2, "", "{e: (f, g)}"),
        (3, "", "h == i"),
    ]
    # commas and brackets inside strings, escaped quotes, a stray closing bracket at the top
    assert py._call_arguments('f(\'a, (b\', "c\\", d", x]y, z)') == [
        (0, "", "'a, (b'"),
        (1, "", '"c\\", d"'),
        (2, "", "x]y"),
        (3, "", "z"),
    ]
    # a text cut short keeps its complete arguments only; a string cut short ends them
    assert py._call_arguments("f(a, b, c…") == [(0, "", "a"), (1, "", "b")]
    assert py._call_arguments("f(a, 'b, c…") == [(0, "", "a")]
    assert py._call_arguments("f") == []
    assert py._call_arguments("f()") == []
