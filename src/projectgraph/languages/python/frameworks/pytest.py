"""pytest: a test's parameters are fixtures, which pytest runs before the test.

pytest calls a test function (or a fixture) with, for each parameter, the value of the fixture of
that name, looked up from where the requester is defined outwards: its class (and the class's
bases), its module, the ``conftest.py`` of its folder, then the ``conftest.py`` of each folder
above. The first found wins, so a nearer fixture overrides a farther one, and a fixture that
requests its own name gets the next one out (``def user(user)`` in ``tests/api/conftest.py``
wraps ``tests/conftest.py``'s ``user``). ``@pytest.mark.usefixtures("a", ...)`` on a test or its
class requests fixtures by name without a parameter; a parameter ``@pytest.mark.parametrize``
names is a parametrized value, no fixture (unless ``indirect``); a parameter with a default is
none either. ``@pytest.fixture(name="db")`` registers the fixture as ``db``.

Each request is a ``pytest-fixture`` edge from the requester to the fixture's function, at the
requester's ``def`` line (a generator fixture is run to its ``yield`` and finished after the
test). The resolver acts only where the fixture's decorator resolves to pytest's (or
pytest-asyncio's) ``fixture``. A requested name that no project fixture in scope gives is one of
pytest's own fixtures (``tmp_path``, ``monkeypatch``: external code) or, for any other name, a
plugin's fixture the project does not hold: an unresolved ``no-definition`` site of the
requester, never a guess by name. Plugins' fixtures found by their ``pytest11`` entry points are
not read.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from projectgraph.fileindex import Definition
from projectgraph.graph import Site, Unresolved
from projectgraph.languages.python.frameworks import FileContext, arguments, ext_key, literal_string, under

if TYPE_CHECKING:
    from projectgraph.languages.python.link.linker import PythonLinker, _File

# pytest's own fixtures (the _pytest package's): external code, not a missing definition
BUILTIN_FIXTURES = frozenset(
    {
        "cache",
        "capfd",
        "capfdbinary",
        "caplog",
        "capsys",
        "capsysbinary",
        "capteesys",
        "doctest_namespace",
        "monkeypatch",
        "pytestconfig",
        "pytester",
        "record_property",
        "record_testsuite_property",
        "record_xml_attribute",
        "recwarn",
        "request",
        "subtests",
        "testdir",
        "tmp_path",
        "tmp_path_factory",
        "tmpdir",
        "tmpdir_factory",
        "event_loop",
    }
)
_FIXTURE_DECORATORS = ("fixture", "pytest.fixture", "pytest_asyncio.fixture")


def resolve(ctx: FileContext) -> None:
    for info in ctx.pyfile.defs.values():
        d = info.definition
        if not info.is_callable or d.kind == "class":
            continue
        registered = fixture_name(ctx.linker, ctx.pyfile, d)
        fixture = registered is not None
        if not fixture and not is_test(ctx.pyfile, d):
            continue
        requested, computed = _requests(ctx, info, d, fixture)
        site = Site(ctx.path, d.line, d.column)
        if computed:
            ctx.unresolved(info.key, site, "computed-name", computed)
        for name in requested:
            own = info.key if name == registered else ""
            target = find_fixture(ctx.linker, ctx.pyfile, d.qualname, name, own)
            if target is not None:
                ctx.edge(info.key, target, "pytest-fixture", site)
            elif name not in BUILTIN_FIXTURES and (fixture or _uses_pytest(ctx)):
                # a plugin's fixture, or none: what runs is not in the project
                ctx.linker.builder.unresolved_site(
                    Unresolved(info.key, site, "no-definition", name, f"fixture {name}")
                )


def is_test(pyfile: _File, d: Definition) -> bool:
    """A test function pytest collects by its default rules: ``test*`` at the top of a module, or
    a method of a top-level ``Test*`` class."""
    if not d.name.startswith("test"):
        return False
    owner = d.qualname.rpartition(".")[0]
    if not owner:
        return True
    if "." in owner or not owner.startswith("Test"):
        return False
    cls = pyfile.defs.get(owner)
    return cls is not None and cls.is_class


def _uses_pytest(ctx: FileContext) -> bool:
    """Whether the test's module is in pytest's hands: a test path, or one that imports pytest."""
    from projectgraph.link.gates import is_test_path

    if is_test_path(ctx.path):
        return True
    return any(slot[1] == "pytest" for slot in ctx.pyfile.imports)


def _requests(ctx: FileContext, info: Any, d: Definition, fixture: bool) -> tuple[list[str], str]:
    """The fixture names a test or fixture requests, and the text of a mark whose names are not
    literal ("" when all are)."""
    skip = {"self", "cls"} if d.qualname.count(".") else set()
    parametrized: set[str] = set()
    used: list[str] = []
    computed = ""
    owners = [d]
    owner = ctx.pyfile.defs.get(d.qualname.rpartition(".")[0]) if "." in d.qualname else None
    if owner is not None and owner.is_class:
        owners.append(owner.definition)  # a class's marks apply to its tests
    for holder in owners:
        for text, call in zip(holder.decorators, ctx.decorator_calls(holder), strict=True):
            mark = text.rpartition(".")[2]
            if mark not in ("parametrize", "usefixtures") or ".mark." not in f".{text}":
                continue
            shown = call.text if call is not None else text
            args = arguments(call) if call is not None else None
            if args is None or (not args.complete and not args.positional):
                computed = computed or shown
                continue
            if mark == "usefixtures":
                for node in args.positional:
                    name = literal_string(node)
                    if name is None:
                        computed = computed or shown
                    else:
                        used.append(name)
                continue
            names, indirect = _parametrized(args)
            if names is None:
                computed = computed or shown
                continue
            if not isinstance(indirect, bool):
                parametrized.update(n for n in names if n not in indirect)
            elif not indirect:
                parametrized.update(names)
    params = [
        p.name
        for p in d.params
        if not p.variadic and not p.default and p.name not in skip and p.name not in parametrized
    ]
    if fixture and d.params and d.qualname.count(".") and d.params[0].name in ("self", "cls"):
        params = [n for n in params if n != d.params[0].name]
    return list(dict.fromkeys(params + used)), computed


def _parametrized(args: Any) -> tuple[list[str] | None, bool | set[str]]:
    """(the argnames of a parametrize mark, True or the names passed to fixtures by indirect)."""
    node, _ = args.get(0, "argnames")
    names: list[str] | None
    text = literal_string(node)
    if text is not None:
        names = [n.strip() for n in text.split(",") if n.strip()]
    elif isinstance(node, (ast.List, ast.Tuple)) and all(literal_string(e) is not None for e in node.elts):
        names = [literal_string(e) or "" for e in node.elts]
    else:
        names = None
    indirect_node = args.keywords.get("indirect")
    indirect: bool | set[str] = set()
    if isinstance(indirect_node, ast.Constant) and indirect_node.value is True:
        indirect = True
    elif isinstance(indirect_node, (ast.List, ast.Tuple)):
        indirect = {literal_string(e) or "" for e in indirect_node.elts}
    elif indirect_node is not None and not (
        isinstance(indirect_node, ast.Constant) and indirect_node.value is False
    ):
        names = None  # indirect given by a name: which arguments are fixtures is not known
    return names, indirect


def fixture_name(linker: PythonLinker, pyfile: _File, d: Definition, strict: bool = True) -> str | None:
    """The name pytest registers a fixture function under (``name=`` or its own), or None when
    it is no pytest fixture (no decorator resolving to pytest's ``fixture``; with ``strict``
    False, a decorator written ``fixture``/``pytest.fixture`` is enough: the value flow's reading,
    which a medium-confidence value may take, where an edge may not)."""
    if not d.decorators or not any(text in _FIXTURE_DECORATORS for text in d.decorators):
        return None
    from projectgraph.languages.python.link.linker import _function_scope

    scope = _function_scope(pyfile, d.qualname.rpartition(".")[0])
    calls = linker._decorator_calls(pyfile, d)
    for text, call in zip(d.decorators, calls, strict=True):
        if text not in _FIXTURE_DECORATORS:
            continue
        value = linker._resolve_dotted(pyfile, scope, text, d.line) if strict else None
        if strict and not under(ext_key(value), "pytest//fixture", "pytest_asyncio//fixture", "_pytest"):
            continue
        args = arguments(call) if call is not None else None
        if args is not None:
            named = literal_string(args.keywords.get("name"))
            if named:
                return named
        return d.name
    return None


def _levels(linker: PythonLinker, pyfile: _File) -> list[_File]:
    """The modules a requester in ``pyfile`` sees fixtures of, nearest first: its own module, then
    the conftest.py of its folder and of each folder above."""
    found = [pyfile]
    folder = pyfile.path.rpartition("/")[0]
    while True:
        conftest = linker.files.get(f"{folder}/conftest.py" if folder else "conftest.py")
        if conftest is not None and conftest is not pyfile:
            found.append(conftest)
        if not folder:
            break
        folder = folder.rpartition("/")[0]
    return found


def find_fixture(
    linker: PythonLinker, pyfile: _File, qualname: str, name: str, own: str = "", strict: bool = True
) -> str | None:
    """The key of the fixture function ``name`` means to a requester defined at ``qualname`` in
    ``pyfile``, by pytest's lookup (its class and bases, its module, the conftest.py files up the
    tree); ``own`` is the requesting fixture's key: its own name means the next one out."""
    found_own = not own
    owner = qualname.rpartition(".")[0]
    if owner:
        cls = pyfile.defs.get(owner)
        if cls is not None and cls.is_class:
            for member in _class_fixtures(linker, cls.key, name, strict):
                if member == own:
                    found_own = True
                elif found_own:
                    return member
    for level in _levels(linker, pyfile):
        key = _module_fixture(linker, level, name, strict)
        if key is None:
            continue
        if key == own:
            found_own = True
            continue
        if found_own:
            return key
    return None


