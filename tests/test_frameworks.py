"""Framework resolvers (issue 21): the calls Django, Flask, FastAPI, Celery, click, Express,
NestJS, Vue and Svelte make, and the resolution gates.

The framework cases are ``tests/fixtures/<language>/<case>/`` in the one schema
(``tests/fixtures/README.md``): their ``calls`` list each framework edge with its kind, and
``tests/test_fixtures.py`` checks them with the rest (recall, unresolved sites, roots, reach).
Here: the precision of the framework kinds (every edge of a kind in ``graph.FRAMEWORK_KINDS`` the
graph has is one the case lists, of that kind: a guessed framework call fails), then the gates,
each on a small project written here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from projectgraph.graph import CONFIDENCE, FRAMEWORK_KINDS, Graph
from projectgraph.indexer import IndexOptions
from projectgraph.languages.java.link.linker import EDGE_KINDS as JAVA_KINDS
from projectgraph.languages.javascript.frameworks import EDGE_KINDS as JS_KINDS
from projectgraph.languages.python.frameworks import EDGE_KINDS, arguments
from projectgraph.languages.rust.tauri import EDGE_KINDS as TAURI_KINDS
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

FIXTURES = Path(__file__).parent / "fixtures"
CASES = (
    "python/django_app",
    "python/flask_app",
    "python/fastapi_app",
    "python/celery_click",
    "python/pytest_conftests",
    "javascript/express_app",
    "javascript/vue_svelte",
    "typescript/nestjs_module",
    "rust/tauri_commands",
    "java/spring_injection",
)


@cache
def case_graph(case: str) -> Graph:
    return build_graph(FIXTURES / case, IndexOptions(workers=1)).graph


def expected(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))
    return data


def framework_edges(graph: Graph) -> set[tuple[str, str, str]]:
    return {(e.caller, e.callee, e.kind) for e in graph.edges if e.kind in FRAMEWORK_KINDS}


@pytest.mark.parametrize("case", CASES)
def test_framework_edges_are_the_listed_ones(case: str) -> None:
    graph = case_graph(case)
    listed = {
        (row["caller"], row["callee"], row["kind"])
        for row in expected(case)["calls"]
        if isinstance(row, dict) and row.get("kind") in FRAMEWORK_KINDS
    } | {(a, b, "django-include") for a, b in expected(case).get("imports", [])}
    assert listed, "a framework case lists its framework edges"
    got = framework_edges(graph)
    assert sorted(got - listed) == [], "framework edges the case does not list"
    assert sorted(listed - got) == [], "listed framework edges the graph lacks"
    for edge in graph.edges:
        if edge.kind in FRAMEWORK_KINDS:
            assert edge.relation == ("imports" if edge.kind == "django-include" else "calls")
            assert edge.confidence == "high"


def test_every_framework_kind_is_known() -> None:
    assert set(EDGE_KINDS) | set(JS_KINDS) | set(TAURI_KINDS) | set(JAVA_KINDS) == set(FRAMEWORK_KINDS)
    assert all(CONFIDENCE[kind] == "high" for kind in FRAMEWORK_KINDS)


def test_call_arguments_from_the_short_text() -> None:
    """The arguments come from the call's text; a text the index cut short shows only the
    arguments before the cut, and says it is not complete."""
    from projectgraph.fileindex import Call

    whole = arguments(Call(1, 0, "", "path", "path", None, 3, 'path("a/(b", views.index, name="x")'))
    assert whole is not None and whole.complete
    assert [type(a).__name__ for a in whole.positional] == ["Constant", "Attribute"]
    assert set(whole.keywords) == {"name"}
    cut = arguments(
        Call(1, 0, "", "path", "path", None, 3, 'path("long/route/", views.Detail.as_view(template_na…')
    )
    assert cut is not None and not cut.complete
    assert len(cut.positional) == 1  # the view argument runs past the cut
    node, shown = cut.get(1, "view")
    assert node is None and not shown
    assert arguments(Call(1, 0, "", "app.route", "route", "app", 1, "@app.route")) is None


# ---- the resolution gates ------------------------------------------------------------------------
def _graph(tmp_path: Path, files: dict[str, str]) -> Graph:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return build_graph(tmp_path, IndexOptions(workers=1)).graph


def test_gate_a_framework_name_of_the_project_is_not_the_framework(tmp_path: Path) -> None:
    """A project function named like the framework's (its own ``path``, ``Depends``, a ``route``
    decorator of its own class) makes no framework edge: the resolvers act only where a name
    resolves to the framework's API."""
    graph = _graph(
        tmp_path,
        {
            "site/routing.py": (
                "def path(route, view):\n    return (route, view)\n\n\n"
                "def Depends(x):\n    return x\n\n\n"
                "class Router:\n    def route(self, rule):\n        return lambda f: f\n"
            ),
            "site/urls.py": (
                "from .routing import Depends, Router, path\n\n"
                "router = Router()\n\n\n"
                "def home(request):\n    return request\n\n\n"
                "@router.route('/')\n"
                "def listing(db=Depends(home)):\n    return db\n\n\n"
                "urlpatterns = [path('', home)]\n"
            ),
        },
    )
    assert framework_edges(graph) == set()


