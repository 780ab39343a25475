"""A class body's value that reaches back to itself (python-dateutil 2.9.0.post0's
``dateutil/parser/__init__.py``: ``class private_class(c): __doc__ = c.__doc__``, where ``c`` is
bound to ``private_class`` itself) is cut by the linker's cycle guard: the package links, and a
call through the looping value stays an unresolved site, so reach is uncertain, never not-found.
Before the guard, linking such a package raised RecursionError and the unit had no graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach

CASES = {
    # dateutil's shape: a class made by a function around the class it is given, whose body reads
    # the given class; the module rebinds the name to the wrapper, so ``c`` is bound to it too
    "wrapper": (
        {
            "pkg/__init__.py": (
                "from .core import Lexer\n\n\ndef wrap(c):\n    class Wrapped(c):\n"
                "        __doc__ = c.__doc__\n        run = c.run\n\n    return Wrapped\n\n\n"
                "Lexer = wrap(Lexer)\n"
            ),
            "pkg/core.py": "class Lexer:\n    def run(self):\n        return self\n",
            "app.py": "from pkg import Lexer\n\n\ndef main():\n    return Lexer.run(Lexer())\n",
        },
        "Lexer.run(Lexer())",
        "pkg/core.py//Lexer//run",
    ),
    # bases that loop, each body reading the other's attribute
    "bases that loop": (
        {
            "app.py": (
                "class A(B):\n    attr = B.attr\n\n\nclass B(A):\n    attr = A.attr\n\n\n"
                "def main():\n    return A.attr()\n\n\ndef attr():\n    pass\n"
            ),
        },
        "A.attr()",
        "app.py//attr",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_class_body_value_that_reaches_back_to_itself_is_cut_and_stays_uncertain(
    tmp_path: Path, case: str
) -> None:
    files, call, target = CASES[case]
    graph = build_graph(write_tree(tmp_path, files), IndexOptions(workers=1)).graph
    sites = [u for u in graph.unresolved if u.caller == "app.py//main"]
    assert [u.text for u in sites] == [call]
    answer = reach(graph, Query((Target(target),), (Source("app.py//main"),), SOURCES_ONLY))[0]
    assert answer.status == "uncertain"