def _class_fixtures(linker: PythonLinker, cls: str, name: str, strict: bool) -> list[str]:
    found = []
    for owner in linker._mro(cls):
        info = linker.defs.get(owner)
        linker._def_read(owner)
        if info is None:
            continue
        pyfile = linker.files[info.path]
        for member in pyfile.defs.values():
            if member.qualname.rpartition(".")[0] != info.qualname or not member.is_callable:
                continue
            if fixture_name(linker, pyfile, member.definition, strict) == name:
                found.append(member.key)
    return found


def _module_fixture(linker: PythonLinker, pyfile: _File, name: str, strict: bool) -> str | None:
    """The fixture a module holds under ``name``: a top-level fixture function registered so (by
    its name or ``name=``), or a fixture bound to the name by an import."""
    frame = getattr(linker, "_frame", None)
    if frame is not None:
        frame.add(("n", pyfile.path, "", name))
    for info in pyfile.defs.values():
        d = info.definition
        if "." in d.qualname or not info.is_callable or not d.decorators:
            continue
        if fixture_name(linker, pyfile, d, strict) == name:
            return info.key
    value, _how = linker._lookup_in(pyfile, "", name, None)
    if value is None or value.kind != "def":
        return None
    target = linker.defs.get(value.key)
    linker._def_read(value.key)
    if target is None or target.path == pyfile.path or not target.is_callable:
        return None
    where = linker.files.get(target.path)
    if where is not None and fixture_name(linker, where, target.definition, strict) is not None:
        return value.key
    return None
