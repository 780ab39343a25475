"""Flask and FastAPI (and Starlette): routes, blueprints and routers, hooks, dependencies.

- A decorator of a route method (``route``, ``get``, ``post``, ...) on a receiver that resolves to
  an instance of the framework's application or blueprint/router class (``flask//Flask``,
  ``flask//Blueprint``, ``fastapi//FastAPI``, ``fastapi//APIRouter``, Starlette's): the scope the
  decorator runs in gets a ``flask-route`` / ``fastapi-route`` edge to the function. Request hooks,
  error and exception handlers, middleware and event handlers: ``flask-hook`` / ``fastapi-hook``.
  A blueprint's or router's routes are registered where its decorators run, so they are edges of
  the module that defines them, whichever app registers it later.
- ``app.add_url_rule(rule, endpoint, view_func)`` (Flask) and ``router.add_api_route(path,
  endpoint)`` (FastAPI): the same edge to the view; ``MethodView.as_view("name")`` gives
  ``flask-view`` edges to its handler methods.
- ``Depends(dep)`` / ``Security(dep)`` (``fastapi//...``): FastAPI calls ``dep`` before the
  function whose signature (a parameter default, an ``Annotated[...]``) or route decorator
  (``dependencies=[...]``) holds it: a ``fastapi-depends`` edge from that function; a dependency's
  own ``Depends`` are its sub-dependencies, the same rule. ``Depends()`` with no argument takes the
  parameter's annotation, which the index does not tie to the call: an unresolved site.
"""

from __future__ import annotations

from projectgraph.fileindex import Call, Definition
from projectgraph.graph import Site
from projectgraph.languages.python.frameworks import (
    HTTP_METHODS,
    FileContext,
    ViewRule,
    arguments,
    decorated,
    dotted,
    ext_key,
    under,
    view_target,
)

_FLASK = ("flask",)
_FASTAPI = ("fastapi", "starlette")
_FLASK_ROUTES = frozenset({"route", "get", "post", "put", "delete", "patch"})
_FLASK_HOOKS = frozenset(
    {
        "before_request",
        "after_request",
        "teardown_request",
        "teardown_appcontext",
        "before_app_request",
        "after_app_request",
        "teardown_app_request",
        "errorhandler",
        "app_errorhandler",
        "context_processor",
        "app_context_processor",
        "shell_context_processor",
        "url_value_preprocessor",
        "url_defaults",
        "template_filter",
        "template_global",
        "template_test",
        "app_template_filter",
        "app_template_global",
    }
)
_FASTAPI_ROUTES = frozenset(
    {
        "get",
        "post",
        "put",
        "delete",
        "patch",
        "options",
        "head",
        "trace",
        "api_route",
        "websocket",
        "route",
    }
)
_FASTAPI_HOOKS = frozenset({"exception_handler", "middleware", "on_event"})
_DECORATOR_NAMES = _FLASK_ROUTES | _FLASK_HOOKS | _FASTAPI_ROUTES | _FASTAPI_HOOKS
_CALL_NAMES = frozenset({"add_url_rule", "add_api_route", "Depends", "Security"})
# a Flask MethodView's dispatch_request runs the method of the request's verb
_FLASK_VIEW = ViewRule("flask-route", "flask-view", ("dispatch_request", *HTTP_METHODS))
_FASTAPI_VIEW = ViewRule("fastapi-route", "fastapi-route", ())


def resolve(ctx: FileContext) -> None:
    owners = _decorators(ctx)
    for call in ctx.pyfile.index.calls:
        if call.name not in _CALL_NAMES or call.text.startswith("@"):
            continue
        if call.name in ("Depends", "Security"):
            _depends(ctx, call, owners)
            continue
        if not call.receiver or call.receiver.startswith("<"):
            continue
        receiver = ext_key(ctx.value(call.scope, call.receiver, call.line))
        caller = ctx.caller(call.scope)
        site = Site(ctx.path, call.line, call.column)
        args = arguments(call)
        if call.name == "add_url_rule" and under(receiver, *_FLASK):
            if args is None:
                ctx.unresolved(caller, site, "computed-name", call.text)
            elif args.get(2, "view_func") != (None, True):  # no view_func: an endpoint only
                view_target(ctx, call.scope, call.line, caller, site, args, 2, "view_func", _FLASK_VIEW, call)
        elif call.name == "add_api_route" and under(receiver, *_FASTAPI):
            if args is None:
                ctx.unresolved(caller, site, "computed-name", call.text)
            else:
                view_target(
                    ctx, call.scope, call.line, caller, site, args, 1, "endpoint", _FASTAPI_VIEW, call
                )


def _decorators(ctx: FileContext) -> list[tuple[int, int, Definition, str]]:
    """The route and hook edges of the file's decorators; (first decorator line, def line,
    definition, key) of each decorated function, where a ``Depends`` in a decorator belongs."""
    owners: list[tuple[int, int, Definition, str]] = []
    for info, d, call in decorated(ctx):
        owners.append((call.line, d.line, d, info.key))
        if call.name not in _DECORATOR_NAMES or not call.receiver or call.receiver.startswith("<"):
            continue
        scope = ctx.definition_scope(d)
        receiver = ext_key(ctx.value(scope, call.receiver, call.line))
        if under(receiver, *_FLASK):
            kind = _decorator_kind(call.name, "flask", _FLASK_ROUTES, _FLASK_HOOKS)
        elif under(receiver, *_FASTAPI):
            kind = _decorator_kind(call.name, "fastapi", _FASTAPI_ROUTES, _FASTAPI_HOOKS)
        else:
            continue
        if kind:
            ctx.edge(
                ctx.caller(scope),
                info.key,
                kind,
                Site(ctx.path, call.line, call.column),
            )
    return owners


def _decorator_kind(name: str, framework: str, routes: frozenset[str], hooks: frozenset[str]) -> str:
    """The edge kind of a framework's decorator ``name``: ``<framework>-route`` for a route,
    ``<framework>-hook`` for a hook, "" for neither."""
    if name in routes:
        return f"{framework}-route"
    return f"{framework}-hook" if name in hooks else ""


def _depends(ctx: FileContext, call: Call, owners: list[tuple[int, int, Definition, str]]) -> None:
    if not under(ext_key(ctx.callee(call)), *_FASTAPI):
        return
    owner = ""
    info = ctx.pyfile.defs.get(call.scope) if call.scope else None
    if info is not None and info.is_callable:
        owner = info.key  # a parameter default or annotation (the index gives it the function's scope)
    else:
        for first, line, d, key in owners:
            if first <= call.line < line and ctx.definition_scope(d) == call.scope:
                owner = key  # a route decorator's dependencies=[...]
                break
    caller = owner or ctx.caller(call.scope)
    site = Site(ctx.path, call.line, call.column)
    args = arguments(call)
    node, shown = args.get(0, "dependency") if args is not None else (None, False)
    if node is None:
        # Depends() takes the parameter's annotation; a cut text hides the argument
        ctx.unresolved(caller, site, "computed-name" if shown else "limit", call.text)
        return
    name = dotted(node)
    value = ctx.value(call.scope, name, call.line) if name else None
    if value is not None and value.kind == "def":
        ctx.edge(caller, value.key, "fastapi-depends", site)
    elif value is not None and value.kind == "ext":
        ctx.edge(caller, ctx.external(value.key), "fastapi-depends", site)
    else:
        ctx.unresolved(caller, site, "computed-name", call.text)
