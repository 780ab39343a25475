"""JavaScript / TypeScript / TSX extractor: one tree-sitter query per grammar, captures sorted by
byte offset, scopes from a stack (the model of the Python extractor), in two passes. The captures
that open scopes or give names (definitions, declarators, assignments, exports, fields,
decorators) go in byte order through a stack, which records every frame it enters; the call,
reference and return sites, most of the captures, then take their scope from those frames by
bisection, with no sort of their own. Node `parent`/`prev_sibling` are avoided on the hot paths:
tree-sitter finds them by scanning siblings, quadratic over a bundle's thousands of statements.

The conventions below are what the link stage relies on.

Scopes. A call's scope is the nearest enclosing *named* function. Anonymous functions (callbacks,
IIFEs, functions passed as arguments, methods of unnamed objects or classes, computed-name methods)
are transparent: their calls belong to the named function around them, or to ``""`` at top level,
since they usually run when that code runs. Class and namespace bodies are transparent as in Python
(static fields and ``static {}`` blocks run where the class is defined). Instance field initializers
run at construction: their scope is ``Class.constructor`` when the class declares a constructor, else
the class qualname ``Class`` itself (the implicit constructor). Default parameter values run inside
the function. Decorators (of classes, members and parameters) run where the class is defined: the
class's enclosing scope.

Names. A function expression, arrow function or class expression is named by what it is bound to:
``const f = () => {}`` -> ``f``; ``this.x = function`` -> ``Owner.x`` (Owner: the class of the
method, or the constructor function); ``Foo.prototype.bar = function`` -> ``Foo.bar`` (kind method);
``A.b = function`` -> ``A.b`` (kind function, plus a Reference ``A.b`` in the enclosing scope, since
the function is stored away and the runtime may call it); object literal members of a named object
``const api = {parse() {}, run: () => {}}`` -> ``api.parse``, ``api.run`` (kind method, nested objects
``api.sub.f``); class fields holding functions ``handle = () => {}`` -> ``Class.handle`` (method).
``export default`` of an anonymous function / class / object, and ``module.exports =`` of an
anonymous function or class, are named ``default``. A function expression's own name does not name
it when it is bound (``const f = function g() {}`` is ``f``); an unbound one is anonymous.
Definitions are qualified with the enclosing named function / class / namespace (``outer.inner``).
Kinds: function, method, constructor, getter, setter, class, interface, type, enum, namespace.
Interface method signatures and abstract methods are kind method under the interface or class
(``I.m``); overload signatures followed by a same-named signature or implementation are skipped.

Classes. ``bases`` holds the ``extends`` base first (dotted text, ``mixin()`` for a call), then each
implemented interface prefixed ``implements:`` (``("Base", "implements:I")``); an interface's
``extends`` list is plain names. Type names drop generic arguments (``Repo<T>`` -> ``Repo``),
unwrap ``Promise<X>`` to ``X`` (what ``await`` yields), keep the one non-null member of a union
(``Foo | null`` -> ``Foo``, other unions -> none), and give ``Array`` for ``Foo[]`` and tuples (an
array is not a ``Foo``: ``items.map`` must not bind to ``Foo.map``).

Exports. ESM: ``export function f`` / ``class`` / ``const`` -> Export(f, local=f); ``export default
f`` or ``export default function f`` -> Export("default", local="f"); anonymous default ->
Export("default", local="default") with definitions ``default`` / ``default.member``; other default
expressions -> local None; ``export {a as b} from "m"`` -> Export("b", local="a", module="m");
``export * from "m"`` -> Export("*", module="m", star=True); ``export * as ns from "m"`` ->
Export("ns", module="m", star=True). Type-only re-exports (``export type {T} from``) are kept as
plain Exports (Export has no type-only mark).
CommonJS: the value of ``module.exports`` is the export named ``module.exports``:
``module.exports = X`` -> Export("module.exports", local="X") (anonymous function/class: local
"default"); ``module.exports = require("m")`` -> Export("module.exports", module="m", star=True)
plus Export("*", module="m", star=True); ``module.exports = {a, b: c, d() {}}`` -> Export("a",
local="a"), Export("b", local="c"), Export("d", local="d") with ``d`` a top-level definition (the
exports object is the module, so its members are top-level names); ``exports.x = f`` /
``module.exports.x = f`` -> Export("x", local="f"); ``exports.x = function () {}`` -> definition
``x`` + Export("x", local="x"); ``exports.x = require("m")`` -> Export("x", module="m", star=True);
``exports.x = require("m").y`` -> Export("x", local="y", module="m"); ``exports.x = void 0``
(compiler hoisting) is skipped. Compiled forms: ``Object.defineProperty(exports, "x", {get() {return
m_1.y}})`` -> Export("x", local="m_1.y"); ``__exportStar(require("m"), exports)`` / ``__export(...)``
-> Export("*", module="m", star=True); esbuild's ``__export(target, {x: () => y})`` -> Export("x",
local="y"); TypeScript ``export = X`` -> Export("module.exports", local="X"). Only top-level
statements give Export records (``declare module``/namespace bodies do not).

Imports. ESM kind ``esm`` (``import x`` -> name "default"); TypeScript type-only imports (``import
type``, ``import {type T}``) are kept with kind ``type``: they bind names for type resolution but run
no code. ``require("m")`` -> kind ``require``, bound by ``const x =`` (alias x), destructuring (one
Import per name), ``require("m").foo`` (name foo), interop wrappers (``__importDefault(require(..))``),
``x = require()``; anything else is a side-effect import (name and alias None). ``import("m")`` ->
kind ``dynamic`` bound the same way (``const m = await import("m")``). TypeScript ``import x =
require("m")`` -> kind ``require``. Literal ``require``/``import()`` calls give no Call record.

Definition.exported: a top-level definition is exported when an Export names it as local (or when
the file is a script: no import, require or export at all, so its top-level names are globals);
members of an exported class/object/prototype are exported unless private (``#x``, TypeScript
``private``/``protected``); namespace members need ``export`` and an exported namespace (none is
needed in an ambient ``declare namespace``/``declare module`` or in a .d.ts file); functions nested
in functions are not exported.

Calls. ``callee`` is the dotted text (optional chaining ``a?.b()`` reads ``a.b``; ``obj["m"]()`` reads
``obj.m``); ``receiver`` the text before the last member, ``f()`` for a call result, ``<expr>`` for
another expression; computed callees are ``<expr>`` with name ``""``. ``new Foo()`` -> new=True;
``super()`` -> callee ``super``, ``super.m()`` -> receiver ``super``, both super_call=True. A
capitalized JSX element ``<Comp/>`` (or ``<a.B/>``) is a call of ``Comp`` with one argument (props).
Bare decorators ``@dec`` are calls of ``dec`` with one argument. IIFEs give no Call (their body is
transparent already). Tagged templates are calls with one argument.

Assignments: ``call:F`` (called or constructed, through ``await``), ``name:a.b`` (alias),
``type:T`` (declared type, ``as T``). Class field declarations: scope is the class qualname, target
``this.field`` (``Class.field`` for static ones, the class's own short name); constructor parameter
properties: scope ``Class.constructor``, target ``this.param``. ``const {a, b: c} = obj`` ->
``a = name:obj.a``, ``c = name:obj.b``.

References: names and member chains used as values: call and ``new`` arguments, object literal
values and shorthand properties, array elements, returned values, JSX expressions
(``onClick={handle}``), the right side of ``=`` (with a ``name:`` assignment), ``export default x``,
``module.exports = x``, ``exports.x = y``; ``A.b = function`` adds a reference to ``A.b``
itself. Skipped: ``this`` alone, ``undefined``, ``arguments``, ``require``, ``module``, ``exports``.

Dynamic flags: ``eval`` (also ``new Function``/``Function()``); ``require``/``import`` with a computed
module (``prefix``: the static start of a concatenation or template); ``getattr`` for a call of a
computed member ``obj[k]()`` (``name``: the object's dotted text, when it has one).

main_guard: ``require.main === module`` (or ``==``, either side), ``import.meta.main``, or
``import.meta.url`` compared with something built from ``process.argv``, at top level.

Flags: ``syntax-error`` (ERROR or MISSING nodes, counted in syntax_errors), ``declarations`` for
``.d.ts``/``.d.mts``/``.d.cts`` files (type declarations that stand for no code).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import cache
from operator import itemgetter
from typing import Any, NamedTuple, TypeGuard, TypeVar

from tree_sitter import Node, Query, QueryCursor

from projectgraph.fileindex import (
    CALL_TEXT_MAX,
    Assignment,
    Call,
    Definition,
    DynamicFlag,
    Export,
    FileIndex,
    Import,
    Param,
    Reference,
)
from projectgraph.languages.base import folder_text, grammar_language, short_text
from projectgraph.languages.javascript.nodes import (
    FUNCTIONS,
    IDENTIFIER,
    INTEROP,
    SIMPLE_CHAIN,
    SIMPLE_NAME,
    SKIP_REFS,
    WRAPPERS,
    declared_names,
    decorator_name,
    dotted,
    element_names,
    element_source,
    first_arg,
    is_import_value,
    is_main_guard,
    is_private,
    is_void,
    key_name,
    one_line,
    pattern_name,
    require_module,
    spec_name,
    static_prefix,
    string_value,
    text,
    type_name,
    unwrap,
    value_fact,
)

_R = TypeVar("_R", bound=tuple[Any, ...])
_GRAMMARS = ("javascript", "typescript", "tsx")
# One query per grammar, assembled from shared parts so that the three never drift apart.
_PARTS = {
    "javascript": ("queries.scm", "queries-javascript.scm", "queries-jsx.scm"),
    "typescript": ("queries.scm", "queries-typescript.scm"),
    "tsx": ("queries.scm", "queries-typescript.scm", "queries-jsx.scm"),
}
_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
# Captures that shape scopes and names, handled in byte order with a stack; the others (calls,
# references, returns) only read the scope at their offset and are handled after, unsorted.
_ORDER = {"field.value": 0, "export": 1, "decorator": 1}
_SITES = frozenset({"call", "new", "ref", "return", "jsx", "forof", "yield"})
# array methods whose callback's first parameter receives each element of the receiver
_ELEMENT_METHODS = frozenset(
    "forEach map filter some every find findIndex findLast findLastIndex flatMap".split()
)
# values a declarator binds or names; any other (literals, operators) tells linking nothing
_BINDABLE = (
    FUNCTIONS
    | WRAPPERS
    | {
        "class",
        "object",
        "array",
        "identifier",
        "member_expression",
        "subscript_expression",
        "call_expression",
        "new_expression",
        "await_expression",
    }
)
# values that can never be called: a name bound to one of them records nothing
_LITERALS = frozenset({"string", "number", "template_string", "true", "false", "null", "undefined", "regex"})
_NAMED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition"})
_DOC_KEYWORDS = (b"export", b"default", b"declare", b"const", b"let", b"var")
_TEXT_BYTES = CALL_TEXT_MAX * 4  # bytes read for a call's short text
_DOC_WINDOW = 8192  # a JSDoc comment longer than this loses its first line
_SPAN = 1 << 36  # byte offsets stay below this: one int sort key packs start, end and rank


@cache
def _query(grammar: str) -> Query:
    return Query(grammar_language(grammar), folder_text(__file__, _PARTS[grammar]))


@cache
def _error_query(grammar: str) -> Query:
    # apart from the main query: matching MISSING costs a pass, and only trees with errors need it
    return Query(grammar_language(grammar), "(ERROR) @error (MISSING) @error")


def _grammar(tree: Any, path: str) -> str:
    """The grammar the tree was parsed with (the spec name), by the tree's language, else by path."""
    language = getattr(tree, "language", None)
    for grammar in _GRAMMARS:
        if language is not None and language == grammar_language(grammar):
            return grammar
    if path.endswith(".tsx"):
        return "tsx"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed JavaScript, TypeScript or TSX file."""
    grammar = _grammar(tree, path)
    return _Extractor(source, grammar).run(tree.root_node, path, file_hash)


class _Named(NamedTuple):
    """A name given to a value node before its capture is reached (keyed by its start byte)."""

    qualname: str
    kind: str
    header: int  # start byte of the signature text
    doc_start: int  # start byte of the statement a doc comment would precede
    member: bool  # a member of a class, object, prototype or `this`


class _Frame(NamedTuple):
    end: int
    kind: str  # function | anon | class | anonclass | namespace | override
    qualname: str
    aux: str  # function: the owner of `this`; class: the scope of instance field initializers
    header_end: int  # where the body starts: decorators before it belong to the header


class _Extractor:
    def __init__(self, source: bytes, grammar: str) -> None:
        self.source = source
        self.grammar = grammar
        self.typed = grammar != "javascript"  # TypeScript: read type annotations
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.definitions: list[Definition] = []
        self.server_module = False  # a 'use server' module (see _server_directives)
        self.server_functions: set[int] = set()
        self.calls: list[Call] = []
        self.references: list[Reference] = []
        self.assignments: list[Assignment] = []
        self.dynamic: list[DynamicFlag] = []
        self.returns: dict[int, list[str]] = {}
        self.names: dict[int, _Named] = {}
        self.private: set[str] = set()
        self.members: set[str] = set()
        self.marked: set[str] = set()  # qualnames declared under an `export` keyword
        self.ambient: set[str] = set()  # namespaces declared with `declare` (or in a .d.ts file)
        self.declarations = False  # a .d.ts file
        self.statement_starts: dict[int, int] = {}  # declaration start -> its export statement's
        self.export_decorators: dict[int, tuple[str, ...]] = {}  # `@dec export class`
        self.member_decorators: list[tuple[int, str]] = []  # TypeScript: decorators before a member
        self.field_end = -1  # end of the last class field: its decorators are not the next member's
        self.field_scope: tuple[int, str | None] = (-1, None)  # last field's end, its value's scope
        self.signatures: dict[str, int] = {}  # qualname -> its last bodiless signature's definition
        self.dropped: set[int] = set()  # overload signatures followed by another or the body
        self.named_functions: set[int] = set()  # start bytes of the function nodes given a name
        self.main_guard = False
        # `const x = (function () {...})()`: the IIFE's start -> (name, qualname, scope, line)
        self.iifes: dict[int, tuple[str, str, str, int]] = {}
        self.errors = 0
        self.stack: list[_Frame] = []
        self.scope: str | None = None  # the current scope, None when the stack changed
        # every frame, in start order: the scope and return owner of any offset, by bisection
        self.frame_starts: list[int] = []
        self.frame_ends: list[int] = []
        self.frame_parents: list[int] = []
        self.frame_scopes: list[str] = []
        self.frame_owners: list[int] = []  # the Definition a `return` belongs to; -1 for none
        self.frame_ids: list[int] = []  # stack position -> frame record

    # scopes ----------------------------------------------------------------------------------
    def _push(self, node: Node, kind: str, qualname: str = "", aux: str = "", definition: int = -1) -> None:
        body = node.child_by_field_name("body")
        header_end = body.start_byte if body is not None else node.end_byte
        parent = self.frame_ids[-1] if self.frame_ids else -1
        if kind in ("function", "override"):
            scope = qualname
        else:
            scope = self.frame_scopes[parent] if parent >= 0 else ""
        if kind == "function":
            owner = definition
        elif kind == "anon":
            owner = -1
        else:
            owner = self.frame_owners[parent] if parent >= 0 else -1
        self.frame_ids.append(len(self.frame_starts))
        self.frame_starts.append(node.start_byte)
        self.frame_ends.append(node.end_byte)
        self.frame_parents.append(parent)
        self.frame_scopes.append(scope)
        self.frame_owners.append(owner)
        self.stack.append(_Frame(node.end_byte, kind, qualname, aux, header_end))
        self.scope = None

    def _scope(self) -> str:
        """The scope at the current offset of the ordered pass."""
        if self.scope is None:
            self.scope = self.frame_scopes[self.frame_ids[-1]] if self.frame_ids else ""
        return self.scope

    def _frame_at(self, offset: int) -> int:
        """The innermost frame holding `offset` (after the ordered pass), or -1."""
        index = bisect_right(self.frame_starts, offset) - 1
        ends, parents = self.frame_ends, self.frame_parents
        while index >= 0 and ends[index] <= offset:
            index = parents[index]
        return index

    def _scope_at(self, offset: int) -> str:
        index = self._frame_at(offset)
        return self.frame_scopes[index] if index >= 0 else ""

    def _container(self) -> str:
        for frame in reversed(self.stack):
            if frame.kind in ("function", "class", "namespace"):
                return frame.qualname
        return ""

    def _this_owner(self) -> str:
        for frame in reversed(self.stack):
            if frame.kind == "function":
                return frame.aux
        return ""

    def _qualify(self, name: str) -> str:
        container = self._container()
        return f"{container}.{name}" if container else name

    def _class_frame(self) -> _Frame | None:
        frame = self.stack[-1] if self.stack else None
        return frame if frame is not None and frame.kind == "class" else None

    # the run ---------------------------------------------------------------------------------
    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        self.declarations = path.endswith(_DECLARATION_SUFFIXES)
        captures = QueryCursor(_query(self.grammar)).captures(root)
        ordered: list[tuple[int, str, Node]] = []
        append = ordered.append
        for name, nodes in captures.items():
            if name in _SITES:
                continue
            rank = _ORDER.get(name, 2)
            for node in nodes:
                # by start; outer nodes (longer spans) first at one offset; then by capture rank
                append((((node.start_byte * _SPAN) + _SPAN - node.end_byte) << 2 | rank, name, node))
        ordered.sort(key=itemgetter(0))
        handlers = {
            "def.function": self._function,
            "def.lambda": self._lambda,
            "def.class": self._class,
            "def.method": self._method,
            "def.interface": self._interface,
            "def.type": self._type_alias,
            "def.enum": self._enum,
            "def.namespace": self._namespace,
            "def.signature": self._member_signature,
            "decorator": self._decorator,
            "declare": self._declare,
            "assign": self._assign,
            "catch": self._catch,
            "import": self._import,
            "export": self._export,
            "field": self._field,
            "field.value": self._field_value,
        }
        stack, frame_ids = self.stack, self.frame_ids
        for _key, name, node in ordered:
            handler = handlers.get(name)
            if handler is None:
                continue
            start = node.start_byte
            if stack and stack[-1].end <= start:
                while stack and stack[-1].end <= start:
                    stack.pop()
                    frame_ids.pop()
                self.scope = None
            handler(node)
        stack.clear()
        frame_ids.clear()
        sites = (
            ("call", self._call),
            ("new", self._new),
            ("jsx", self._jsx),
            ("ref", self._ref),
            ("return", self._return),
            ("forof", self._for_of),
            ("yield", self._yield),
        )
        for name, site in sites:
            for node in captures.get(name, ()):
                site(node)
        if root.has_error:
            errors = QueryCursor(_error_query(self.grammar)).captures(root)
            self.errors = sum(len(nodes) for nodes in errors.values())
        self._main_guard(root)
        self._server_directives(root)
        return self._index(path, file_hash)

    def _index(self, path: str, file_hash: str) -> FileIndex:
        exported = self._exported_names()
        definitions = []
        for index, definition in enumerate(self.definitions):
            if index in self.dropped:
                continue
            facts = self.returns.get(index)
            if facts:
                definition = definition._replace(returns=tuple(dict.fromkeys((*definition.returns, *facts))))
            public = exported(definition.qualname)
            if index in self.server_functions or (
                self.server_module
                and public
                and "." not in definition.qualname
                and definition.kind in ("function", "variable")
            ):
                definition = definition._replace(decorators=(*definition.decorators, "use server"))
            definitions.append(definition._replace(exported=public))
        flags = []
        if self.errors:
            flags.append("syntax-error")
        if self.declarations:
            flags.append("declarations")
        return FileIndex(
            path=path,
            language=self.grammar,
            hash=file_hash,
            imports=_sorted_unique(self.imports),
            exports=_sorted_unique(self.exports),
            definitions=tuple(sorted(definitions)),
            calls=_sorted_unique(self.calls),
            references=_sorted_unique(self.references),
            assignments=_sorted_unique(self.assignments),
            dynamic=_sorted_unique(self.dynamic),
            main_guard=self.main_guard,
            syntax_errors=self.errors,
            flags=tuple(flags),
        )

    def _exported_names(self) -> Callable[[str], bool]:
        is_module = bool(self.exports) or any(i.kind in ("esm", "require", "type") for i in self.imports)
        locals_ = {e.local for e in self.exports if e.module is None and e.local}
        kinds = {d.qualname: d.kind for d in self.definitions}
        memo: dict[str, bool] = {}

        def exported(qualname: str) -> bool:
            known = memo.get(qualname)
            if known is not None:
                return known
            parent = qualname.rpartition(".")[0]
            if not parent:
                result = not is_module or qualname in locals_ or qualname in self.marked
            elif qualname in self.private:
                result = False
            elif qualname in self.members:
                result = exported(parent)
            elif kinds.get(parent) == "namespace":
                result = (qualname in self.marked or parent in self.ambient) and exported(parent)
            elif parent not in kinds:
                # `namespace N.M`, `Foo.bar = function`: a dotted name whose head is no definition here
                result = exported(qualname.partition(".")[0])
            else:
                result = False  # nested in a function
            memo[qualname] = result
            return result

        return exported

    # docs, decorators, signatures ------------------------------------------------------------
    def _doc(self, start: int) -> str:
        """First line of a `/** ... */` comment right before the statement starting at `start`.

        Read backwards in the bytes: `prev_sibling` and `parent` scan a node's siblings, which is
        quadratic over the thousands of statements of a bundled file."""
        start = self.statement_starts.get(start, start)
        window_start = max(0, start - _DOC_WINDOW)
        before = self.source[window_start:start].rstrip()
        stripped = True
        while stripped:  # `export default`, `declare`, `const` stand between a comment and a name
            stripped = False
            for keyword in _DOC_KEYWORDS:
                if before.endswith(keyword) and (
                    len(before) == len(keyword) or before[-len(keyword) - 1] in b" \t\r\n"
                ):
                    before = before[: -len(keyword)].rstrip()
                    stripped = True
        if not before.endswith(b"*/"):
            return ""
        opening = before.rfind(b"/*")
        if opening == -1 or not before.startswith(b"/**", opening) or len(before) - opening < 5:
            return ""
        if self.source.count(b"\n", window_start + len(before), start) > 1:
            return ""  # a blank line between: a file's header comment, not this definition's
        for line in before[opening + 3 : -2].decode("utf-8", "replace").splitlines():
            line = line.strip().lstrip("*").strip()
            if line and not line.startswith("@"):
                return line[:200]
        return ""

    def _decorators(self, node: Node) -> tuple[str, ...]:
        names = [decorator_name(child) for child in node.children if child.type == "decorator"]
        return (*self.export_decorators.get(node.start_byte, ()), *names)

    def _take_member_decorators(self) -> tuple[tuple[str, ...], int | None]:
        """The TypeScript decorators just before a class member (its siblings), and where they start."""
        found = self.member_decorators
        if not found:
            return (), None
        self.member_decorators = []
        return tuple(name for _start, name in found), found[0][0]

    def _header(self, start: int, node: Node, body: Node | None) -> str:
        end = body.start_byte if body is not None else node.end_byte
        return one_line(self.source[start:end]).rstrip(";")

    # definitions -----------------------------------------------------------------------------
    def _define(
        self,
        node: Node,
        qualname: str,
        kind: str,
        header: int,
        doc_start: int,
        this_owner: str,
        decorators: tuple[str, ...] = (),
        signature: bool = False,
    ) -> None:
        """Record a function-like definition; unless it is a bodiless signature, enter its frame."""
        params_node = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        body = node.child_by_field_name("body")
        return_type = type_name(node.child_by_field_name("return_type")) if self.typed else None
        is_async = any(child.type == "async" for child in node.children[:4])
        index = len(self.definitions)
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind=kind,
                name=qualname.rpartition(".")[2],
                qualname=qualname,
                column=node.start_point[1],
                signature=self._header(header, node, body),
                doc=self._doc(doc_start),
                decorators=decorators,
                params=self._params(params_node),
                returns=(return_type,) if return_type else (),
                is_async=is_async,
            )
        )
        self.named_functions.add(node.start_byte)
        self._default_values(qualname, params_node)
        # an overload signature stands aside for the next signature or the implementation
        overloaded = self.signatures.pop(qualname, None)
        if overloaded is not None:
            self.dropped.add(overloaded)
        if signature:
            self.signatures[qualname] = index
            return
        self._push(node, "function", qualname, this_owner, index)
        if body is not None and body.type != "statement_block":
            self._return_fact(index, body)  # an arrow function with an expression body

    def _default_values(self, qualname: str, params: Node | None) -> None:
        """`function f(fn = fallback)`: the parameter holds `fallback` when no argument is passed;
        `function f({onDone})`: `onDone = name:{}.onDone`, a property of the parameter `{}`."""
        if params is None or params.type == "identifier":
            return
        for child in params.named_children:
            pattern = child.child_by_field_name("pattern") if child.type == "required_parameter" else child
            if pattern is not None and pattern.type == "object_pattern":
                for part in pattern.named_children:
                    key = bound = None
                    if part.type == "shorthand_property_identifier_pattern":
                        key = bound = text(part)
                    elif part.type == "pair_pattern":
                        key = key_name(part.child_by_field_name("key"))
                        value = part.child_by_field_name("value")
                        bound = text(value) if value is not None and value.type == "identifier" else None
                    if key and bound:
                        line = part.start_point[0] + 1
                        self.assignments.append(Assignment(line, qualname, bound, f"name:{{}}.{key}"))
                continue
            if child.type == "assignment_pattern":
                left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
            elif child.type in ("required_parameter", "optional_parameter"):
                left, right = child.child_by_field_name("pattern"), child.child_by_field_name("value")
            else:
                continue
            if left is None or right is None or left.type != "identifier":
                continue
            held = dotted(unwrap(right))
            if held is not None and held not in SKIP_REFS:
                line = child.start_point[0] + 1
                self.assignments.append(Assignment(line, qualname, text(left), f"default:{held}"))

    def _params(self, node: Node | None) -> tuple[Param, ...]:
        if node is None:
            return ()
        if node.type == "identifier":  # `x => ...`
            return (Param(text(node)),)
        params = []
        for child in node.named_children:
            kind = child.type
            if kind in ("identifier", "object_pattern", "array_pattern"):
                params.append(Param(pattern_name(child)))
            elif kind == "assignment_pattern":
                params.append(Param(pattern_name(child), default=True))
            elif kind == "rest_pattern":
                params.append(Param(pattern_name(child), variadic="..."))
            elif kind in ("required_parameter", "optional_parameter"):
                pattern = child.child_by_field_name("pattern")
                default = kind == "optional_parameter" or child.child_by_field_name("value") is not None
                params.append(
                    Param(
                        pattern_name(pattern),
                        type_name(child.child_by_field_name("type")),
                        default=default,
                        variadic="..." if pattern is not None and pattern.type == "rest_pattern" else "",
                    )
                )
        return tuple(params)

    def _function(self, node: Node) -> None:
        qualname = self._qualify(text(node.child_by_field_name("name")))
        self._define(node, qualname, "function", node.start_byte, node.start_byte, qualname)

    def _lambda(self, node: Node) -> None:
        named = self.names.pop(node.start_byte, None)
        if named is None:
            self._push(node, "anon")
            return
        if named.kind == "function":
            this_owner = self._this_owner() if node.type == "arrow_function" else named.qualname
        else:
            this_owner = named.qualname.rpartition(".")[0]
        if named.member:
            self.members.add(named.qualname)
        self._define(node, named.qualname, named.kind, named.header, named.doc_start, this_owner)

    def _method(self, node: Node) -> None:
        key = key_name(node.child_by_field_name("name"))
        kind = "method"
        for child in node.children[:4]:
            if child.type in ("get", "set"):
                kind = "getter" if child.type == "get" else "setter"
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind in ("class", "anonclass"):  # a class member
            decorators, decorated_from = self._take_member_decorators()
            if top.kind == "anonclass" or key is None:
                self._push(node, "anon")
                return
            qualname = f"{top.qualname}.{key}"
            if key == "constructor":
                kind = "constructor"
            if key.startswith("#") or is_private(node):
                self.private.add(qualname)
            self.members.add(qualname)
            doc_start = node.start_byte if decorated_from is None else decorated_from
            decorators = (*decorators, *self._decorators(node))
            header = _after_decorators(node) if decorators else node.start_byte
            self._define(node, qualname, kind, header, doc_start, top.qualname, decorators)
            if kind == "constructor":
                self._parameter_properties(qualname, node.child_by_field_name("parameters"))
            return
        named = self.names.pop(node.start_byte, None)  # a method of an object literal
        if named is None:
            self._push(node, "anon")
            return
        if named.member:
            self.members.add(named.qualname)
        owner = named.qualname.rpartition(".")[0]
        self._define(node, named.qualname, named.kind, named.header, named.doc_start, owner)

    def _parameter_properties(self, scope: str, params: Node | None) -> None:
        """`constructor(private svc: Service)` assigns `this.svc`."""
        if params is None:
            return
        for child in params.named_children:
            if child.type not in ("required_parameter", "optional_parameter"):
                continue
            modifiers = ("accessibility_modifier", "readonly", "override_modifier")
            if not any(c.type in modifiers for c in child.children):
                continue
            name = pattern_name(child.child_by_field_name("pattern"))
            declared = type_name(child.child_by_field_name("type"))
            if name and declared:
                line = child.start_point[0] + 1
                self.assignments.append(Assignment(line, scope, f"this.{name}", f"type:{declared}"))

    def _class(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        named = self.names.pop(node.start_byte, None)
        if named is not None:
            qualname, header, doc_start = named.qualname, named.header, named.doc_start
            if named.member:
                self.members.add(qualname)
        elif node.type != "class" and name_node is not None:
            qualname, header, doc_start = (
                self._qualify(text(name_node)),
                _after_decorators(node),
                node.start_byte,
            )
        else:
            self._push(node, "anonclass")
            return
        body = node.child_by_field_name("body")
        init_scope = qualname
        if body is not None:
            for member in body.named_children:
                if member.type != "method_definition":
                    continue
                if key_name(member.child_by_field_name("name")) == "constructor":
                    init_scope = f"{qualname}.constructor"
                    break
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind="class",
                name=qualname.rpartition(".")[2],
                qualname=qualname,
                column=node.start_point[1],
                signature=self._header(header, node, body),
                doc=self._doc(doc_start),
                bases=self._bases(node),
                decorators=self._decorators(node),
            )
        )
        self._push(node, "class", qualname, init_scope)

    def _bases(self, node: Node) -> tuple[str, ...]:
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        if heritage is None:
            return ()
        extends: list[str] = []
        implements: list[str] = []
        for child in heritage.named_children:
            if child.type == "extends_clause":
                for value in child.children_by_field_name("value"):
                    base = dotted(value)
                    if base is not None:
                        extends.append(base)
            elif child.type == "implements_clause":
                for value in child.named_children:
                    name = type_name(value)
                    if name is not None:
                        implements.append(f"implements:{name}")
            elif child.type != "comment":
                base = dotted(child)  # JavaScript: `extends <expression>`
                if base is not None:
                    extends.append(base)
        return (*extends, *implements)

    def _declaration(self, node: Node, kind: str) -> None:
        """Interfaces, type aliases, enums, namespaces: definitions of TypeScript alone."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = string_value(name_node) if name_node.type == "string" else "".join(text(name_node).split())
        if not name:
            return
        qualname = self._qualify(name)
        if name_node.type == "string":
            self.marked.add(qualname)  # an ambient `declare module "m"`: all of it is m's
        if kind == "namespace" and (
            self.declarations
            or name_node.type == "string"
            or self._container() in self.ambient
            or (node.parent is not None and node.parent.type == "ambient_declaration")
        ):
            self.ambient.add(qualname)  # `declare namespace N`: its members are exported without `export`
        body = node.child_by_field_name("body")
        bases: tuple[str, ...] = ()
        if kind == "interface":
            clause = next((c for c in node.named_children if c.type == "extends_type_clause"), None)
            if clause is not None:
                bases = tuple(n for n in (type_name(t) for t in clause.named_children) if n)
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind=kind,
                name=qualname.rpartition(".")[2],
                qualname=qualname,
                column=node.start_point[1],
                signature=self._header(node.start_byte, node, body if kind != "type" else None),
                doc=self._doc(node.start_byte),
                bases=bases,
            )
        )
        if kind == "interface":
            self._push(node, "class", qualname, qualname)
        elif kind == "namespace":
            self._push(node, "namespace", qualname, qualname)

    def _interface(self, node: Node) -> None:
        self._declaration(node, "interface")

    def _type_alias(self, node: Node) -> None:
        self._declaration(node, "type")

    def _enum(self, node: Node) -> None:
        self._declaration(node, "enum")

    def _namespace(self, node: Node) -> None:
        self._declaration(node, "namespace")

    def _member_signature(self, node: Node) -> None:
        """Interface and abstract method signatures, TypeScript function signatures (no body)."""
        key = key_name(node.child_by_field_name("name"))
        if key is None:
            return
        if node.type == "function_signature":
            qualname = self._qualify(key)
            self._define(
                node, qualname, "function", node.start_byte, node.start_byte, qualname, signature=True
            )
            return
        decorators, decorated_from = self._take_member_decorators()
        frame = self._class_frame()
        if frame is None:
            return
        qualname = f"{frame.qualname}.{key}"
        self.members.add(qualname)
        if key.startswith("#") or is_private(node):
            self.private.add(qualname)
        doc_start = node.start_byte if decorated_from is None else decorated_from
        self._define(node, qualname, "method", node.start_byte, doc_start, frame.qualname, decorators, True)

    def _decorator(self, node: Node) -> None:
        # A decorator runs where its class is defined. The JavaScript grammar puts a method's
        # decorators inside the method node, whose frame is already entered: step out of it.
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind in ("function", "anon") and node.start_byte < top.header_end:
            outer = self.frame_ids[-2] if len(self.frame_ids) > 1 else -1
            scope = self.frame_scopes[outer] if outer >= 0 else ""
        else:
            scope = self._scope()
            in_body = top is not None and top.kind == "class" and node.start_byte > top.header_end
            if in_body and node.start_byte >= self.field_end:  # TypeScript: a sibling of its member
                self.member_decorators.append((node.start_byte, decorator_name(node)))
        self._push(node, "override", scope)
        expr = node.named_children[0] if node.named_children else None
        if expr is None or expr.type == "call_expression":
            return  # `@deco(...)` is a call node of its own
        name = dotted(expr)
        if name is None:
            return
        receiver, _, last = name.rpartition(".")
        line, column = node.start_point
        self.calls.append(
            Call(line + 1, column, scope, name, last, receiver or None, 1, "@" + name[:CALL_TEXT_MAX])
        )

    # fields, declarators, assignments ---------------------------------------------------------
    def _field(self, node: Node) -> None:
        self.member_decorators = []
        self.field_end = node.end_byte
        self.field_scope = (node.end_byte, None)
        frame = self._class_frame()
        if frame is None:
            return
        key = key_name(node.child_by_field_name("name") or node.child_by_field_name("property"))
        if key is None:
            return
        static = any(child.type == "static" for child in node.children)
        # instance initializers run in the constructor; static ones where the class is defined
        self.field_scope = (node.end_byte, None if static else frame.aux)
        target = f"{frame.qualname.rpartition('.')[2]}.{key}" if static else f"this.{key}"
        qualname = f"{frame.qualname}.{key}"
        line = node.start_point[0] + 1
        declared = type_name(node.child_by_field_name("type"))
        if declared:
            self.assignments.append(Assignment(line, frame.qualname, target, f"type:{declared}"))
        value = node.child_by_field_name("value")
        if value is None:
            return
        value = unwrap(value)
        if self._name_value(value, qualname, "method", node.start_byte, node.start_byte, member=True):
            if key.startswith("#") or is_private(node):
                self.private.add(qualname)
            return
        self._bind(target, value, line, frame.qualname, self._scope() if static else frame.aux)

    def _field_value(self, node: Node) -> None:
        end, scope = self.field_scope
        if scope is not None and node.end_byte <= end:
            self._push(node, "override", scope)

    def _name_value(
        self, value: Node, qualname: str, kind: str, header: int, doc_start: int, member: bool = False
    ) -> bool:
        """Name a function, class or object literal bound to `qualname`; False for other values."""
        value_type = value.type
        if value_type in FUNCTIONS:
            self.names[value.start_byte] = _Named(qualname, kind, header, doc_start, member)
            return True
        if value_type == "class":
            self.names[value.start_byte] = _Named(qualname, "class", header, doc_start, member)
            return True
        if value_type == "object":
            if member:
                self.members.add(qualname)
            self._name_object(value, qualname)
            return True
        return False

    def _name_object(self, obj: Node, prefix: str, exports: bool = False) -> None:
        """Name the functions of an object literal bound to `prefix` ("" for `module.exports`);
        a member holding a name or a nested object is an assignment `prefix.key = name:x` /
        `object:prefix.key` (the linker's allocation site `prefix`)."""
        for child in obj.named_children:
            kind = child.type
            if kind == "pair":
                key = key_name(child.child_by_field_name("key"))
                value_node = child.child_by_field_name("value")
                if key is None or value_node is None:
                    continue
                value = unwrap(value_node)
                qualname = f"{prefix}.{key}" if prefix else key
                if exports and self._export_value(key, value, child.start_point[0] + 1, child):
                    continue
                if prefix and value.type in ("identifier", "member_expression"):
                    name = dotted(value)
                    if name is not None and name not in SKIP_REFS:
                        line = child.start_point[0] + 1
                        self.assignments.append(Assignment(line, self._scope(), qualname, f"name:{name}"))
                    continue
                if prefix and value.type in ("object", "array"):
                    line = child.start_point[0] + 1
                    self.assignments.append(Assignment(line, self._scope(), qualname, f"object:{qualname}"))
                    if value.type == "array":
                        self._name_array(value, qualname, self._scope())
                        continue
                member_kind = "method" if prefix else "function"
                self._name_value(
                    value, qualname, member_kind, child.start_byte, child.start_byte, bool(prefix)
                )
            elif kind == "method_definition":
                key = key_name(child.child_by_field_name("name"))
                if key is None:
                    continue
                qualname = f"{prefix}.{key}" if prefix else key
                method_kind = "method" if prefix else "function"
                for part in child.children[:4]:
                    if part.type in ("get", "set"):
                        method_kind = "getter" if part.type == "get" else "setter"
                start = child.start_byte
                self.names[start] = _Named(qualname, method_kind, start, start, bool(prefix))
                if exports:
                    self.exports.append(Export(child.start_point[0] + 1, key, qualname))
            elif kind == "shorthand_property_identifier" and exports:
                name = text(child)
                self.exports.append(Export(child.start_point[0] + 1, name, name))
            elif kind == "shorthand_property_identifier" and prefix:
                name = text(child)
                line = child.start_point[0] + 1
                self.assignments.append(Assignment(line, self._scope(), f"{prefix}.{name}", f"name:{name}"))

    def _name_array(self, array: Node, prefix: str, scope: str) -> None:
        """`[a, b]` bound to `prefix`: `prefix.0 = name:a`, `prefix.1 = name:b` (up to a spread)."""
        position = 0
        for element in array.named_children:
            kind = element.type
            if kind == "comment":
                continue
            if kind == "spread_element":
                return  # the positions after it are unknown
            value = unwrap(element)
            if value.type in ("identifier", "member_expression"):
                name = dotted(value)
                if name is not None and name not in SKIP_REFS:
                    line = element.start_point[0] + 1
                    self.assignments.append(Assignment(line, scope, f"{prefix}.{position}", f"name:{name}"))
            position += 1

    def _declare(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        line = node.start_point[0] + 1
        scope = self._scope()
        if name_node.type == "identifier":
            name = text(name_node)
            declared = type_name(node.child_by_field_name("type")) if self.typed else None
            if declared:
                self.assignments.append(Assignment(line, scope, name, f"type:{declared}"))
            if value_node is None:
                if not declared:
                    # `let debug` then `debug = ...` in ways the index may not follow: a call of
                    # `debug` must not read as a call of an undeclared global
                    self.assignments.append(Assignment(line, scope, name, "expr:undefined"))
                return
            value_type = value_node.type
            if value_type not in _BINDABLE:
                if value_type not in _LITERALS:
                    # `const f = cond ? a : b`, `x || y`: the name holds a value the index does not
                    # follow; a call of it must say so (it is no undeclared global)
                    self.assignments.append(Assignment(line, scope, name, f"expr:{value_type}"))
                return  # a literal: nothing to name or bind
            if value_type in WRAPPERS:
                self._cast(name, value_node, line, scope)
                value_node = unwrap(value_node)
            qualname = self._qualify(name)
            iife = False
            if value_node.type == "call_expression":
                fn = value_node.child_by_field_name("function")
                inner = unwrap(fn) if fn is not None else None
                if inner is not None and inner.type in FUNCTIONS:
                    # `const api = (function () { ... return {...}; })()`: the module pattern
                    self.iifes[inner.start_byte] = (name, qualname, scope, line)
                    iife = True
            if value_node.type in ("object", "array"):
                # an allocation site: `name` holds the object `qualname`, whose members are
                # the assignments `qualname.key` (its literal's and those made later)
                self.assignments.append(Assignment(line, scope, name, f"object:{qualname}"))
                if value_node.type == "array":
                    self._name_array(value_node, qualname, scope)
                    return
            if self._name_value(value_node, qualname, "function", node.start_byte, node.start_byte):
                return
            if not self._bind(name, value_node, line, scope) and not iife:
                self.assignments.append(Assignment(line, scope, name, f"expr:{value_node.type}"))
            return
        value = unwrap(value_node) if value_node is not None else None
        base = None if value is None or is_import_value(value) else dotted(value)
        if base is None:
            if value is None or not is_import_value(value):
                # `const [a, b] = f()`, `const {x = 1, ...rest} = pick()`: values the index does
                # not follow; each name bound by the pattern holds an expression
                self._unfollowed_pattern(name_node, line, scope)
            return
        if name_node.type == "array_pattern":
            position = 0
            for part in name_node.named_children:
                if part.type == "comment":
                    continue
                if part.type == "rest_pattern":
                    break
                target = part.child_by_field_name("left") if part.type == "assignment_pattern" else part
                if target is not None and target.type == "identifier":
                    self.assignments.append(Assignment(line, scope, text(target), f"name:{base}.{position}"))
                elif target is not None:
                    self._unfollowed_pattern(target, line, scope)
                position += 1
            if position < len(name_node.named_children):
                for part in name_node.named_children[position:]:
                    self._unfollowed_pattern(part, line, scope)
        elif name_node.type == "object_pattern":
            for part in name_node.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    name = text(part)
                    self.assignments.append(Assignment(line, scope, name, f"name:{base}.{name}"))
                elif part.type == "pair_pattern":
                    key = key_name(part.child_by_field_name("key"))
                    target = part.child_by_field_name("value")
                    if key and target is not None and target.type == "identifier":
                        self.assignments.append(Assignment(line, scope, text(target), f"name:{base}.{key}"))
                    elif target is not None:
                        self._unfollowed_pattern(target, line, scope)
                elif part.type != "comment":
                    # `{x = 1}`, `{...rest}`: a default or the rest of the object
                    self._unfollowed_pattern(part, line, scope)

    def _unfollowed_pattern(self, pattern: Node, line: int, scope: str) -> None:
        """Every name a destructuring pattern binds holds a value the index does not follow."""
        if pattern.type == "identifier":
            self.assignments.append(Assignment(line, scope, text(pattern), "expr:pattern"))
            return
        if pattern.type in ("shorthand_property_identifier_pattern",):
            self.assignments.append(Assignment(line, scope, text(pattern), "expr:pattern"))
            return
        if pattern.type in ("assignment_pattern", "object_assignment_pattern"):
            left = pattern.child_by_field_name("left")
            if left is not None:
                self._unfollowed_pattern(left, line, scope)
            return
        if pattern.type == "pair_pattern":
            value = pattern.child_by_field_name("value")
            if value is not None:
                self._unfollowed_pattern(value, line, scope)
            return
        if pattern.type in ("array_pattern", "object_pattern", "rest_pattern"):
            for part in pattern.named_children:
                self._unfollowed_pattern(part, line, scope)

    def _catch(self, node: Node) -> None:
        """`catch (fail) { fail() }`: the thrown value, which the index does not follow."""
        self._unfollowed_pattern(node, node.start_point[0] + 1, self._scope())

    def _cast(self, target: str, value: Node, line: int, scope: str) -> None:
        """`x = y as Foo` declares x a Foo."""
        if value.type in ("as_expression", "satisfies_expression") and value.named_child_count >= 2:
            declared = type_name(value.named_children[1])
            if declared and declared != "const":
                self.assignments.append(Assignment(line, scope, target, f"type:{declared}"))

    def _assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right_node = node.child_by_field_name("right")
        if left is None or right_node is None:
            return
        if node.type == "augmented_assignment_expression":
            operator = node.child_by_field_name("operator")
            if operator is None or operator.type not in ("||=", "??=", "&&="):
                return
        target = dotted(left)
        if target is None:
            if left.type in ("array_pattern", "object_pattern"):
                # `[a, b] = pair()`: the names now hold values the index does not follow
                self._unfollowed_pattern(left, node.start_point[0] + 1, self._scope())
            return
        line = node.start_point[0] + 1
        scope = self._scope()
        right = unwrap(right_node)
        start = node.start_byte
        if target == "module.exports":
            self._module_exports(right, line, node)
            return
        if target.startswith(("exports.", "module.exports.")):
            member = target.removeprefix("module.").removeprefix("exports.")
            if "." not in member:
                if not self._export_value(member, right, line, node):
                    self.exports.append(Export(line, member))
                    self._bind(target, right, line, scope)
                return
        self._cast(target, right_node, line, scope)
        if target.startswith("this."):
            member = target[5:]
            owner = self._this_owner()
            qualname = f"{owner}.{member}" if owner else member
            if "." not in member and self._name_value(right, qualname, "method", start, start, member=True):
                return
        elif ".prototype." in target:
            cls, _, member = target.partition(".prototype.")
            qualname = self._qualify(f"{cls}.{member}")
            if "." not in member and self._name_value(right, qualname, "method", start, start, member=True):
                return
        elif target.endswith(".prototype"):
            if right.type == "object":
                self._name_object(right, self._qualify(target.removesuffix(".prototype")))
                return
        elif right.type in ("object", "array") and "." in target and not target.startswith("this."):
            qualname = self._qualify(target)
            self.assignments.append(Assignment(line, scope, target, f"object:{qualname}"))
            if right.type == "array":
                self._name_array(right, qualname, scope)
            else:
                self._name_object(right, qualname)
            return
        elif self._name_value(right, self._qualify(target), "function", start, start):
            if "." in target and right.type != "object":
                # a function stored in a member may be called by anyone who holds the object
                self.references.append(Reference(line, right.start_point[1], scope, self._qualify(target)))
            return
        if not self._bind(target, right, line, scope) and right.type not in _LITERALS:
            # `debug = cond ? f : g`: the name now holds a value the index does not follow
            self.assignments.append(Assignment(line, scope, target, f"expr:{right.type}"))

    def _module_exports(self, right: Node, line: int, node: Node) -> None:
        """`module.exports = <value>`: the module's value, exported as "module.exports"."""
        if right.type == "call_expression":
            fn = right.child_by_field_name("function")
            loaded = require_module(unwrap(fn)) if fn is not None else None
            if loaded is not None and loaded[1] is None:
                # `module.exports = require("./common")(exports)`: what the loaded factory returns,
                # through an import bound to a name no source can spell
                alias = f"@require{line}"
                self.imports.append(Import(line, loaded[0], None, alias, kind="require", scope=self._scope()))
                self.exports.append(Export(line, "module.exports", f"{alias}()"))
                return
        required = require_module(right)
        if required is not None:
            module, member = required
            if member is None:
                self.exports.append(Export(line, "module.exports", None, module, True))
                self.exports.append(Export(line, "*", None, module, True))
            else:
                self.exports.append(Export(line, "module.exports", member, module))
            return
        kind = right.type
        if kind in ("identifier", "member_expression"):
            local = dotted(right)
            self.exports.append(Export(line, "module.exports", local))
            if local:
                self.references.append(Reference(line, right.start_point[1], self._scope(), local))
        elif kind in FUNCTIONS or kind == "class":
            own = right.child_by_field_name("name")
            name = text(own) if own is not None else "default"
            self._name_value(right, name, "function", node.start_byte, node.start_byte)
            self.exports.append(Export(line, "module.exports", name))
        elif kind == "object":
            self._name_object(right, "", exports=True)
        elif kind != "assignment_expression":  # `module.exports = exports = x`: the inner one tells
            self.exports.append(Export(line, "module.exports"))
            self._bind("module.exports", right, line, self._scope())

    def _export_value(self, name: str, value: Node, line: int, node: Node) -> bool:
        """Export `name` bound to `value` (the CommonJS member forms); False when nothing is known."""
        required = require_module(value)
        if required is not None:
            module, member = required
            self.exports.append(Export(line, name, member, module, member is None))
            return True
        final = value
        while final.type == "assignment_expression":  # `exports.a = exports.b = x`
            inner = final.child_by_field_name("right")
            if inner is None:
                break
            final = unwrap(inner)
        if is_void(final):
            return True  # `exports.x = void 0`: a compiler's hoisted declaration
        if final.type in ("identifier", "member_expression"):
            local = dotted(final)
            self.exports.append(Export(line, name, local))
            if local and final is value:
                self.references.append(Reference(line, value.start_point[1], self._scope(), local))
            return True
        if final is value and self._name_value(value, name, "function", node.start_byte, node.start_byte):
            self.exports.append(Export(line, name, name))
            return True
        return False

    def _bind(self, target: str, value: Node, line: int, scope: str, ref_scope: str | None = None) -> bool:
        """`target = value`: a `call:` or `name:` fact; `require`/`import()` values are Imports instead.

        False when the value is one the index does not follow (the caller records an expression).
        """
        kind = value.type
        if kind in WRAPPERS:
            value = unwrap(value)
            kind = value.type
        if kind == "await_expression" and value.named_child_count:
            value = unwrap(value.named_children[0])
            kind = value.type
        if kind in ("call_expression", "new_expression"):
            fn = value.child_by_field_name("function" if kind == "call_expression" else "constructor")
            name = dotted(fn)
            if name is None:
                return False  # `f()()`: what a returned value returns
            if name == "require" or (name.rpartition(".")[2] in INTEROP and is_import_value(value)):
                return True  # an Import holds it
            self.assignments.append(Assignment(line, scope, target, f"call:{name}"))
            return True
        if kind == "subscript_expression" and dotted(value) is None:
            # `g = table[key]`: any element of table (a computed key)
            table = dotted(value.child_by_field_name("object"))
            if table is None or table == "arguments":
                return False
            if table not in SKIP_REFS and not table.startswith("require()"):
                self.assignments.append(Assignment(line, scope, target, f"each:values:{table}"))
            return True
        if kind in ("identifier", "member_expression", "subscript_expression"):
            name = dotted(value)
            if name is None or name == "arguments":
                return False
            if name not in SKIP_REFS and not name.startswith("require()"):
                self.assignments.append(Assignment(line, scope, target, f"name:{name}"))
                row, column = value.start_point
                self.references.append(
                    Reference(row + 1, column, scope if ref_scope is None else ref_scope, name)
                )
            return True
        return False

    # imports and exports ---------------------------------------------------------------------
    def _import(self, node: Node) -> None:
        line = node.start_point[0] + 1
        scope = self._scope()
        for child in node.named_children:
            if child.type == "import_require_clause":  # `import x = require("m")`
                module = string_value(child.child_by_field_name("source"))
                alias = next((c for c in child.named_children if c.type == "identifier"), None)
                if module is not None:
                    self.imports.append(
                        Import(line, module, None, text(alias) or None, kind="require", scope=scope)
                    )
                return
        module = string_value(node.child_by_field_name("source"))
        if module is None:
            return
        kind = "type" if any(child.type == "type" for child in node.children) else "esm"
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(Import(line, module, kind=kind, scope=scope))
            return
        for part in clause.named_children:
            if part.type == "identifier":
                self.imports.append(Import(line, module, "default", text(part), kind=kind, scope=scope))
            elif part.type == "namespace_import":
                alias = next((c for c in part.named_children if c.type == "identifier"), None)
                self.imports.append(Import(line, module, None, text(alias) or None, kind=kind, scope=scope))
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = spec_name(spec.child_by_field_name("name"))
                    alias_node = spec.child_by_field_name("alias")
                    bound = text(alias_node) if alias_node is not None else name
                    spec_kind = "type" if any(c.type == "type" for c in spec.children) else kind
                    self.imports.append(Import(line, module, name, bound, kind=spec_kind, scope=scope))

    def _export(self, node: Node) -> None:
        top_level = self._container() == ""
        line = node.start_point[0] + 1
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(child.type == "default" for child in node.children)
        if declaration is not None:
            self._exported_declaration(node, declaration, is_default, top_level)
            return
        if value is not None:
            self._export_default(unwrap(value), line, node, top_level)
            return
        if not top_level:
            return
        source = node.child_by_field_name("source")
        module = string_value(source) if source is not None else None
        if module is not None and any(child.type == "type" for child in node.children):
            # `export type {T} from "m"` runs no code: a type Import of m on its line tells the
            # linker that the Exports of this line make no import edge
            self.imports.append(Import(line, module, kind="type", scope=self._scope()))
        has_namespace = False
        for child in node.named_children:
            kind = child.type
            if kind == "export_clause":
                for spec in child.named_children:
                    if spec.type != "export_specifier":
                        continue
                    local = spec_name(spec.child_by_field_name("name"))
                    alias_node = spec.child_by_field_name("alias")
                    exported = spec_name(alias_node) if alias_node is not None else local
                    if local:
                        self.exports.append(Export(line, exported or local, local, module))
            elif kind == "namespace_export":
                has_namespace = True
                alias = next((c for c in child.named_children if c.type in ("identifier", "string")), None)
                if alias is not None:
                    self.exports.append(Export(line, spec_name(alias), None, module, True))
            elif kind == "identifier" and any(c.type == "=" for c in node.children):  # TypeScript `export =`
                self.exports.append(Export(line, "module.exports", text(child)))
        if module is not None and not has_namespace and any(c.type == "*" for c in node.children):
            self.exports.append(Export(line, "*", None, module, True))

    def _exported_declaration(self, node: Node, declaration: Node, is_default: bool, top_level: bool) -> None:
        line = node.start_point[0] + 1
        for inner in _declaration_nodes(declaration):
            self.statement_starts[inner.start_byte] = node.start_byte
        decorators = tuple(decorator_name(c) for c in node.children if c.type == "decorator")
        if decorators:
            self.export_decorators[declaration.start_byte] = decorators
        for name in declared_names(declaration):
            self.marked.add(self._qualify(name))
            if top_level:
                self.exports.append(Export(line, "default" if is_default else name, name))

    def _export_default(self, value: Node, line: int, node: Node, top_level: bool) -> None:
        kind = value.type
        local: str | None = None
        if kind in ("identifier", "member_expression"):
            local = dotted(value)
            if local:
                self.references.append(Reference(line, value.start_point[1], self._scope(), local))
        elif kind in FUNCTIONS or kind == "class":
            own = value.child_by_field_name("name")
            local = self._qualify(text(own)) if own is not None else "default"
            self._name_value(value, local, "function", node.start_byte, node.start_byte)
        elif kind == "object":
            local = "default"
            self._name_object(value, "default")
        if top_level:
            self.exports.append(Export(line, "default", local))

    # sites: calls, references, returns (after the ordered pass) -------------------------------
    def _call(self, node: Node) -> None:
        # The hot path (a third of the captures of a bundle): read the callee's bytes once and
        # walk its children only when it is not a plain name or dotted chain.
        fn = node.child(0)  # a call's first child is its function
        if fn is None:
            return
        args = node.child_by_field_name("arguments")
        raw = fn.text or b""
        receiver: str | None = None
        super_call = False
        if SIMPLE_NAME.fullmatch(raw):
            name = callee = raw.decode()
            if name in ("import", "require", "super"):
                if name == "super":
                    super_call = True
                elif name == "import" or (args is not None and args.type == "arguments"):
                    self._import_call(node, args, "dynamic" if name == "import" else "require", name)
                    return
        elif SIMPLE_CHAIN.fullmatch(raw):
            callee = raw.decode().replace("?.", ".")
            receiver, _, name = callee.rpartition(".")
            super_call = receiver == "super"
        else:
            name, callee, receiver, super_call = self._complex_callee(node, fn)
            if not callee:
                return
        line, column = node.start_point
        line += 1
        start = node.start_byte
        scope = self._scope_at(start)
        arguments = self._arguments(args, scope, line, column)
        nargs = len(arguments) if args is None or args.type == "arguments" else 1  # 1: a tagged template
        call_text = short_text(self.source[start : min(node.end_byte, start + _TEXT_BYTES)], CALL_TEXT_MAX)
        self.calls.append(
            Call(line, column, scope, callee, name, receiver, nargs, call_text, False, super_call)
        )
        if callee in ("eval", "Function"):
            self.dynamic.append(DynamicFlag(line, column, scope, "eval"))
        elif name in ("__exportStar", "__export") and nargs:
            self._export_star(arguments, line)
        elif nargs == 3 and callee == "Object.defineProperty":
            self._define_property(arguments, line)
        if name in _ELEMENT_METHODS and arguments and fn.type == "member_expression":
            self._element_callback(fn, arguments[0], line, scope)

    def _element_callback(self, fn: Node, callback: Node, line: int, scope: str) -> None:
        """`xs.forEach((x) => ...)`: the callback's first parameter is `each:xs` (the callback is
        anonymous, so its names are in the scope of the call)."""
        callback = unwrap(callback)
        receiver = fn.child_by_field_name("object")
        if callback.type not in ("arrow_function", "function_expression") or receiver is None:
            return
        if callback.start_byte in self.named_functions:
            return
        source = element_source(receiver)
        if source is None:
            return
        base, mode = source
        params = callback.child_by_field_name("parameters") or callback.child_by_field_name("parameter")
        if params is None:
            return
        first = (
            params
            if params.type == "identifier"
            else next((c for c in params.named_children if c.type != "comment"), None)
        )
        if first is not None and first.type in ("required_parameter", "optional_parameter"):
            first = first.child_by_field_name("pattern")
        for name in element_names(first, mode):
            self.assignments.append(Assignment(line, scope, name, f"each:{mode}:{base}"))

    def _complex_callee(self, node: Node, fn: Node) -> tuple[str, str, str | None, bool]:
        """(name, callee, receiver, super_call) of a callee that is no plain chain; callee "" for none."""
        fn_type = fn.type
        if fn_type == "member_expression":
            obj = fn.child_by_field_name("object")
            name = text(fn.child_by_field_name("property"))
            receiver = dotted(obj) or "<expr>"
            return name, f"{receiver}.{name}", receiver, obj is not None and obj.type == "super"
        if fn_type == "subscript_expression":
            obj = fn.child_by_field_name("object")
            index = fn.child_by_field_name("index")
            key = string_value(index)
            if index is not None and index.type == "number" and text(index).isdigit():
                key = text(index)  # `steps[0]()`: element 0 of steps
            if key is not None and (IDENTIFIER.match(key) or key.isdigit()):
                receiver = dotted(obj) or "<expr>"
                return key, f"{receiver}.{key}", receiver, False
            line, column = node.start_point
            scope = self._scope_at(node.start_byte)
            self.dynamic.append(DynamicFlag(line + 1, column, scope, "getattr", None, dotted(obj)))
            return "", "<expr>", None, False
        if fn_type == "identifier":  # a name outside ASCII
            name = text(fn)
            return name, name, None, False
        if fn_type == "call_expression":  # `make()()`: a call of what a call gives
            called = dotted(fn)
            if called is not None and not called.startswith(("require(", "import(")):
                return called, called, None, False
        if unwrap(fn).type in FUNCTIONS:
            return "", "", None, False  # an IIFE: its body is transparent, it already belongs here
        return "", "<expr>", None, False

    def _arguments(self, args: Node | None, scope: str, line: int = 0, column: int = 0) -> list[Node]:
        """The arguments of a call; names passed as arguments are references. A name on a later
        line than the call (a call written over several lines) is also an assignment
        ``@pass<position>@<column> = name:x`` on the call's line, which ties it to the call."""
        if args is None or args.end_byte - args.start_byte <= 2 or args.type != "arguments":
            return []  # none, `()`, or a tagged template
        found = args.named_children
        references = self.references
        position = -1
        for child in found:
            kind = child.type
            if kind != "comment":
                position += 1
            if kind == "identifier":
                name: str | None = text(child)
            elif kind == "member_expression":
                name = dotted(child)
            elif kind == "comment":
                found = [c for c in found if c.type != "comment"]
                continue
            elif kind == "object" and child.named_child_count:
                site = self._argument_object(child, position, scope)
                if site is not None and line and child.start_point[0] + 1 != line:
                    self.assignments.append(
                        Assignment(line, scope, f"@pass{position}@{column}", f"name:{site}")
                    )
                continue
            else:
                continue
            if name is not None and name not in SKIP_REFS:
                row, start = child.start_point
                references.append(Reference(row + 1, start, scope, name))
                if line and row + 1 != line:
                    target = f"@pass{position}@{column}"
                    self.assignments.append(Assignment(line, scope, target, f"name:{name}"))
        return found

    def _argument_object(self, obj: Node, position: int, scope: str) -> str | None:
        """An object literal passed as an argument (``run({onDone: finished})``) is an allocation
        site ``@arg<position>_<line>_<column>``: its name-valued members are assignments, and a
        Reference of that name (which no source can spell) passes it at its position."""
        row, column = obj.start_point
        name = f"@arg{position}_{row + 1}_{column}"
        members = len(self.assignments)
        self._literal_members(obj, name, scope)
        if len(self.assignments) == members:
            return None  # no member holds a name: nothing to follow
        self.assignments.append(Assignment(row + 1, scope, name, f"object:{name}"))
        self.references.append(Reference(row + 1, column, scope, name))
        return name

    def _import_call(self, node: Node, args: Node | None, kind: str, flag: str) -> None:
        """`require(...)` / `import(...)`: an Import for a literal module, a DynamicFlag otherwise."""
        first = first_arg(args)
        if first is None:
            return
        line, column = node.start_point
        line += 1
        scope = self._scope_at(node.start_byte)
        module = string_value(first)
        if module is None:
            self.dynamic.append(DynamicFlag(line, column, scope, flag, static_prefix(first)))
            return
        target = node
        parent = node.parent
        while parent is not None:  # through `await`, parentheses and interop wrappers
            parent_type = parent.type
            if parent_type in ("await_expression", "parenthesized_expression"):
                target, parent = parent, parent.parent
                continue
            if parent_type == "arguments":
                call = parent.parent
                if call is not None and call.type == "call_expression":
                    wrapper = dotted(call.child_by_field_name("function")) or ""
                    if wrapper.rpartition(".")[2] in INTEROP:
                        target, parent = call, call.parent
                        continue
            break
        member = None
        if _holds(parent, "member_expression", "object", target):
            member = text(parent.child_by_field_name("property"))
            target, parent = parent, parent.parent
        if _holds(parent, "variable_declarator", "value", target):
            bound = parent.child_by_field_name("name")
            if bound is not None and bound.type == "identifier":
                self.imports.append(Import(line, module, member, text(bound), kind=kind, scope=scope))
                return
            if bound is not None and bound.type == "object_pattern" and member is None:
                for part in bound.named_children:
                    if part.type in ("shorthand_property_identifier_pattern", "object_assignment_pattern"):
                        name = (
                            pattern_name(part)
                            if part.type != "shorthand_property_identifier_pattern"
                            else text(part)
                        )
                        self.imports.append(Import(line, module, name, name, kind=kind, scope=scope))
                    elif part.type == "pair_pattern":
                        key = key_name(part.child_by_field_name("key"))
                        alias = pattern_name(part.child_by_field_name("value"))
                        if key:
                            self.imports.append(Import(line, module, key, alias, kind=kind, scope=scope))
                return
        if _holds(parent, "assignment_expression", "right", target):
            left = parent.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                self.imports.append(Import(line, module, member, text(left), kind=kind, scope=scope))
                return
        self.imports.append(Import(line, module, kind=kind, scope=scope))

    def _export_star(self, args: list[Node], line: int) -> None:
        """tsc's `__exportStar(require("m"), exports)`, esbuild's `__export(target, {x: () => y})`."""
        required = require_module(unwrap(args[0]))
        if required is not None and required[1] is None:
            self.exports.append(Export(line, "*", None, required[0], True))
            return
        if len(args) == 2 and args[1].type == "object":
            for pair in args[1].named_children:
                if pair.type != "pair":
                    continue
                key = key_name(pair.child_by_field_name("key"))
                value = pair.child_by_field_name("value")
                if key is None or value is None or value.type != "arrow_function":
                    continue
                body = value.child_by_field_name("body")
                local = dotted(unwrap(body)) if body is not None else None
                self.exports.append(Export(pair.start_point[0] + 1, key, local))

    def _define_property(self, args: list[Node], line: int) -> None:
        """`Object.defineProperty(exports, "x", {get: function () { return m_1.y; }})`."""
        if dotted(args[0]) not in ("exports", "module.exports"):
            return
        name = string_value(args[1])
        if not name or name == "__esModule" or args[2].type != "object":
            return
        local: str | None = None
        for member in args[2].named_children:
            key = key_name(member.child_by_field_name("key") or member.child_by_field_name("name"))
            if key == "value" and member.type == "pair":
                value = member.child_by_field_name("value")
                local = dotted(unwrap(value)) if value is not None else None
            elif key == "get":
                function = member.child_by_field_name("value") if member.type == "pair" else member
                body = function.child_by_field_name("body") if function is not None else None
                if body is not None and body.type == "statement_block":
                    returned = next((c for c in body.named_children if c.type == "return_statement"), None)
                    body = (
                        returned.named_children[0]
                        if returned is not None and returned.named_children
                        else None
                    )
                local = dotted(unwrap(body)) if body is not None else None
        self.exports.append(Export(line, name, local))

    def _new(self, node: Node) -> None:
        ctor = node.child_by_field_name("constructor")
        line, column = node.start_point
        line += 1
        scope = self._scope_at(node.start_byte)
        callee = (
            dotted(ctor) if ctor is not None and ctor.type in ("identifier", "member_expression") else None
        )
        receiver: str | None = None
        if callee is None:
            callee, name = "<expr>", ""
        else:
            head, _, name = callee.rpartition(".")
            receiver = head or None
        start = node.start_byte
        nargs = len(self._arguments(node.child_by_field_name("arguments"), scope, line, column))
        call_text = short_text(self.source[start : min(node.end_byte, start + _TEXT_BYTES)], CALL_TEXT_MAX)
        self.calls.append(Call(line, column, scope, callee, name, receiver, nargs, call_text, True))
        if callee == "Function":
            self.dynamic.append(DynamicFlag(line, column, scope, "eval"))

    def _jsx(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return  # a fragment `<>`
        if name_node.type == "identifier":
            callee = text(name_node)
            if not callee[:1].isupper():
                return  # an intrinsic element: `<div>`
        elif name_node.type == "member_expression":
            callee = dotted(name_node) or ""
            if not callee:
                return
        else:
            return
        receiver, _, name = callee.rpartition(".")
        line, column = node.start_point
        start = node.start_byte
        call_text = short_text(self.source[start : min(node.end_byte, start + _TEXT_BYTES)], CALL_TEXT_MAX)
        scope = self._scope_at(start)
        self.calls.append(Call(line + 1, column, scope, callee, name, receiver or None, 1, call_text))

    def _ref(self, node: Node) -> None:
        name = dotted(node) if node.type == "member_expression" else text(node)
        if name is None or name in SKIP_REFS:
            return
        line, column = node.start_point
        self.references.append(Reference(line + 1, column, self._scope_at(node.start_byte), name))

    def _return(self, node: Node) -> None:
        frame = self._frame_at(node.start_byte)
        owner = self.frame_owners[frame] if frame >= 0 else -1
        value = next((c for c in node.named_children if c.type != "comment"), None)
        if owner < 0 and frame >= 0 and value is not None and unwrap(value).type == "object":
            bound = self.iifes.get(self.frame_starts[frame])
            if bound is not None:  # the object an IIFE returns is what its declarator holds
                name, qualname, scope, line = bound
                self.assignments.append(Assignment(line, scope, name, f"object:{qualname}"))
                self._literal_members(unwrap(value), qualname, self._scope_at(node.start_byte))
            return
        if owner < 0 or value is None:
            return  # top level, or a callback's return, which is not its enclosing function's
        literal = unwrap(value)
        if literal.type in ("object", "array"):
            # a returned literal is an allocation site of its own, `f.@return`
            prefix = f"{self.definitions[owner].qualname}.@return"
            scope = self._scope_at(node.start_byte)
            if literal.type == "array":
                self._name_array(literal, prefix, scope)
            else:
                self._literal_members(literal, prefix, scope)
            facts = self.returns.setdefault(owner, [])
            if f"object:{prefix}" not in facts:
                facts.append(f"object:{prefix}")
            return
        self._return_fact(owner, value)

    def _literal_members(self, obj: Node, prefix: str, scope: str) -> None:
        """The members of a returned object literal that hold names (its functions stay unnamed)."""
        for child in obj.named_children:
            if child.type == "pair":
                key = key_name(child.child_by_field_name("key"))
                value_node = child.child_by_field_name("value")
                value = unwrap(value_node) if value_node is not None else None
                if key is None or value is None or value.type not in ("identifier", "member_expression"):
                    continue
                name = dotted(value)
            elif child.type == "shorthand_property_identifier":
                key = name = text(child)
            else:
                continue
            if name is not None and name not in SKIP_REFS:
                line = child.start_point[0] + 1
                self.assignments.append(Assignment(line, scope, f"{prefix}.{key}", f"name:{name}"))

    def _yield(self, node: Node) -> None:
        """`yield x` in a generator: an element of what a call of it gives (`yield:name:x`)."""
        frame = self._frame_at(node.start_byte)
        owner = self.frame_owners[frame] if frame >= 0 else -1
        value = next((c for c in node.named_children if c.type != "comment"), None)
        if owner < 0 or value is None or any(c.type == "*" for c in node.children):
            return
        fact = value_fact(value)
        if fact is not None:
            facts = self.returns.setdefault(owner, [])
            if f"yield:{fact}" not in facts:
                facts.append(f"yield:{fact}")

    def _for_of(self, node: Node) -> None:
        """`for (const x of xs)`: `x = each:xs` (an element of xs); the loop calls the iterator
        method of xs, a Call of `xs.@@iterator`."""
        operator = node.child_by_field_name("operator")
        right = node.child_by_field_name("right")
        if operator is None or operator.type != "of" or right is None:
            return
        source = element_source(right)
        line, column = node.start_point
        scope = self._scope_at(node.start_byte)
        if source is None:
            # `for (const h of pick()) h()`: elements of a value the index does not follow
            left = node.child_by_field_name("left")
            if left is not None:
                self._unfollowed_pattern(left, line + 1, scope)
            return
        base, mode = source
        for name in element_names(node.child_by_field_name("left"), mode):
            self.assignments.append(Assignment(line + 1, scope, name, f"each:{mode}:{base}"))
        if mode == "values" and not base.startswith("Object."):
            text_ = short_text(f"for (... of {base})".encode(), CALL_TEXT_MAX)
            self.calls.append(
                Call(line + 1, column, scope, f"{base}.@@iterator", "@@iterator", base, 0, text_)
            )

    def _return_fact(self, index: int, value: Node) -> None:
        fact = value_fact(value)
        if fact is None:
            return
        facts = self.returns.setdefault(index, [])
        if fact not in facts:
            facts.append(fact)

    def _main_guard(self, root: Node) -> None:
        """`require.main === module`, `import.meta.main`, `import.meta.url === ...process.argv...`.

        Found by a byte search, not in the query: a pattern with text predicates on every member
        expression cost as much as all the other patterns together."""
        source = self.source
        for needle in (b"require.main", b"import.meta.main", b"import.meta.url"):
            position = source.find(needle)
            while position != -1 and not self.main_guard:
                node = root.descendant_for_byte_range(position, position + len(needle))
                if node is not None and node.type == "member_expression" and self._top_level(node):
                    self.main_guard = is_main_guard(node, needle)
                position = source.find(needle, position + 1)

    def _server_directives(self, root: Node) -> None:
        """React's ``'use server'`` directive (Next.js server actions): at the top of a module it
        makes each exported function a server action, at the top of a function's body that
        function; each gets the pseudo-decorator ``use server``, which the roots' rules read (the
        framework calls a server action from the client, through a form's ``action`` or a call
        the bundler rewrites into a request). Found by a byte search, as the main guard is."""
        source = self.source
        if b"use server" not in source:
            return
        marked: set[int] = set()
        position = source.find(b"use server")
        while position != -1:
            node = root.descendant_for_byte_range(position, position + len(b"use server"))
            while node is not None and node.type != "string":
                node = node.parent
            statement = node.parent if node is not None else None
            body = statement.parent if statement is not None else None
            if (
                node is not None
                and statement is not None
                and statement.type == "expression_statement"
                and body is not None
                and node.text in (b"'use server'", b'"use server"')
                and _in_prologue(statement)
            ):
                if body.type == "program":
                    self.server_module = True
                elif body.type == "statement_block" and body.parent is not None:
                    line = body.parent.start_point[0] + 1
                    inner = [
                        i
                        for i, d in enumerate(self.definitions)
                        if d.line <= line <= d.end_line and d.kind in ("function", "method", "variable")
                    ]
                    if inner:  # the innermost: the latest start, then the earliest end
                        defs = self.definitions
                        marked.add(max(inner, key=lambda i: (defs[i].line, -defs[i].end_line)))
            position = source.find(b"use server", position + 1)
        self.server_functions = marked

    def _top_level(self, node: Node) -> bool:
        parent = node.parent
        while parent is not None:
            if parent.type in _NAMED_FUNCTIONS or parent.start_byte in self.named_functions:
                return False
            parent = parent.parent
        return True


def _holds(parent: Node | None, kind: str, field: str, child: Node) -> TypeGuard[Node]:
    """Whether ``parent`` is a ``kind`` node whose ``field`` is ``child``."""
    return parent is not None and parent.type == kind and parent.child_by_field_name(field) == child


def _in_prologue(statement: Node) -> bool:
    """Whether a statement is in its body's directive prologue: only string statements (and
    comments) before it."""
    sibling = statement.prev_named_sibling
    while sibling is not None:
        if sibling.type == "comment" or sibling.type == "hash_bang_line":
            sibling = sibling.prev_named_sibling
            continue
        if sibling.type != "expression_statement" or sibling.named_child_count != 1:
            return False
        first = sibling.named_children[0]
        if first.type != "string":
            return False
        sibling = sibling.prev_named_sibling
    return True


def _declaration_nodes(declaration: Node) -> list[Node]:
    """The nodes a doc comment before `export <declaration>` may belong to."""
    found = [declaration]
    for child in declaration.named_children:
        if child.type == "variable_declarator" or declaration.type in (
            "ambient_declaration",
            "expression_statement",
        ):
            found.append(child)
    return found


def _after_decorators(node: Node) -> int:
    """Where a definition's header starts, past the decorators the JavaScript grammar puts in it."""
    for child in node.children:
        if child.type != "decorator":
            return child.start_byte
    return node.start_byte


def _sorted_unique(records: list[_R]) -> tuple[_R, ...]:
    """Sorted, duplicates dropped. Records come nearly in order: sorting them first is linear,
    where `sorted(set(...))` sorts a shuffled list (measured 10x slower on a 9 MB bundle)."""
    try:
        records.sort()
    except TypeError:  # None against a text in one field, all fields before it equal
        records.sort(key=_none_first)
    previous: object = None
    unique = []
    for record in records:
        if record != previous:
            unique.append(record)
            previous = record
    return tuple(unique)


def _none_first(record: tuple[Any, ...]) -> tuple[tuple[bool, Any], ...]:
    """A sort key that orders None before any value of a field (``require("m")`` and
    ``require("m").x`` on one line give Imports that differ by a None name only)."""
    return tuple((value is not None, value if value is not None else 0) for value in record)
