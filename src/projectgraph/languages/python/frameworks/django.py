"""Django: URLconfs, class-based views, signals, management commands and admin registrations.

- ``path(route, view)``, ``re_path(...)``, ``url(...)`` (resolved to ``django//urls//...`` or
  ``django//conf//urls//...``): the scope of the call gets a ``django-url`` edge to a view
  function, or ``django-view`` edges to the handler methods (``get``, ``post``, ..., ``dispatch``)
  a first-party class's MRO gives for ``Cls.as_view()``.
- ``include("app.urls")``: a ``django-include`` import edge to that module (a project file, or the
  external module of an installed app); a module object passed is the same.
- ``signal.connect(handler)`` on a Django signal (``post_save``, a ``Signal()`` instance) and
  ``@receiver(signal)``: ``django-signal`` edges to the handler.
- ``class Command(BaseCommand)`` in ``management/commands/``: the module gets ``django-command``
  edges to its ``handle`` and ``add_arguments``.
- ``admin.site.register(Model, ModelAdmin)`` and ``@admin.register(Model)``: ``django-admin``
  edges to the ModelAdmin class.
"""

from __future__ import annotations

import ast

from projectgraph import keys
from projectgraph.fileindex import Call
from projectgraph.graph import Site
from projectgraph.languages.python.frameworks import (
    HTTP_METHODS,
    FileContext,
    ViewRule,
    arguments,
    decorated,
    dotted,
    ext_key,
    literal_string,
    under,
    view_target,
)
from projectgraph.link.core import Value

_ROUTE_NAMES = frozenset({"path", "re_path", "url"})
_URL_MODULES = ("django//urls", "django//conf//urls")
_CALL_NAMES = frozenset({*_ROUTE_NAMES, "include", "connect", "register"})
# what Django's View.as_view() runs: setup, dispatch and the handler of the request's method; the
# generic views (django.views.generic, django.contrib.auth.views) call their hooks on the way, by
# the external base class the project's view derives from
_VIEW_METHODS = ("setup", "dispatch", *HTTP_METHODS, "http_method_not_allowed")
_TEMPLATE = ("get_context_data", "get_template_names", "render_to_response")
_FORM = (
    *_TEMPLATE,
    "get_form_class",
    "get_form",
    "get_form_kwargs",
    "get_initial",
    "get_prefix",
    "get_success_url",
    "form_valid",
    "form_invalid",
)
_OBJECT = (*_TEMPLATE, "get_object", "get_queryset", "get_slug_field", "get_context_object_name")
_LIST = (
    *_TEMPLATE,
    "get_queryset",
    "get_ordering",
    "paginate_queryset",
    "get_paginate_by",
    "get_paginator",
    "get_allow_empty",
    "get_context_object_name",
)
_DATED = (*_LIST, "get_dated_items", "get_date_list")
_HOOKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("TemplateView", _TEMPLATE),
    ("TemplateResponseMixin", _TEMPLATE),
    ("ContextMixin", ("get_context_data",)),
    ("RedirectView", ("get_redirect_url",)),
    ("FormView", _FORM),
    ("BaseFormView", _FORM),
    ("FormMixin", _FORM),
    ("ProcessFormView", _FORM),
    ("LoginView", _FORM),
    ("PasswordChangeView", _FORM),
    ("PasswordResetView", _FORM),
    ("PasswordResetConfirmView", _FORM),
    ("CreateView", (*_FORM, *_OBJECT)),
    ("UpdateView", (*_FORM, *_OBJECT)),
    ("BaseCreateView", (*_FORM, *_OBJECT)),
    ("BaseUpdateView", (*_FORM, *_OBJECT)),
    ("ModelFormMixin", (*_FORM, *_OBJECT)),
    ("DeleteView", (*_FORM, *_OBJECT)),
    ("BaseDeleteView", (*_FORM, *_OBJECT)),
    ("DetailView", _OBJECT),
    ("BaseDetailView", _OBJECT),
    ("SingleObjectMixin", _OBJECT),
    ("ListView", _LIST),
    ("BaseListView", _LIST),
    ("MultipleObjectMixin", _LIST),
    *(
        (name, _DATED)
        for name in (
            "ArchiveIndexView",
            "YearArchiveView",
            "MonthArchiveView",
            "WeekArchiveView",
            "DayArchiveView",
            "TodayArchiveView",
        )
    ),
    ("DateDetailView", _OBJECT),
)
_RULE = ViewRule("django-url", "django-view", _VIEW_METHODS, _HOOKS, ("django//views", "django//contrib"))


def resolve(ctx: FileContext) -> None:
    for call in ctx.pyfile.index.calls:
        if call.name not in _CALL_NAMES or call.text.startswith("@"):
            continue
        if call.name == "connect":
            _connect(ctx, call)
            continue
        value = ctx.callee(call)
        key = ext_key(value)
        if not under(key, "django"):
            continue
        caller = ctx.caller(call.scope)
        site = Site(ctx.path, call.line, call.column)
        if call.name in _ROUTE_NAMES and under(key, *_URL_MODULES):
            _route(ctx, call, caller, site)
        elif call.name == "include" and under(key, *_URL_MODULES):
            _include(ctx, call, caller, site)
        elif call.name == "register" and key.endswith("//site//register"):
            _admin_register(ctx, call, caller, site)
    _decorators(ctx)
    _commands(ctx)


