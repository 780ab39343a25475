"""Python framework resolvers: the calls a framework makes into the project's code.

A Django URLconf, a Flask route decorator, a FastAPI ``Depends(...)``, a Celery ``task.delay()``
or a click group hands a function to a framework, which calls it later; the call is nowhere in the
source. Each resolver here reads one file's records (its calls, their short text, its definitions
and decorators) and asks the Python linker what a name is, so it runs inside the linker's per-file
work (``PythonLinker._link_file``) and a sync re-runs it with the file, with every key it read.

Conventions, stated once:

- A resolver is active in a file only when what it keys on resolves to its framework's own API
  (``django//urls//path``, an instance of ``flask//Flask``, ``fastapi//Depends``): an import of the
  framework is the detection, and a same-named function of the project's own is not mistaken for
  it.
- Each edge carries the rule that made it as its kind (``django-url``, ``flask-route``, ...; see
  ``EDGE_KINDS``), with relation ``calls`` (the framework runs the target on behalf of the site
  that registered it; the caller is the scope of that site), or ``imports`` for an ``include()``
  of a URL module. The edge is its own proof of reachability: what reaches the registering scope
  reaches the target.
- The honesty rule: a target that is not a name the linker resolves to one definition (a computed
  view, a call's result, a ``Depends()`` whose target is a parameter's annotation, an argument the
  index's call text cut short) is an unresolved site of the registering scope, never a guess by
  name and never dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from projectgraph.fileindex import Call, Definition
from projectgraph.graph import Site, Unresolved
from projectgraph.link.core import DefInfo, Value

if TYPE_CHECKING:
    from projectgraph.languages.python.link.linker import PythonLinker, _File

VERSION = 2
"""The rules of the framework resolvers (they change what the link gives: graph.VERSION too)."""

# every edge kind a resolver here makes, with what the framework does (the README's table)
EDGE_KINDS: dict[str, str] = {
    "django-url": "a URLconf's path()/re_path()/url() runs its view",
    "django-view": "a class-based view's as_view() runs its handler methods (get, post, dispatch...)",
    "django-include": "include('app.urls') imports that URL module",
    "django-signal": "a signal runs the receivers connect() or @receiver registered",
    "django-command": "manage.py runs a management command's handle (and add_arguments)",
    "django-admin": "the admin site makes the ModelAdmin registered for a model",
    "flask-route": "a Flask app or blueprint runs the view a route decorator or add_url_rule registered",
    "flask-hook": "a Flask app runs its request hooks, error handlers and template helpers",
    "flask-view": "a MethodView's as_view() runs its handler methods",
    "fastapi-route": "a FastAPI app or router runs the path operation a decorator registered",
    "fastapi-hook": "a FastAPI app runs its exception handlers, middleware and event handlers",
    "fastapi-depends": "FastAPI runs a Depends()/Security() dependency before the function that declares it",
    "celery-task": "a task's delay()/apply_async()/s() runs the task function (in a worker)",
    "click-command": "a click group runs the subcommands registered on it",
    "typer-command": "a Typer app runs the commands registered on it",
    "pytest-fixture": "pytest runs the fixture a test's (or fixture's) parameter or usefixtures names",
}

HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")


@dataclass
class FileContext:
    """What a resolver reads and writes for one file: the linker's answers, the graph builder."""

    linker: PythonLinker
    pyfile: _File

    @property
    def path(self) -> str:
        return self.pyfile.path

    def value(self, scope: str, text: str, line: int, where: _File | None = None) -> Value | None:
        """What a dotted name (``views.index``) is where it is written (this file, or ``where``)."""
        if not text or not all(part.isidentifier() for part in text.split(".")):
            return None
        return self.linker._resolve_dotted(where or self.pyfile, scope, text, line)

    def assigned_as_view(self, scope: str, text: str, line: int) -> tuple[_File, str, int, str] | None:
        """(file, scope, line, class text) of ``name = Cls.as_view(...)``, the module-level binding
        a view name passed (``views.login``, ``login``) stands for, when that is its one binding."""
        head, _, name = text.rpartition(".")
        where = self.pyfile
        if head:
            module = self.value(scope, head, line)
            path = (
                self.linker.modules.get(module.key)
                if module is not None and module.kind == "module"
                else None
            )
            if not path or path not in self.linker.files:
                return None
            where = self.linker.files[path]
        elif scope:
            return None
        self.read_name(where.path, "", name)
        if ("", name) in where.imports or any(info.qualname == name for info in where.defs.values()):
            return None
        bindings = where.assigns.get(("", name), [])
        if len(bindings) != 1 or not bindings[0].value.removeprefix("?").startswith("call:"):
            return None
        callee = bindings[0].value.removeprefix("?")[5:]
        if not callee.endswith(".as_view"):
            return None
        return where, "", bindings[0].line, callee[: -len(".as_view")]

    def read_name(self, path: str, scope: str, name: str) -> None:
        """A hook for the traced linker: this unit read the bindings of ``name`` in a scope."""
        frame = getattr(self.linker, "_frame", None)
        if frame is not None:
            frame.add(("n", path, scope, name))

    def caller(self, scope: str) -> str:
        return self.linker._caller(self.pyfile, scope)

    def callee(self, call: Call) -> Value | None:
        """What a call's callee is (None for a computed callee)."""
        if call.callee.startswith("<") or call.super_call:
            return None
        return self.value(call.scope, call.callee, call.line)

    def definition(self, key: str) -> Definition | None:
        info = self.linker.defs.get(key)
        self.linker._def_read(key)
        return None if info is None else info.definition

    def _def_info(self, value: Value | None) -> DefInfo | None:
        """The first-party definition a value is (None for any other value)."""
        if value is None or value.kind != "def":
            return None
        info = self.linker.defs.get(value.key)
        self.linker._def_read(value.key)
        return info

    def is_class(self, value: Value | None) -> bool:
        info = self._def_info(value)
        return info is not None and info.is_class

    def is_callable(self, value: Value | None) -> bool:
        info = self._def_info(value)
        return info is not None and info.is_callable

    def member(self, cls: str, name: str) -> str | None:
        """The key of the method ``name`` the class's MRO gives (first-party classes only)."""
        found = self.linker._class_member(cls, name)
        return found.key if found is not None and found.is_callable else None

    def edge(self, caller: str, target: str, kind: str, site: Site, relation: str = "calls") -> None:
        self.linker.builder.edge(caller, target, relation, kind, site)

    def external(self, key: str) -> str:
        return self.linker.builder.external(key, "python")

    def unresolved(self, caller: str, site: Site, reason: str, text: str) -> None:
        self.linker.builder.unresolved_site(Unresolved(caller, site, reason, "", text))

    def decorator_calls(self, d: Definition) -> list[Call | None]:
        return self.linker._decorator_calls(self.pyfile, d)

    def defined_in(self, key: str) -> tuple[DefInfo, _File, str] | None:
        """A first-party definition's info, its file and the scope its decorators are evaluated in
        (None for a key of no first-party definition)."""
        info = self.linker.defs.get(key)
        self.linker._def_read(key)
        if info is None:
            return None
        pyfile = self.linker.files.get(info.path)
        if pyfile is None:
            return None
        from projectgraph.languages.python.link.linker import _function_scope

        return info, pyfile, _function_scope(pyfile, info.definition.qualname.rpartition(".")[0])

    def definition_scope(self, d: Definition) -> str:
        """The function scope a definition's decorators and defaults are evaluated in."""
        from projectgraph.languages.python.link.linker import _function_scope

        return _function_scope(self.pyfile, d.qualname.rpartition(".")[0])

    def module_path(self, dotted: str) -> str | None:
        """The project file of a dotted module name, or None."""
        return self.linker.modules.get(dotted) or None


