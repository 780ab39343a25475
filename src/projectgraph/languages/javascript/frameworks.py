"""JavaScript and TypeScript framework resolvers: the calls Express, Koa, Fastify, Hono and NestJS
make into the project's code.

It runs inside the JavaScript linker's per-file work (``JavaScriptLinker._link_file``) and asks the
linker what a name is; the conventions are those of the Python resolvers
(``projectgraph.languages.python.frameworks``): a resolver acts only where a receiver or decorator
resolves to its framework's own package, each edge carries its rule as its kind
(``graph.FRAMEWORK_KINDS``), relation ``calls`` from the scope that registered the target, and an
argument that names nothing the linker resolves stays an unresolved site.

- Express, Koa (``koa``, ``@koa/router``, ``koa-router``), Fastify, Hono: ``app.get('/x', a, b)``,
  ``router.post(...)``, ``app.all``, ``app.route``: ``<framework>-route`` edges to each handler
  passed by name; ``app.use(mw)`` (and Fastify's ``addHook``): ``<framework>-middleware``. The
  receiver is an application or router: a name bound to the framework's factory call
  (``const app = express()``, ``fastify()``) or an instance of its class (``new Koa()``,
  ``express.Router()``, ``new Hono()``). A router passed to ``use`` is an instance, not a handler:
  its routes are the edges of the file that defines them. Inline functions need no edge: their calls
  are the registering scope's already.
- NestJS (``@nestjs/...``): a ``@Module({controllers: [...], providers: [...]})`` class gets
  ``nestjs-module`` edges to the controllers and providers it lists (the injector makes them, and
  injects providers by constructor type, which the linker already follows as ``this.x.m()``), and
  imported modules; a ``@Controller()`` class gets ``nestjs-route`` edges to its methods decorated
  ``@Get()``, ``@Post()``, ... (and to ``@MessagePattern``/``@EventPattern`` handlers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from projectgraph.graph import Site, Unresolved

if TYPE_CHECKING:
    from projectgraph.languages.javascript.link.linker import JavaScriptLinker, _File

# every edge kind a resolver here makes, with what the framework does (the README's table)
EDGE_KINDS: dict[str, str] = {
    "express-route": "an Express app or router runs the handlers a route method registered",
    "express-middleware": "an Express app or router runs the middleware use() registered",
    "koa-route": "a Koa router runs the handlers a route method registered",
    "koa-middleware": "a Koa app or router runs the middleware use() registered",
    "fastify-route": "a Fastify instance runs the handlers a route method registered",
    "fastify-middleware": "a Fastify instance runs the hooks and plugins addHook()/register() registered",
    "hono-route": "a Hono app runs the handlers a route method registered",
    "hono-middleware": "a Hono app runs the middleware use() registered",
    "nestjs-module": "the NestJS injector makes the controllers and providers a @Module lists",
    "nestjs-route": "a NestJS controller's route decorator (@Get, @Post, ...) has the method run per request",
    "vue-component": "a template's <MyButton> makes the imported Vue component: its script runs",
    "svelte-component": "a template's <Badge> makes the imported Svelte component: its instance script runs",
}

# (package as its external key starts, framework name in the edge kinds)
_APPS = (
    ("express", "express"),
    ("koa", "koa"),
    ("@koa//router", "koa"),
    ("koa-router", "koa"),
    ("fastify", "fastify"),
    ("hono", "hono"),
)
_ROUTES = frozenset({"get", "post", "put", "delete", "patch", "all", "head", "options", "route"})
_MIDDLEWARE = frozenset({"use", "addHook", "register", "param"})
_NEST_ROUTES = frozenset(
    {"Get", "Post", "Put", "Delete", "Patch", "All", "Options", "Head", "MessagePattern", "EventPattern"}
)
_NEST_MODULE_LISTS = ("controllers", "providers", "imports")


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith(prefix + "//")


def _framework(key: str) -> str:
    for prefix, name in _APPS:
        if _under(key, prefix):
            return name
    return ""


def link_file(linker: JavaScriptLinker, jsfile: _File) -> None:
    """The framework edges of one JavaScript/TypeScript file."""
    _servers(linker, jsfile)
    _nest(linker, jsfile)
    if jsfile.index.language in ("vue", "svelte"):
        _components(linker, jsfile)


def _components(linker: JavaScriptLinker, jsfile: _File) -> None:
    """``<MyButton>`` in a template (a call the component extractor recorded, text ``<Name>``):
    an edge to the component file its import names (a default import of a ``.vue``/``.svelte``
    file, whose value is the component, not a definition)."""
    bound = {imp.bound: imp for imp in jsfile.index.imports if imp.bound and imp.scope == ""}
    for call in jsfile.index.calls:
        if call.receiver is not None or not call.text.startswith("<"):
            continue
        imp = bound.get(call.callee)
        if imp is None or imp.name not in (None, "default"):
            continue
        target = linker.resolve_module(jsfile.path, imp.module)
        if target is None or not target.endswith((".vue", ".svelte")):
            continue
        kind = "vue-component" if target.endswith(".vue") else "svelte-component"
        site = Site(jsfile.path, call.line, call.column)
        linker.builder.edge(linker._caller(jsfile, call.scope), target, "calls", kind, site)


def _receiver_framework(linker: JavaScriptLinker, jsfile: _File, scope: str, text: str, line: int) -> str:
    """The framework whose application or router ``text`` is, or ""."""
    value = linker._resolve_dotted(jsfile, scope, text, line)
    if value is not None and value.kind in ("inst_ext", "ext"):
        return _framework(value.key)
    if value is not None or not text.isidentifier():
        return ""
    # ``const app = express()``: the result of the framework's factory (no value of its own)
    for assign in jsfile.index.assignments:
        if assign.target != text or not assign.value.startswith("call:") or assign.line > line:
            continue
        if assign.scope and not (scope == assign.scope or scope.startswith(assign.scope + ".")):
            continue
        made = linker._resolve_dotted(jsfile, assign.scope, assign.value[5:], assign.line)
        if made is not None and made.kind in ("ext", "inst_ext"):
            return _framework(made.key)
    return ""


def _servers(linker: JavaScriptLinker, jsfile: _File) -> None:
    path = jsfile.path
    for call, refs in linker._arguments_of(jsfile):
        if call.name not in _ROUTES and call.name not in _MIDDLEWARE:
            continue
        if not call.receiver or not all(p.isidentifier() for p in call.receiver.split(".")):
            continue
        framework = _receiver_framework(linker, jsfile, call.scope, call.receiver, call.line)
        if not framework:
            continue
        kind = f"{framework}-route" if call.name in _ROUTES else f"{framework}-middleware"
        caller = linker._caller(jsfile, call.scope)
        site = Site(path, call.line, call.column)
        for ref, _position in refs:
            value = linker._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)
            if value is not None and value.kind == "def":
                info = linker.defs.get(value.key)
                if info is not None and info.is_callable:
                    linker.builder.edge(caller, value.key, "calls", kind, site)
            elif value is None:
                linker.builder.unresolved_site(Unresolved(caller, site, "computed-name", "", call.text))
            # an external value, an instance (a router mounted with use), a parameter: not a handler


def _decorator_call(jsfile: _File, name: str, line: int) -> Any:
    """The call record of a decorator ``@name(...)`` written just above ``line``."""
    best = None
    for call in jsfile.index.calls:
        if call.callee == name and call.line <= line and (best is None or call.line > best.line):
            best = call
    return best


def _nest_decorator(linker: JavaScriptLinker, jsfile: _File, name: str, line: int) -> Any:
    """The decorator call of ``name`` above ``line`` when it resolves to NestJS, else None."""
    call = _decorator_call(jsfile, name, line)
    if call is None:
        return None
    value = linker._resolve_dotted(jsfile, call.scope, call.callee, call.line)
    if value is None or value.kind != "ext" or not value.key.startswith("@nestjs//"):
        return None
    return call


def _nest(linker: JavaScriptLinker, jsfile: _File) -> None:
    path = jsfile.path
    for info in jsfile.defs.values():
        d = info.definition
        if not info.is_class or not d.decorators:
            continue
        if "Module" in d.decorators:
            call = _nest_decorator(linker, jsfile, "Module", d.line)
            if call is not None:
                site = Site(path, call.line, call.column)
                # the names the decorator's object lists, on its lines (the class starts below them)
                for ref in jsfile.index.references:
                    if ref.scope != call.scope or not call.line <= ref.line < d.line:
                        continue
                    value = linker._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)
                    target = linker.defs.get(value.key) if value is not None and value.kind == "def" else None
                    if target is not None and target.is_class:
                        linker.builder.edge(info.key, target.key, "calls", "nestjs-module", site)
        if "Controller" in d.decorators and _nest_decorator(linker, jsfile, "Controller", d.line) is not None:
            prefix = d.qualname + "."
            for member in jsfile.defs.values():
                md = member.definition
                if not md.qualname.startswith(prefix) or "." in md.qualname[len(prefix) :]:
                    continue
                for decorator in md.decorators:
                    if decorator in _NEST_ROUTES:
                        call = _nest_decorator(linker, jsfile, decorator, md.line)
                        if call is not None:
                            site = Site(path, call.line, call.column)
                            linker.builder.edge(info.key, member.key, "calls", "nestjs-route", site)
                            break
