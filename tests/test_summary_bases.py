"""A member call on a class resolved through its bases from stored summaries, as the installed link
resolves it (``link.units._package_edges``: the class's own member, else each base's in turn, an
external base by the node of its member key).

Each case is a project that calls a method on a class of a unit, and the units in folders. The
installed answer links the project with its units; the store's answer links the project bare
(``--deps none``) and joins it to the summaries of the units, each built from the unit linked
alone, as a distributed job builds it. Every external key of the installed graph, from every
function of the project, must get the same status both ways.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from conftest import write_tree
from projectgraph import summary
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach
from projectgraph.units import DepsConfig, parse_deps


def _installed(project: Path, units: dict[str, Path]) -> Graph:
    deps = DepsConfig(auto=False, named=tuple((str(folder), unit) for unit, folder in sorted(units.items())))
    return build_graph(project, IndexOptions(deps=deps, workers=1)).graph


def _stored(tmp: Path, units: dict[str, Path]) -> list[summary.Summary]:
    """Each unit's summary, the unit linked alone (an empty project whose only unit it is)."""
    made = []
    for unit, folder in sorted(units.items()):
        scratch = tmp / f"alone-{folder.name}"
        scratch.mkdir()
        made.append(summary.build(_installed(scratch, {unit: folder}), unit=unit))
    return made


def _answers(graph: Graph, sources: list[str], targets: list[str]) -> dict[tuple[str, str], str]:
    found = {}
    for source in sources:
        query = Query(tuple(Target(t) for t in targets), (Source(source),), SOURCES_ONLY)
        found.update({(source, r.target): r.status for r in reach(graph, query)})
    return found


def _both(tmp: Path, files: dict[str, str], units: dict[str, str]) -> tuple[dict[tuple[str, str], str], ...]:
    """(installed, from the store) answers for every external key of the installed graph."""
    write_tree(tmp, files)
    folders = {unit: tmp / folder for unit, folder in units.items()}
    installed = _installed(tmp / "project", folders)
    sources = sorted(n.key for n in installed.nodes if not n.unit and n.kind == "function")
    targets = sorted(n.key for n in installed.nodes if n.kind == "external")
    bare = build_graph(tmp / "project", IndexOptions(deps=parse_deps(["none"]), workers=1)).graph
    joined = summary.join(bare, _stored(tmp, folders))
    return _answers(installed, sources, targets), _answers(joined, sources, targets)


# werkzeug's LocalProxy in miniature: a member declared by annotation only, which the link follows
# to the class's external base (typing.Generic)
PROXIES = {
    "proxies/proxies/__init__.py": dedent(
        """\
            import typing as t

            T = t.TypeVar('T')


            class Proxy(t.Generic[T]):
                current: t.Callable[[], T]

                def __init__(self, value):
                    self.value = value

                def show(self):
                    return str(self.current())
        """
    ),
    "project/app.py": dedent(
        """\
            from proxies import Proxy


            def index():
                proxy = Proxy(1)
                return proxy.current()
        """
    ),
}


def test_a_member_inherited_from_a_base_in_another_unit_is_found_as_installed(tmp_path: Path) -> None:
    installed, stored = _both(tmp_path, PROXIES, {"pypi:proxies@1.0": "proxies"})
    asked = ("app.py//index", "typing//Generic//current")
    assert installed[asked] == "found"
    assert stored == installed


# a base in another pypi unit: the member is that unit's definition, which its own summary answers for
BASE_UNIT = {
    "base/base/__init__.py": dedent(
        """\
            import os


            class Base:
                def where(self):
                    return os.getcwd()
        """
    ),
    "derived/derived/__init__.py": dedent(
        """\
            import base
            import json


            class Root:
                def dump(self):
                    return json.dumps(1)


            class Low(base.Base):
                def show(self):
                    return self.where()


            class Mid(Root):
                pass


            class High(Mid, Low):
                pass
        """
    ),
    "project/app.py": dedent(
        """\
            from derived import High, Low


            def low():
                return Low().where()


            def high_dump():
                return High().dump()


            def high_where():
                return High().where()
        """
    ),
}
BASE_UNITS = {"pypi:base@1.0": "base", "pypi:derived@2.0": "derived"}


def test_a_member_of_a_base_in_another_pypi_unit_reaches_that_units_code(tmp_path: Path) -> None:
    installed, stored = _both(tmp_path, BASE_UNIT, BASE_UNITS)
    assert installed[("app.py//low", "os//getcwd")] == "found"
    assert stored == installed


def test_a_base_chain_of_two_is_followed(tmp_path: Path) -> None:
    installed, stored = _both(tmp_path, BASE_UNIT, BASE_UNITS)
    # High -> Mid -> Root (the unit's own classes), and High -> Low -> base.Base (another unit's)
    assert installed[("app.py//high_dump", "json//dumps")] == "found"
    assert installed[("app.py//high_where", "os//getcwd")] == "found"
    assert installed[("app.py//high_dump", "base//Base//where")] == "not-found"
    assert stored == installed


UNKNOWN_BASE = {
    "odd/odd/__init__.py": dedent(
        """\
            import os


            def make_base(name):
                return type(name, (), {'run': lambda self: os.getcwd()})


            class Known:
                def other(self):
                    return os.getpid()


            class Odd(make_base('B'), Known):
                pass
        """
    ),
    "project/app.py": dedent(
        """\
            from odd import Odd


            def call():
                return Odd().run()
        """
    ),
}


def test_a_member_no_listed_base_gives_stays_uncertain_never_not_found(tmp_path: Path) -> None:
    installed, stored = _both(tmp_path, UNKNOWN_BASE, {"pypi:odd@1.0": "odd"})
    # run comes from a base the link cannot name: what it reaches is unknown
    assert installed[("app.py//call", "os//getcwd")] == "uncertain"
    assert installed[("app.py//call", "os//getpid")] == "uncertain"
    assert stored == installed