def ext_key(value: Value | None) -> str:
    """The external key a value stands for (an external function or an instance of an external
    class), or ""."""
    if value is not None and value.kind in ("ext", "inst_ext"):
        return value.key
    return ""


def under(key: str, *prefixes: str) -> bool:
    return any(key == p or key.startswith(p + "//") for p in prefixes)


# ---- call arguments, from the call's short text ---------------------------------------------
_KEYWORD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class Arguments:
    """The arguments of a call as its text writes them; ``complete`` is False when the index cut
    the text short (the arguments after the cut are unknown) or a ``*``/``**`` spreads some."""

    positional: tuple[ast.expr | None, ...]
    keywords: dict[str, ast.expr | None]
    complete: bool
    partial: str = ""  # the text of the argument the cut runs through

    def get(self, position: int, keyword: str) -> tuple[ast.expr | None, bool]:
        """(the argument at a position or of a keyword, whether the text shows it)."""
        if keyword in self.keywords:
            return self.keywords[keyword], True
        if position < len(self.positional):
            return self.positional[position], True
        return None, self.complete


def arguments(call: Call) -> Arguments | None:
    """The arguments of a call from its text (``CALL_TEXT_MAX`` characters, whitespace collapsed);
    None when the text is not a call as written (a decorator's bare name)."""
    text = call.text
    cut = text.endswith("…")
    if cut:
        text = text[:-1]
    head = len(call.callee)
    if text[:head] != call.callee or text[head : head + 1] != "(":
        return None
    pieces, closed = _split_arguments(text, head + 1)
    if not cut and not closed:
        return None
    partial = ""
    if not closed and pieces:
        partial = pieces.pop()  # the last piece runs past the cut
    positional: list[ast.expr | None] = []
    keywords: dict[str, ast.expr | None] = {}
    complete = closed
    for piece in pieces:
        if not piece.strip():
            continue
        if piece.lstrip().startswith("*"):
            complete = False
            continue
        match = _KEYWORD.match(piece)
        if match:
            keywords[match.group(1)] = _expression(match.group(2))
        elif keywords:
            return None  # a positional argument after a keyword: not Python
        else:
            positional.append(_expression(piece))
    return Arguments(tuple(positional), keywords, complete, partial)