def test_gate_a_dynamic_view_stays_unresolved(tmp_path: Path) -> None:
    """A computed view (a call's result, a subscript, an unknown name) is an unresolved site of the
    URLconf, never a guess among the functions of that name, and reach from it is uncertain."""
    graph = _graph(
        tmp_path,
        {
            "app/views.py": "def show(request):\n    return request\n",
            "app/other.py": "def show(request):\n    return request\n",
            "app/urls.py": (
                "from django.urls import path\n\nfrom . import views\n\n"
                "TABLE = {'show': views.show}\n\n"
                "urlpatterns = [\n"
                "    path('a/', TABLE['show']),\n"
                "    path('b/', make_view('show')),\n"
                "    path('c/', show),\n"
                "]\n"
            ),
        },
    )
    assert framework_edges(graph) == set()
    texts = {u.text for u in graph.unresolved if u.caller == "app/urls.py"}
    assert {"path('a/', TABLE['show'])", "path('b/', make_view('show'))", "path('c/', show)"} <= texts
    results = reach(graph, Query(targets=(Target.by_key("app/other.py//show"),)))
    assert results[0].status == "uncertain"


def test_gate_a_class_view_without_handlers_is_unresolved(tmp_path: Path) -> None:
    """``as_view()`` of a project class whose MRO gives no handler (its base is not known): an
    unresolved site, no edge to a same-named method of another class."""
    graph = _graph(
        tmp_path,
        {
            "app/views.py": (
                "from somewhere import Base\n\n\nclass Page(Base):\n    pass\n\n\n"
                "class Other:\n    def get(self, request):\n        return request\n"
            ),
            "app/urls.py": (
                "from django.urls import path\n\nfrom .views import Page\n\n"
                "urlpatterns = [path('', Page.as_view())]\n"
            ),
        },
    )
    assert framework_edges(graph) == set()
    assert any(u.text == "path('', Page.as_view())" for u in graph.unresolved)


def test_gate_a_local_binding_shadows_the_function(tmp_path: Path) -> None:
    """A name the calling function binds itself (a parameter, an assignment) is that local, never
    the module's function of that name; nor is a view name the URLconf rebinds."""
    graph = _graph(
        tmp_path,
        {
            "app/views.py": (
                "def index(request):\n    return request\n\n\ndef other(request):\n    return request\n"
            ),
            "app/work.py": (
                "def handler():\n    return 1\n\n\n"
                "def run(handler):\n    return handler()\n\n\n"
                "def run_local():\n    handler = print\n    return handler()\n"
            ),
            "app/urls.py": (
                "from django.urls import path\n\nfrom .views import index, other\n\n"
                "index = other\n\n"
                "urlpatterns = [path('', index)]\n"
            ),
        },
    )
    calls = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
    assert ("app/work.py//run", "app/work.py//handler") not in calls
    assert ("app/work.py//run_local", "app/work.py//handler") not in calls
    assert framework_edges(graph) == {("app/urls.py", "app/views.py//other", "django-url")}


def test_gate_a_name_match_never_reaches_a_test_file(tmp_path: Path) -> None:
    """A call from non-test code that the linker can only match by name (an unknown receiver's
    method) never reaches a method defined in a test file; the test file's own calls still do."""
    graph = _graph(
        tmp_path,
        {
            "app/service.py": "def run(client):\n    return client.submit_order()\n",
            "tests/test_service.py": (
                "from app.service import run\n\n\n"
                "class FakeClient:\n    def submit_order(self):\n        return 1\n\n\n"
                "def test_run():\n    assert FakeClient().submit_order() == 1\n"
            ),
        },
    )
    into_tests = [e for e in graph.edges if e.caller.startswith("app/") and e.callee.startswith("tests/")]
    assert into_tests == []
    assert any(u.caller == "app/service.py//run" and u.name == "submit_order" for u in graph.unresolved)
    own = ("tests/test_service.py//test_run", "tests/test_service.py//FakeClient//submit_order")
    assert own in {(e.caller, e.callee) for e in graph.edges}


def test_framework_edges_follow_an_incremental_sync(tmp_path: Path) -> None:
    """The framework edges are made in the Python linker's per-file work, with the keys they read:
    an edit of a view (a handler gone, one added) or of a URLconf, synced incrementally, gives the
    graph a full index gives, and the incremental link follows it."""
    import shutil

    from projectgraph.project import Project
    from projectgraph.store import sqlite as sql
    from test_sync_oracle import ONE_WORKER, full_index_dumps

    root = tmp_path / "django_app"
    shutil.copytree(FIXTURES / "python" / "django_app", root)
    views, urls = root / "blog/views.py", root / "blog/urls.py"
    edits = [
        (views, "    def post(self, request, pk):", "    def put(self, request, pk):"),
        (views, "    def get_initial(self):", "    def get_initialx(self):"),
        (urls, 'path("", views.index, name="index"),', 'path("", views.render_post, name="index"),'),
    ]
    links = []
    with Project(root) as project:
        project.sync(ONE_WORKER, incremental=True)
        for path, old, new in edits:
            text = path.read_text(encoding="utf-8")
            assert old in text
            path.write_text(text.replace(old, new), encoding="utf-8")
            links.append(project.sync(ONE_WORKER, incremental=True).link)
            stored = sql.read_graph(project.store.connection)
            assert stored.dumps() == full_index_dumps(root), links
        kinds = {(e.callee, e.kind) for e in stored.edges}
    assert ("blog/views.py//PostView//put", "django-view") in kinds
    assert ("blog/views.py//render_post", "django-url") in kinds
    assert "incremental" in links, links