def _route(ctx: FileContext, call: Call, caller: str, site: Site) -> None:
    args = arguments(call)
    if args is None:
        ctx.unresolved(caller, site, "computed-name", call.text)
        return
    node, _shown = args.get(1, "view")
    if isinstance(node, ast.Call) and dotted(node.func).rpartition(".")[2] == "include":
        return  # the include() call is a record of its own
    if isinstance(node, (ast.List, ast.Tuple)):
        return  # an included pattern list: its path() calls are records of their own
    if node is None and args.partial.lstrip().startswith("include("):
        return
    view_target(ctx, call.scope, call.line, caller, site, args, 1, "view", _RULE, call)


def _include(ctx: FileContext, call: Call, caller: str, site: Site) -> None:
    args = arguments(call)
    node, shown = args.get(0, "arg") if args is not None else (None, False)
    if isinstance(node, ast.Tuple) and node.elts:
        node = node.elts[0]  # include(("app.urls", "app_name")) / include((patterns, "ns"))
    if isinstance(node, ast.List):
        return  # a literal list of path() calls, each a record of its own
    module = literal_string(node)
    if module is None and dotted(node):
        value = ctx.value(call.scope, dotted(node), call.line)
        if value is not None and value.kind == "module":
            module = value.key
        elif value is not None and value.kind in ("def", "inst", "inst_ext"):
            return  # a pattern list bound to a name: its path() calls are records of their own
    if module is None:
        ctx.unresolved(caller, site, "dynamic-import" if shown else "limit", call.text)
        return
    path = ctx.module_path(module)
    target = path if path else ctx.external(keys.external(module, "python"))
    ctx.edge(caller, target, "django-include", site, relation="imports")


def _connect(ctx: FileContext, call: Call) -> None:
    if not call.receiver or call.receiver.startswith("<"):
        return
    signal = ctx.value(call.scope, call.receiver, call.line)
    if not under(ext_key(signal), "django"):
        return
    caller = ctx.caller(call.scope)
    site = Site(ctx.path, call.line, call.column)
    args = arguments(call)
    node, shown = args.get(0, "receiver") if args is not None else (None, False)
    _handler(ctx, call.scope, call.line, caller, site, node, shown, call.text)


def _handler(
    ctx: FileContext,
    scope: str,
    line: int,
    caller: str,
    site: Site,
    node: ast.expr | None,
    shown: bool,
    text: str,
) -> None:
    name = dotted(node)
    value = ctx.value(scope, name, line) if name else None
    if value is not None and value.kind == "def":
        ctx.edge(caller, value.key, "django-signal", site)
    elif not (value is not None and value.kind == "ext"):
        ctx.unresolved(caller, site, "computed-name" if shown else "limit", text)


def _admin_register(ctx: FileContext, call: Call, caller: str, site: Site) -> None:
    args = arguments(call)
    node, shown = args.get(1, "admin_class") if args is not None else (None, False)
    if node is None:
        if not shown:
            ctx.unresolved(caller, site, "limit", call.text)
        return  # register(Model): the admin's own ModelAdmin
    value = ctx.value(call.scope, dotted(node), call.line) if dotted(node) else None
    if ctx.is_class(value):
        assert value is not None
        ctx.edge(caller, value.key, "django-admin", site)
    elif ext_key(value):
        return
    else:
        ctx.unresolved(caller, site, "computed-name", call.text)


def _decorators(ctx: FileContext) -> None:
    """``@receiver(signal)`` on a function, ``@admin.register(Model)`` on a class."""
    for info, d, call in decorated(ctx):
        if call.name not in ("receiver", "register"):
            continue
        key = ext_key(ctx.callee(call))
        if call.name == "receiver" and under(key, "django//dispatch"):
            kind = "django-signal"
        elif call.name == "register" and under(key, "django//contrib//admin") and info.is_class:
            kind = "django-admin"
        else:
            continue
        scope = ctx.definition_scope(d)
        ctx.edge(ctx.caller(scope), info.key, kind, Site(ctx.path, call.line, call.column))


def _commands(ctx: FileContext) -> None:
    """``class Command(BaseCommand)`` of a ``management/commands/<name>.py`` file."""
    path = ctx.path
    if "/management/commands/" not in f"/{path}" or path.endswith("/__init__.py"):
        return
    info = ctx.pyfile.defs.get("Command")
    if info is None or not info.is_class:
        return
    d = info.definition
    for base in d.bases:
        value = ctx.value("", base, d.line)
        if under(ext_key(value), "django//core//management") or _command_base(ctx, value):
            break
    else:
        return
    site = Site(path, d.line, d.column)
    for method in ("add_arguments", "handle"):
        key = ctx.member(info.key, method)
        if key is not None:
            ctx.edge(path, key, "django-command", site)


def _command_base(ctx: FileContext, value: Value | None) -> bool:
    """A first-party base class that itself derives from a Django command class."""
    if value is None or not ctx.is_class(value):
        return False
    return any(under(b.key, "django//core//management") for b in ctx.linker._bases(value.key))