def _split_arguments(text: str, start: int) -> tuple[list[str], bool]:
    """The top-level comma-separated pieces after an opening parenthesis, and whether the
    matching closing parenthesis was seen."""
    pieces: list[str] = []
    depth = 0
    quote = ""
    begin = start
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif char in "'\"":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                pieces.append(text[begin:i])
                return pieces, True
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(text[begin:i])
            begin = i + 1
        i += 1
    pieces.append(text[begin:])
    return pieces, False


def _expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None


def dotted(node: ast.expr | None) -> str:
    """``a.b.c`` for a name chain, else ""."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def literal_string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def as_view_class(node: ast.expr | None) -> str:
    """The class text of ``Cls.as_view(...)``, else ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "as_view":
        return dotted(node.func.value)
    return ""


def text_of(node: ast.expr | None) -> str:
    if node is None:
        return ""
    try:
        return ast.unparse(node)[:80]
    except (
        ValueError,
        RecursionError,
    ):  # pragma: no cover - unparse of what parse made
        return ""


# ---- the shared targets ------------------------------------------------------------------------
_AS_VIEW_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\.as_view\(")


@dataclass(frozen=True)
class ViewRule:
    """How a framework runs a view: the edge kinds, and the methods ``Cls.as_view()`` runs."""

    function_kind: str  # a view function (or a module-level ``view = Cls.as_view()``'s handlers)
    method_kind: str  # the handler methods of a class-based view
    methods: tuple[str, ...]
    # more methods by the last name of an external base class (the framework's generic views call
    # their hooks: a FormView's form_valid), under these external key prefixes
    hooks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    hook_prefixes: tuple[str, ...] = ()

    def methods_of(self, external_bases: list[str]) -> tuple[str, ...]:
        """The methods the framework runs on a class with these external bases."""
        found = list(self.methods)
        table = dict(self.hooks)
        for base in external_bases:
            if under(base, *self.hook_prefixes):
                found.extend(table.get(base.rpartition("//")[2], ()))
        return tuple(dict.fromkeys(found))


def view_target(
    ctx: FileContext,
    scope: str,
    line: int,
    caller: str,
    site: Site,
    args: Arguments,
    position: int,
    keyword: str,
    rule: ViewRule,
    call: Call,
) -> None:
    """Edges from ``caller`` to what a view argument names: a function, the handler methods of
    ``Cls.as_view()`` (written there, or bound to the name passed: ``login = LoginView.as_view()``),
    the ``__call__`` of an instance; anything else stays unresolved."""
    node, shown = args.get(position, keyword)
    if node is None:
        head = _AS_VIEW_HEAD.match(args.partial) if not shown and len(args.positional) == position else None
        if head is not None:  # the text was cut inside ``Cls.as_view(...)``: the class is shown
            _class_view(ctx, scope, line, caller, site, head.group(1), rule, call)
        elif not shown:
            ctx.unresolved(caller, site, "limit", call.text)
        return
    cls_text = as_view_class(node)
    if cls_text:
        _class_view(ctx, scope, line, caller, site, cls_text, rule, call)
        return
    if isinstance(node, ast.Call) and dotted(node.func) and not node.args and not node.keywords:
        made = ctx.value(scope, dotted(node.func), line)  # an instance: the framework calls it
        called = ctx.member(made.key, "__call__") if made is not None and ctx.is_class(made) else None
        if called is not None:
            ctx.edge(caller, called, rule.function_kind, site)
        elif not (made is not None and made.kind == "ext"):
            ctx.unresolved(caller, site, "no-definition", call.text)
        return
    name = dotted(node)
    value = ctx.value(scope, name, line) if name else None
    if value is not None and value.kind == "def":
        ctx.edge(caller, value.key, rule.function_kind, site)
        return
    if value is not None and value.kind == "ext":
        return  # external code (a view, or an included pattern tuple: admin.site.urls)
    bound = ctx.assigned_as_view(scope, name, line) if name else None
    if bound is not None:
        _class_view(ctx, bound[1], bound[2], caller, site, bound[3], rule, call, bound[0])
        return
    ctx.unresolved(caller, site, "computed-name", call.text)


def _class_view(
    ctx: FileContext,
    scope: str,
    line: int,
    caller: str,
    site: Site,
    cls_text: str,
    rule: ViewRule,
    call: Call,
    where: _File | None = None,
) -> None:
    cls = ctx.value(scope, cls_text, line, where)
    if ctx.is_class(cls):
        assert cls is not None
        methods = rule.methods_of(ctx.linker._external_bases(cls.key)) if rule.hooks else rule.methods
        handlers = [k for k in (ctx.member(cls.key, m) for m in methods) if k]
        for key in dict.fromkeys(handlers):
            ctx.edge(caller, key, rule.method_kind, site)
        if not handlers:
            ctx.unresolved(caller, site, "no-definition", call.text)
    elif not ext_key(cls):
        ctx.unresolved(caller, site, "unknown-receiver", call.text)
    # an external view class (TemplateView.as_view()): its as_view() call edge says it


Resolver = Callable[[FileContext], None]


def _resolvers() -> tuple[Resolver, ...]:
    from projectgraph.languages.python.frameworks import celery, click, django, pytest, web

    return (django.resolve, web.resolve, celery.resolve, click.resolve, pytest.resolve)


def link_file(linker: PythonLinker, pyfile: _File) -> None:
    """The framework edges of one file. Each resolver looks only at the calls and decorators of
    the names its framework uses (``path``, ``route``, ``delay``, ...) and acts only where the
    name resolves to the framework's API, so a file of no framework costs a scan of its calls."""
    ctx = FileContext(linker, pyfile)
    for resolve in _resolvers():
        resolve(ctx)


def decorated(ctx: FileContext) -> list[tuple[Any, Definition, Call]]:
    """(info, definition, decorator call) of each seen decorator of the file's definitions."""
    found = []
    for info in ctx.pyfile.defs.values():
        d = info.definition
        if not d.decorators:
            continue
        for call in ctx.decorator_calls(d):
            if call is not None:
                found.append((info, d, call))
    return found


__all__ = [
    "EDGE_KINDS",
    "VERSION",
    "Arguments",
    "FileContext",
    "ViewRule",
    "arguments",
    "link_file",
]
