"""The JavaScript / TypeScript / TSX index records, on real parses of small sources."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import fixture_cases as fc
from projectgraph.config import ProjectConfig
from projectgraph.discover import extension_map, language_of
from projectgraph.fileindex import FileIndex, content_hash
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.languages import all_languages, language
from projectgraph.languages.base import parser


def index(source: str, lang: str = "javascript", path: str | None = None) -> FileIndex:
    data = source.encode()
    spec = language(lang)
    default_path = {"javascript": "m.js", "typescript": "m.ts", "tsx": "m.tsx"}[lang]
    tree = parser(spec.grammar).parse(data)
    return spec.extract_function()(tree, data, path or default_path, content_hash(data))


def defs(fi: FileIndex) -> dict[str, object]:
    return {d.qualname: d for d in fi.definitions}


def calls(fi: FileIndex) -> set[tuple[str, str, str | None, str]]:
    return {(c.scope, c.callee, c.receiver, c.name) for c in fi.calls}


def refs(fi: FileIndex) -> set[tuple[str, str]]:
    return {(r.scope, r.name) for r in fi.references}


def assigns(fi: FileIndex) -> set[tuple[str, str, str]]:
    return {(a.scope, a.target, a.value) for a in fi.assignments}


def exports(fi: FileIndex) -> set[tuple[str, str | None, str | None, bool]]:
    return {(e.name, e.local, e.module, e.star) for e in fi.exports}


def imports(fi: FileIndex) -> set[tuple[str, str | None, str | None, str, str]]:
    return {(i.module, i.name, i.alias, i.kind, i.scope) for i in fi.imports}


# ---- the language specs ----------------------------------------------------------------------


def test_specs_extensions_and_declaration_files() -> None:
    specs = all_languages()
    assert specs["javascript"].extensions == (".js", ".mjs", ".cjs", ".jsx")
    assert specs["typescript"].extensions == (".ts", ".mts", ".cts")
    assert specs["tsx"].extensions == (".tsx",)
    for name in ("javascript", "typescript", "tsx"):
        assert specs[name].extractor == "projectgraph.languages.javascript.extract:extract"
        assert "cha" in specs[name].edge_kinds and "field" in specs[name].edge_kinds
    mapping = extension_map(specs.values())
    assert language_of("types/index.d.ts", mapping) == "typescript"
    assert language_of("app/view.jsx", mapping) == "javascript"
    fi = index("declare function f(a: string): Foo;\n", "typescript", path="types/index.d.ts")
    assert fi.flags == ("declarations",)
    assert defs(fi)["f"].returns == ("Foo",)
    assert index("let a = 1;\n", "typescript").flags == ()
    ambient = index(
        "export declare namespace ts { function f(): void; namespace inner { class C {} } }\n"
        "export namespace real { function hidden() {} }\n",
        "typescript",
    )
    assert {d.qualname: d.exported for d in ambient.definitions} == {
        "ts": True,
        "ts.f": True,
        "ts.inner": True,
        "ts.inner.C": True,
        "real": True,
        "real.hidden": False,
    }


@pytest.mark.parametrize(
    ("lang", "path"), [("javascript", "a.mjs"), ("typescript", "a.cts"), ("tsx", "a.tsx")]
)
def test_language_is_the_spec_name(lang: str, path: str) -> None:
    assert index("f();\n", lang, path=path).language == lang


def test_indexer_runs_the_three_languages(make_project: Callable[[dict[str, str | bytes]], Path]) -> None:
    root = make_project(
        {
            "src/app.js": "const { util } = require('./util');\nmodule.exports = () => util();\n",
            "src/util.mjs": "export function util() {}\n",
            "src/view.tsx": "export const View = () => <Button />;\n",
            "src/types.d.ts": "export declare function util(): void;\n",
            "src/broken.ts": "export function ok() {}\nfunction (\n",
        }
    )
    options = IndexOptions(languages=("javascript", "typescript", "tsx"), workers=1, config=ProjectConfig())
    result = run_index(root, options)
    statuses = {s.path: (s.language, s.status, s.flags) for s in result.statuses}
    assert statuses["src/app.js"] == ("javascript", "indexed", ())
    assert statuses["src/util.mjs"] == ("javascript", "indexed", ())
    assert statuses["src/view.tsx"] == ("tsx", "indexed", ())
    assert statuses["src/types.d.ts"] == ("typescript", "indexed", ("declarations",))
    assert statuses["src/broken.ts"][:2] == ("typescript", "indexed")
    assert "syntax-error" in statuses["src/broken.ts"][2]
    by_path = {fi.path: fi for fi in result.indexes}
    assert exports(by_path["src/app.js"]) == {("module.exports", "default", None, False)}
    assert ("View", "Button") in {(c.scope, c.callee) for c in by_path["src/view.tsx"].calls}
    assert "ok" in defs(by_path["src/broken.ts"])


# ---- imports ---------------------------------------------------------------------------------


def test_esm_imports() -> None:
    fi = index(
        "import x, { y as z, default as w, v } from 'mod';\n"
        "import * as ns from './ns';\n"
        "import './side-effect.css';\n"
    )
    assert imports(fi) == {
        ("mod", "default", "x", "esm", ""),
        ("mod", "y", "z", "esm", ""),
        ("mod", "default", "w", "esm", ""),
        ("mod", "v", "v", "esm", ""),
        ("./ns", None, "ns", "esm", ""),
        ("./side-effect.css", None, None, "esm", ""),
    }
    assert {i.bound for i in fi.imports} == {"x", "z", "w", "v", "ns", None}


def test_require_forms() -> None:
    fi = index(
        "const fs = require('fs');\n"
        "const { a, b: c } = require('./m');\n"
        "const join = require('path').join;\n"
        "const dflt = __importDefault(require('dflt'));\n"
        "require('polyfill');\n"
        "let late;\n"
        "late = require('late');\n"
        "function load() { const lazy = require('lazy'); }\n"
    )
    assert imports(fi) == {
        ("fs", None, "fs", "require", ""),
        ("./m", "a", "a", "require", ""),
        ("./m", "b", "c", "require", ""),
        ("path", "join", "join", "require", ""),
        ("dflt", None, "dflt", "require", ""),
        ("polyfill", None, None, "require", ""),
        ("late", None, "late", "require", ""),
        ("lazy", None, "lazy", "require", "load"),
    }
    # a literal require is an Import, not a call, an assignment or a dynamic feature
    assert not any(c.callee == "require" for c in fi.calls)
    assert not any(a.value.startswith(("call:require", "name:require")) for a in fi.assignments)
    assert fi.dynamic == ()


def test_dynamic_import_with_literal_and_computed_modules() -> None:
    fi = index(
        "async function main(name) {\n"
        "  const mod = await import('./plugin.js');\n"
        "  const { run } = await import('./runner.js');\n"
        "  import('./side.js');\n"
        "  await import(`./plugins/${name}.js`);\n"
        "  require('./lib/' + name);\n"
        "  require(name);\n"
        "}\n"
    )
    assert imports(fi) == {
        ("./plugin.js", None, "mod", "dynamic", "main"),
        ("./runner.js", "run", "run", "dynamic", "main"),
        ("./side.js", None, None, "dynamic", "main"),
    }
    assert {(d.kind, d.prefix, d.scope) for d in fi.dynamic} == {
        ("import", "./plugins/", "main"),
        ("require", "./lib/", "main"),
        ("require", None, "main"),
    }


def test_typescript_type_only_and_require_imports() -> None:
    fi = index(
        "import type { A } from './a';\nimport { type B, c } from './b';\nimport fs = require('fs');\n",
        "typescript",
    )
    assert imports(fi) == {
        ("./a", "A", "A", "type", ""),
        ("./b", "B", "B", "type", ""),
        ("./b", "c", "c", "esm", ""),
        ("fs", None, "fs", "require", ""),
    }


# ---- exports ---------------------------------------------------------------------------------


def test_esm_exports() -> None:
    fi = index(
        "export function f() {}\n"
        "export class C {}\n"
        "export const x = 1, g = () => {};\n"
        "const a = 1;\n"
        "export { a as b, a };\n"
        "export { c as d, default as e } from './m';\n"
        "export * from './all';\n"
        "export * as ns from './n';\n"
        "export default f;\n"
    )
    assert exports(fi) == {
        ("f", "f", None, False),
        ("C", "C", None, False),
        ("x", "x", None, False),
        ("g", "g", None, False),
        ("b", "a", None, False),
        ("a", "a", None, False),
        ("d", "c", "./m", False),
        ("e", "default", "./m", False),
        ("*", None, "./all", True),
        ("ns", None, "./n", True),
        ("default", "f", None, False),
    }
    assert ("", "f") in refs(fi)
    assert all(d.exported for d in fi.definitions)


@pytest.mark.parametrize(
    ("source", "local", "definition"),
    [
        ("export default function named() { run(); }\n", "named", "named"),
        ("export default function () { run(); }\n", "default", "default"),
        ("export default () => run();\n", "default", "default"),
        ("export default class { m() { run(); } }\n", "default", "default.m"),
        ("export default { m() { run(); } };\n", "default", "default.m"),
        ("export default connect(run)(View);\n", None, None),
    ],
)
def test_export_default_forms(source: str, local: str | None, definition: str | None) -> None:
    fi = index(source)
    assert exports(fi) == {("default", local, None, False)}
    if definition is not None:
        assert definition in defs(fi)
        assert "run" in {c.callee for c in fi.calls if c.scope == definition}


def test_commonjs_exports() -> None:
    fi = index(
        "function parse() {}\n"
        "function helper() {}\n"
        "function internal() {}\n"
        "exports.parse = parse;\n"
        "module.exports.helper2 = helper;\n"
        "/** Loads. */\n"
        "exports.load = function () { helper(); };\n"
        "exports.lib = require('./lib');\n"
        "exports.part = require('./lib').part;\n"
        "exports.hoisted = exports.other = void 0;\n"
        "exports.made = make();\n"
    )
    assert exports(fi) == {
        ("parse", "parse", None, False),
        ("helper2", "helper", None, False),
        ("load", "load", None, False),
        ("lib", None, "./lib", True),
        ("part", "part", "./lib", False),
        ("made", None, None, False),
    }
    load = defs(fi)["load"]
    assert (load.kind, load.doc, load.exported) == ("function", "Loads.", True)
    assert ("load", "helper", None, "helper") in calls(fi)
    assert defs(fi)["parse"].exported and defs(fi)["helper"].exported and not defs(fi)["internal"].exported
    assert ("", "exports.made", "call:make") in assigns(fi)


def test_module_exports_forms() -> None:
    assert exports(index("class Api {}\nmodule.exports = Api;\n")) == {("module.exports", "Api", None, False)}
    fi = index("module.exports = function () { go(); };\n")
    assert exports(fi) == {("module.exports", "default", None, False)}
    assert ("default", "go", None, "go") in calls(fi)
    fi = index("module.exports = function named() {};\n")
    assert exports(fi) == {("module.exports", "named", None, False)} and "named" in defs(fi)
    assert exports(index("module.exports = require('./impl');\n")) == {
        ("module.exports", None, "./impl", True),
        ("*", None, "./impl", True),
    }
    assert exports(index("module.exports = new Service();\n")) == {("module.exports", None, None, False)}
    fi = index(
        "function a() {}\nfunction c() {}\n"
        "module.exports = {\n"
        "  a, b: c, d() { a(); }, e: function () {}, f: require('./f'), g: require('./g').h,\n"
        "};\n"
    )
    assert exports(fi) == {
        ("a", "a", None, False),
        ("b", "c", None, False),
        ("d", "d", None, False),
        ("e", "e", None, False),
        ("f", None, "./f", True),
        ("g", "h", "./g", False),
    }
    found = defs(fi)
    assert found["d"].kind == "function" and found["e"].kind == "function"
    assert all(found[name].exported for name in ("a", "c", "d", "e"))
    assert ("d", "a", None, "a") in calls(fi)


def test_compiled_commonjs_exports() -> None:
    fi = index(
        '"use strict";\n'
        'Object.defineProperty(exports, "__esModule", { value: true });\n'
        "exports.Subject = void 0;\n"
        'var Subject_1 = require("./Subject");\n'
        'Object.defineProperty(exports, "Subject", {\n'
        "  enumerable: true, get: function () { return Subject_1.Subject; },\n"
        "});\n"
        'Object.defineProperty(exports, "VERSION", { value: version });\n'
        '__exportStar(require("./types"), exports);\n'
        'tslib_1.__exportStar(require("./more"), exports);\n'
        "__export(src_exports, { Hono: () => import_hono.Hono });\n"
    )
    assert exports(fi) == {
        ("Subject", "Subject_1.Subject", None, False),
        ("VERSION", "version", None, False),
        ("*", None, "./types", True),
        ("*", None, "./more", True),
        ("Hono", "import_hono.Hono", None, False),
    }
    assert ("./Subject", None, "Subject_1", "require", "") in imports(fi)


def test_typescript_export_assignment_and_type_reexports() -> None:
    fi = index("class Foo {}\nexport = Foo;\nexport type { T } from './t';\n", "typescript")
    assert exports(fi) == {("module.exports", "Foo", None, False), ("T", "T", "./t", False)}


# ---- definitions -----------------------------------------------------------------------------


def test_functions_classes_and_methods() -> None:
    fi = index(
        "/** Parse a thing.\n * @param a the input\n */\n"
        "export async function parse(a, b = 1, { c }, [d], ...rest) {\n"
        "  function inner() {}\n"
        "  return inner;\n"
        "}\n"
        "const arrow = (x) => x * 2;\n"
        "const expr = function named() {};\n"
        "class Shape extends Base {\n"
        "  constructor(size) { super(size); }\n"
        "  get area() { return 1; }\n"
        "  set area(v) {}\n"
        "  static create() { return new Shape(1); }\n"
        "  #secret() {}\n"
        "  *items() {}\n"
        "  ['computed']() { lost(); }\n"
        "}\n"
        "const Anon = class extends mixin(A, B) { run() {} };\n"
    )
    found = defs(fi)
    parse = found["parse"]
    assert (parse.kind, parse.doc, parse.is_async, parse.line, parse.end_line) == (
        "function",
        "Parse a thing.",
        True,
        4,
        7,
    )
    assert parse.signature == "async function parse(a, b = 1, { c }, [d], ...rest)"
    assert [tuple(p) for p in parse.params] == [
        ("a", None, False, ""),
        ("b", None, True, ""),
        ("{}", None, False, ""),
        ("[]", None, False, ""),
        ("rest", None, False, "..."),
    ]
    assert parse.returns == ("name:inner",)
    assert found["parse.inner"].kind == "function" and not found["parse.inner"].exported
    assert found["arrow"].kind == "function" and [p.name for p in found["arrow"].params] == ["x"]
    assert "expr" in found and "named" not in found and "expr.named" not in found
    assert found["Shape"].bases == ("Base",) and found["Shape"].kind == "class"
    kinds = {(d.qualname, d.kind) for d in fi.definitions if d.qualname.startswith("Shape.")}
    assert kinds == {
        ("Shape.constructor", "constructor"),
        ("Shape.area", "getter"),  # the getter and the setter share a qualname
        ("Shape.area", "setter"),
        ("Shape.create", "method"),
        ("Shape.#secret", "method"),
        ("Shape.items", "method"),
    }
    assert found["Shape.create"].returns == ("call:Shape",)
    assert found["Anon"].bases == ("mixin()",) and "Anon.run" in found
    # a computed-name method is anonymous: its calls belong to the scope around the class
    assert ("", "lost", None, "lost") in calls(fi)


def test_object_literal_prototype_and_this_methods() -> None:
    fi = index(
        "const api = {\n"
        "  parse() { one(); },\n"
        "  load: function () { two(); },\n"
        "  run: () => three(),\n"
        "  get ready() { return true; },\n"
        "  nested: { deep() { four(); } },\n"
        "  value: 1,\n"
        "};\n"
        "function Widget(el) {\n"
        "  this.el = el;\n"
        "  this.render = function () { five(); };\n"
        "}\n"
        "Widget.prototype.show = function () { this.render(); };\n"
        "Widget.prototype = { hide() {} };\n"
        "Widget.create = function () { return new Widget(); };\n"
        "class Store { constructor() { this.onChange = () => six(); } }\n"
    )
    found = defs(fi)
    assert {
        q: found[q].kind for q in ("api.parse", "api.load", "api.run", "api.ready", "api.nested.deep")
    } == {
        "api.parse": "method",
        "api.load": "method",
        "api.run": "method",
        "api.ready": "getter",
        "api.nested.deep": "method",
    }
    assert "api.value" not in found
    assert found["Widget.render"].kind == "method"
    assert found["Widget.show"].kind == "method"
    assert found["Widget.hide"].kind == "method"
    assert found["Widget.create"].kind == "function"
    assert found["Store.onChange"].kind == "method"
    assert {
        ("api.parse", "one"),
        ("api.load", "two"),
        ("api.run", "three"),
        ("api.nested.deep", "four"),
        ("Widget.render", "five"),
        ("Widget.show", "this.render"),
        ("Store.onChange", "six"),
    } <= {(c.scope, c.callee) for c in fi.calls}
    assert ("Widget", "this.el", "name:el") in assigns(fi)
    # a function stored in a member is referenced where it is stored: whoever holds it may call it
    assert ("", "Widget.create") in refs(fi)


def test_docs_only_from_adjacent_jsdoc() -> None:
    fi = index(
        "/** First line.\n * Second. */\nfunction a() {}\n"
        "// line comment\nfunction b() {}\n"
        "/** File header. */\n\nfunction c() {}\n"
        "/**\n * @deprecated\n * Described after a tag.\n */\nexport const d = () => {};\n"
        "class K {\n  /** The method. */\n  m() {}\n}\n"
    )
    found = defs(fi)
    assert found["a"].doc == "First line."
    assert found["b"].doc == "" and found["c"].doc == ""
    assert found["d"].doc == "Described after a tag."
    assert found["K.m"].doc == "The method."


def test_exported_flags_for_modules_and_scripts() -> None:
    fi = index(
        "export class A { m() {} #p() {} }\n"
        "class B { m() {} }\n"
        "export const obj = { f() {} };\n"
        "function local() { function nested() {} }\n"
    )
    exported = {d.qualname: d.exported for d in fi.definitions}
    assert exported == {
        "A": True,
        "A.m": True,
        "A.#p": False,
        "B": False,
        "B.m": False,
        "obj.f": True,
        "local": False,
        "local.nested": False,
    }
    # a script (no import, require or export): its top-level names are globals
    script = index("function g() { function inner() {} }\nclass C { m() {} }\n")
    assert {d.qualname: d.exported for d in script.definitions} == {
        "g": True,
        "g.inner": False,
        "C": True,
        "C.m": True,
    }


# ---- calls and scopes ------------------------------------------------------------------------


def test_call_forms() -> None:
    fi = index(
        "function run(obj, k) {\n"
        "  f(1, 2);\n"
        "  obj.m(a, b);\n"
        "  this.m();\n"
        "  a.b.c();\n"
        "  f().g();\n"
        "  a?.b();\n"
        "  obj?.m?.(1);\n"
        "  obj[k]();\n"
        "  obj['named']();\n"
        "  new Foo(x);\n"
        "  new ns.Bar;\n"
        "  tag`x${y}`;\n"
        "  (() => inside())();\n"
        "}\n"
    )
    got = {(c.callee, c.receiver, c.name, c.args, c.new) for c in fi.calls if c.scope == "run"}
    assert got == {
        ("f", None, "f", 2, False),
        ("obj.m", "obj", "m", 2, False),
        ("this.m", "this", "m", 0, False),
        ("a.b.c", "a.b", "c", 0, False),
        ("f", None, "f", 0, False),
        ("f().g", "f()", "g", 0, False),
        ("a.b", "a", "b", 0, False),
        ("obj.m", "obj", "m", 1, False),
        ("<expr>", None, "", 0, False),
        ("obj.named", "obj", "named", 0, False),
        ("Foo", None, "Foo", 1, True),
        ("ns.Bar", "ns", "Bar", 0, True),
        ("tag", None, "tag", 1, False),
        ("inside", None, "inside", 0, False),
    }
    texts = {c.text for c in fi.calls}
    assert "obj.m(a, b)" in texts and "new Foo(x)" in texts
    first = min(fi.calls, key=lambda c: (c.line, c.column))
    assert (first.line, first.column) == (2, 2)
    assert {(d.kind, d.name) for d in fi.dynamic} == {("getattr", "obj")}


def test_long_call_text_is_short() -> None:
    fi = index("run(" + ", ".join(f"argument{i}" for i in range(40)) + ");\n")
    (call,) = fi.calls
    assert len(call.text) == 80 and call.text.endswith("…") and call.args == 40


def test_super_calls() -> None:
    fi = index("class A extends B {\n  constructor(x) { super(x); }\n  m() { return super.m(); }\n}\n")
    got = {(c.scope, c.callee, c.receiver, c.name, c.super_call) for c in fi.calls}
    assert got == {
        ("A.constructor", "super", None, "super", True),
        ("A.m", "super.m", "super", "m", True),
    }


def test_callbacks_belong_to_the_named_function_and_their_returns_do_not() -> None:
    fi = index(
        "function handler(items) {\n"
        "  items.forEach((item) => { process(item); return item.id; });\n"
        "  setTimeout(function tick() { tock(); }, 10);\n"
        "  return items.map(function (x) { return x; });\n"
        "}\n"
        "app.get('/', (req, res) => { res.send(render()); });\n"
        "(function () { iife(); })();\n"
    )
    assert {
        ("handler", "process"),
        ("handler", "tock"),
        ("", "res.send"),
        ("", "render"),
        ("", "iife"),
    } <= {(c.scope, c.callee) for c in fi.calls}
    assert set(defs(fi)) == {"handler"}
    assert defs(fi)["handler"].returns == ("call:items.map",)
    assert not any(c.callee == "<expr>" for c in fi.calls)  # the IIFE itself is no call site


def test_class_field_initializers_and_static_blocks() -> None:
    fi = index(
        "class WithCtor {\n"
        "  a = make();\n"
        "  static b = once();\n"
        "  static { boot(); }\n"
        "  handle = () => { this.go(); };\n"
        "  constructor() { init(); }\n"
        "}\n"
        "function outer() {\n"
        "  class NoCtor { c = build(); }\n"
        "}\n"
    )
    assert {
        ("WithCtor.constructor", "make"),
        ("", "once"),
        ("", "boot"),
        ("WithCtor.handle", "this.go"),
        ("WithCtor.constructor", "init"),
        ("outer.NoCtor", "build"),
    } == {(c.scope, c.callee) for c in fi.calls}
    assert defs(fi)["WithCtor.handle"].kind == "method"
    assert {
        ("WithCtor", "this.a", "call:make"),
        ("WithCtor", "WithCtor.b", "call:once"),
        ("outer.NoCtor", "this.c", "call:build"),
    } <= assigns(fi)


def test_javascript_decorators_run_where_the_class_is_defined() -> None:
    fi = index(
        "@register\nclass A {\n  @observable value = 1;\n  @action.bound m() { body(); }\n"
        "  @memo(5) n() {}\n}\n"
    )
    got = {(c.scope, c.callee, c.args) for c in fi.calls}
    assert got == {
        ("", "register", 1),
        ("", "observable", 1),
        ("", "action.bound", 1),
        ("A.m", "body", 0),
        ("", "memo", 1),
    }
    found = defs(fi)
    assert found["A"].decorators == ("register",)
    assert found["A.m"].decorators == ("action.bound",)
    assert found["A.n"].decorators == ("memo",)
    assert found["A.m"].signature == "m()"


# ---- references, assignments, returns --------------------------------------------------------


def test_references() -> None:
    fi = index(
        "function setup(app) {\n"
        "  app.get('/', handle);\n"
        "  app.use(mw.auth, this.cb, undefined, null, 'x');\n"
        "  const table = { run: runner, stop, nested: lib.stop };\n"
        "  const list = [first, lib.second];\n"
        "  const alias = original;\n"
        "  return finalHandler;\n"
        "}\n"
    )
    assert refs(fi) == {
        ("setup", "handle"),
        ("setup", "mw.auth"),
        ("setup", "this.cb"),
        ("setup", "runner"),
        ("setup", "stop"),
        ("setup", "lib.stop"),
        ("setup", "first"),
        ("setup", "lib.second"),
        ("setup", "original"),
        ("setup", "finalHandler"),
    }


def test_assignments() -> None:
    fi = index(
        "const svc = new Service();\n"
        "const data = load();\n"
        "const fn = obj.method;\n"
        "const awaited = await fetchIt();\n"
        "const { read, write: put } = fs.promises;\n"
        "let cache;\n"
        "cache ??= new Map();\n"
        "counter += 1;\n"
        "class C { constructor() { this.repo = new Repo(); this.alias = this.repo; } }\n"
    )
    assert assigns(fi) == {
        ("", "svc", "call:Service"),
        ("", "data", "call:load"),
        ("", "fn", "name:obj.method"),
        ("", "awaited", "call:fetchIt"),
        ("", "read", "name:fs.promises.read"),
        ("", "put", "name:fs.promises.write"),
        ("", "cache", "expr:undefined"),  # `let cache;`: a value the later lines may set
        ("", "cache", "call:Map"),
        ("C.constructor", "this.repo", "call:Repo"),
        ("C.constructor", "this.alias", "name:this.repo"),
    }


def test_returns() -> None:
    fi = index(
        "function a() { return new Foo(); }\n"
        "function b() { return helper(); }\n"
        "function c() { return inner; }\n"
        "async function d() { return await load(); }\n"
        "const e = () => new Bar();\n"
        "const f = () => { if (x) return one(); return two(); };\n"
        "function g() { return this; }\n"
        "function h() { return 42; }\n"
    )
    found = defs(fi)
    assert found["a"].returns == ("call:Foo",)
    assert found["b"].returns == ("call:helper",)
    assert found["c"].returns == ("name:inner",)
    assert found["d"].returns == ("call:load",)
    assert found["e"].returns == ("call:Bar",)
    assert found["f"].returns == ("call:one", "call:two")
    assert found["g"].returns == ("name:this",)
    assert found["h"].returns == ()


# ---- dynamic features, main guard, errors ----------------------------------------------------


def test_dynamic_flags() -> None:
    fi = index(
        "eval(code);\n"
        "const f = new Function('a', 'return a');\n"
        "handlers[event.type](event);\n"
        "require(`./locale/${lang}`);\n"
        "import(base + name);\n"
    )
    assert sorted((d.line, d.kind, d.prefix, d.name) for d in fi.dynamic) == [
        (1, "eval", None, None),
        (2, "eval", None, None),
        (3, "getattr", None, "handlers"),
        (4, "require", "./locale/", None),
        (5, "import", None, None),
    ]


@pytest.mark.parametrize(
    ("source", "guard"),
    [
        ("if (require.main === module) { main(); }\n", True),
        ("if (module == require.main) main();\n", True),
        ("if (import.meta.main) main();\n", True),
        ("if (import.meta.url === pathToFileURL(process.argv[1]).href) main();\n", True),
        ("function f() { if (require.main === module) main(); }\n", False),
        ("const dir = require.main.filename;\n", False),
        ("const here = import.meta.url;\n", False),
    ],
)
def test_main_guard(source: str, guard: bool) -> None:
    assert index(source).main_guard is guard


def test_syntax_error_keeps_definitions_after_it() -> None:
    fi = index("function a() {\n  return (\n}\n\nfunction b() {}\nfunction c() { b(); }\n")
    assert fi.syntax_errors > 0 and fi.flags == ("syntax-error",)
    assert {"b", "c"} <= set(defs(fi))
    assert ("c", "b", None, "b") in calls(fi)
    missing = index("class A { m() { }\n")
    assert missing.syntax_errors == 1 and "A.m" in defs(missing)


# ---- TypeScript ------------------------------------------------------------------------------


def test_typescript_declarations() -> None:
    fi = index(
        "export interface Repo extends Base, ns.Other {\n"
        "  find(id: string): Promise<User | null>;\n"
        "  find(id: number): Promise<User | null>;\n"
        "  name: string;\n"
        "}\n"
        "export type Id = string | number;\n"
        "export enum Color { Red, Green }\n"
        "export namespace Util { export function helper() {} function hidden() {} }\n"
        "declare module 'ext' { export function plug(): void; }\n"
        "export abstract class Shape { abstract area(): number; describe(): string { return ''; } }\n"
        "function over(a: string): void;\n"
        "function over(a: number): void;\n"
        "function over(a: any) {}\n",
        "typescript",
    )
    found = defs(fi)
    assert found["Repo"].kind == "interface" and found["Repo"].bases == ("Base", "ns.Other")
    assert found["Repo.find"].kind == "method" and found["Repo.find"].returns == ("User",)
    assert [d.line for d in fi.definitions if d.qualname == "Repo.find"] == [3]  # overloads collapse
    assert "Repo.name" not in found
    assert (found["Id"].kind, found["Color"].kind, found["Util"].kind) == ("type", "enum", "namespace")
    assert found["Util.helper"].exported and not found["Util.hidden"].exported
    assert found["ext"].kind == "namespace" and found["ext.plug"].exported
    assert found["Shape.area"].kind == "method" and found["Shape.describe"].returns == ("string",)
    assert [d.line for d in fi.definitions if d.qualname == "over"] == [13]
    assert exports(fi) == {
        ("Repo", "Repo", None, False),
        ("Id", "Id", None, False),
        ("Color", "Color", None, False),
        ("Util", "Util", None, False),
        ("Shape", "Shape", None, False),
    }


def test_typescript_classes_types_and_fields() -> None:
    fi = index(
        "@Injectable()\n"
        "export class UserService<T> extends BaseService<T> implements OnInit, ns.Api {\n"
        "  @Input() name: string;\n"
        "  private repo: Repo<User> = new Repo();\n"
        "  static instance: UserService<any>;\n"
        "  items: Item[] = [];\n"
        "  maybe?: Cache | undefined;\n"
        "  constructor(private readonly http: HttpClient, public cfg?: Config, plain: Other) {\n"
        "    super();\n"
        "  }\n"
        "  /** Find one. */\n"
        "  @Get(':id')\n"
        "  async find(id: string, ...rest: Array<number>): Promise<User> { return this.repo.get(id); }\n"
        "  private hidden(): void {}\n"
        "}\n",
        "typescript",
    )
    found = defs(fi)
    service = found["UserService"]
    assert service.bases == ("BaseService", "implements:OnInit", "implements:ns.Api")
    assert service.decorators == ("Injectable",)
    find = found["UserService.find"]
    assert find.decorators == ("Get",) and find.doc == "Find one."
    assert find.returns == ("User", "call:this.repo.get")
    assert [tuple(p) for p in find.params] == [("id", "string", False, ""), ("rest", "Array", False, "...")]
    assert find.signature == "async find(id: string, ...rest: Array<number>): Promise<User>"
    assert not found["UserService.hidden"].exported and found["UserService.find"].exported
    assert assigns(fi) == {
        ("UserService", "this.name", "type:string"),
        ("UserService", "this.repo", "type:Repo"),
        ("UserService", "this.repo", "call:Repo"),
        ("UserService", "UserService.instance", "type:UserService"),
        ("UserService", "this.items", "type:Array"),
        ("UserService", "this.maybe", "type:Cache"),
        ("UserService.constructor", "this.http", "type:HttpClient"),
        ("UserService.constructor", "this.cfg", "type:Config"),
    }
    params = found["UserService.constructor"].params
    assert [tuple(p) for p in params] == [
        ("http", "HttpClient", False, ""),
        ("cfg", "Config", True, ""),
        ("plain", "Other", False, ""),
    ]
    # decorators run where the class is defined; field initializers in the constructor
    assert {("", "Injectable"), ("", "Input"), ("", "Get"), ("UserService.constructor", "Repo")} <= {
        (c.scope, c.callee) for c in fi.calls
    }


def test_typescript_variable_types_and_casts() -> None:
    fi = index(
        "let a: Foo;\n"
        "const b: Bar = make();\n"
        "const c = load() as Baz;\n"
        "const d = <Qux>thing;\n"
        "let e: any, f: string, g: Map<string, Foo>;\n"
        "const h = (x: number): Foo | null => null;\n",
        "typescript",
    )
    assert {
        ("", "a", "type:Foo"),
        ("", "b", "type:Bar"),
        ("", "b", "call:make"),
        ("", "c", "type:Baz"),
        ("", "c", "call:load"),
        ("", "f", "type:string"),
        ("", "g", "type:Map"),
    } <= assigns(fi)
    # `any` names no type: `e` holds a value the later lines may set, never an undeclared global
    assert [a.value for a in fi.assignments if a.target == "e"] == ["expr:undefined"]
    assert defs(fi)["h"].returns == ("Foo",)


# ---- TSX / JSX -------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["tsx", "javascript"])
def test_jsx_components_are_calls(lang: str) -> None:
    fi = index(
        "export function App({ items }) {\n"
        "  return (\n"
        '    <Layout.Main title="x" onClick={handleClick}>\n'
        "      <div>{items.map(renderItem)}</div>\n"
        "      <Item {...props} />\n"
        "      <>{child}</>\n"
        "    </Layout.Main>\n"
        "  );\n"
        "}\n",
        lang,
    )
    got = {(c.scope, c.callee, c.receiver, c.name, c.args) for c in fi.calls}
    assert got == {
        ("App", "Layout.Main", "Layout", "Main", 1),
        ("App", "Item", None, "Item", 1),
        ("App", "items.map", "items", "map", 1),
    }
    assert {("App", "handleClick"), ("App", "renderItem"), ("App", "child")} <= refs(fi)
    assert next(c for c in fi.calls if c.callee == "Item").text == "<Item {...props} />"


# ---- determinism -----------------------------------------------------------------------------


def test_records_sorted_deduplicated_and_json_round_trip() -> None:
    source = "import a from 'a';\nexport function f(x) { g(x); g(x); return a(x); }\nclass C { m() {} }\n"
    fi = index(source)
    for name in ("imports", "exports", "definitions", "calls", "references", "assignments", "dynamic"):
        records = getattr(fi, name)
        assert list(records) == sorted(set(records))
    again = index(source)
    assert json.dumps(fi.to_json()) == json.dumps(again.to_json())
    assert FileIndex.from_json(json.loads(json.dumps(fi.to_json()))) == fi


def test_records_that_differ_by_a_none_field_only_sort() -> None:
    """A minified line that requires one module whole and for a member (npm's bundled tar)."""
    fi = index('const a = require("m"), b = require("m").x;\n')
    assert imports(fi) == {("m", None, "a", "require", ""), ("m", "x", "b", "require", "")}
    assert [i.name for i in fi.imports] == [None, "x"]


def test_type_only_imports_run_no_code() -> None:
    """``import type`` / ``export type {T} from`` name types alone: no import edge to a module only
    they name, where a value import beside them has one."""
    graph = fc.case_run(fc.FIXTURES / "typescript" / "ts_type_only_imports").graph
    imports = {(e.caller, e.callee) for e in graph.edges if e.relation == "imports"}
    assert ("index.ts", "loader.ts") in imports
    assert {
        ("index.ts", "config.ts"),
        ("index.ts", "barrel.ts"),
        ("barrel.ts", "shapes.ts"),
    } & imports == set()
