"""Go extractor: one tree-sitter query, scopes from the top-level declarations by bisection.

The conventions below are what ``languages/go/link/linker.py`` relies on.

Package and file. The package clause gives the flag ``package:<name>``; a file of package ``main``
has ``main_guard`` set (its top level, the package variables and ``init`` functions, runs when the
program starts). A file whose build constraint no default build satisfies (``//go:build ignore``,
a tag the go command never sets, as ``purego``) has the flag ``build-excluded`` (see
``constraints.py``); every GOOS and GOARCH is kept.

Imports. One ``Import`` per import spec: ``module`` is the import path, ``alias`` the written name
(``h`` in ``import h "golang.org/x/net/html"``, ``_`` for a blank import), ``star`` for a dot
import. The package name an import binds with no alias is the linker's business (it is the
package clause of the imported files, not always the last path element).

Scopes. Top-level functions and methods are scopes (Go has no nested named functions), and so is
a top-level ``var f = func(...) {...}``, a definition ``f`` of kind function. Each other function
literal is a scope and a definition of kind function of its own, named after the function around
it and its position among that function's literals, as the Go compiler names them: ``F$1``,
``F$2``, ``F$1$1`` (a literal in ``F$1``), ``T.M$1`` in a method; a literal in a package
variable's value is named after the variable (``handlers$1``). An edit elsewhere in the file keeps
the names. A literal's calls, bindings and references are its own; it sees the names of the
functions around it (the linker looks a name up there when the literal does not bind it). Calls in
package-level variable values belong to the top level ``""``. Lookups by position take the
innermost scope that starts *before* a node, so a call ``func() {...}()`` (which starts where its
literal does) belongs to the function around the literal.

Definitions. Functions (``F``), methods (``Type.Method``, with ``bases`` the receiver type as
written without type arguments: ``("*Circle",)`` or ``("Circle",)``), types at the top level:
``struct`` (``params`` are the fields as ``Param(name, type)``, an embedded field named after its
type; ``bases`` the embedded types), ``interface`` (``bases`` the embedded interfaces; each method
of its method set is a definition ``Iface.Method`` of kind method with ``bases`` ``(Iface,)``),
``type`` (another defined type; ``returns`` holds its underlying type) and ``alias``
(``type A = B``; ``returns`` holds ``B``), and package variables (kind ``variable``, ``returns``
their declared type). ``returns`` of a function or method is the type of each result by position
(``(*h.Tokenizer, error)`` -> ``("h.Tokenizer", "error")``). ``decorators`` are the ``//go:``
directives above a declaration (``go:noinline``; a ``go:linkname`` keeps its arguments:
``go:linkname sync_runtime_Semacquire sync.runtime_Semacquire``) and, last, ``no-body`` on a
function or method declared without a body (its code is in assembly or, by ``go:linkname``, in
another package), ``doc`` the first line of its doc comment.

Types are written as the source names them with pointers and type arguments dropped:
``*pkg.T[int]`` -> ``pkg.T``; ``[]*T`` -> ``[]T``; ``map[string]*T`` -> ``map[string]T``;
``chan T`` -> ``chan T``; a function type is ``func``; an inline struct or interface type is
``struct{}`` / ``interface{}``.

Calls. ``callee`` is the dotted text with the arguments dropped; ``receiver`` the text before the
last selector, where a call result is written ``F()``: ``h.NewTokenizer(r).Next()`` has receiver
``h.NewTokenizer()`` and name ``Next``. A type assertion is ``x.(T)``, a composite literal ``T{}``,
an index ``a[]``; any other receiver is ``<expr>``. A call of a call's result has the inner call as
callee and no name (``chtmpdir(t)()`` has callee ``chtmpdir()``). A function literal called where
it is written (``func() {...}()``, ``defer func() {...}()``, ``go func(x int) {...}(y)``) is a
call with callee ``func:<qualname>`` (``func:F$1``) and that name. Generic instantiations drop their
type arguments (``F[int](x)`` is a call of ``F``, and so is ``F[k](x)`` of a slice or map of
functions: the linker tells them apart by what ``F`` holds). A composite literal of a named type is
a call with ``new`` set (``T{}``, ``&pkg.T{}``). Conversions to unnamed types (``[]byte(s)``) are
not recorded.

Bindings (``Assignment``). ``value`` is ``call:<callee>`` for the first result of a call and
``call:<callee>#<n>`` for result ``n`` (``n, err := f()`` binds ``n`` to ``call:f`` and ``err`` to
``call:f#1``); ``type:<T>`` for a declared type (``var w io.Writer``, parameters of function
literals, receivers as ``type:*Circle`` in the method's scope), a composite literal, ``new(T)``
or a type assertion (in a type switch, each case with one type binds the alias on the case's line);
``name:<x>`` for a plain name or selector (``f := pkg.F``); ``elem:<x>`` for an element of ``x``
(``x[i]``, ``<-x``); ``range:<x>#<n>`` for the ``n``-th variable of a ``range`` over ``x``;
``func:<qualname>`` for a function literal (``fn := func() {...}`` binds ``fn`` to ``func:F$1``)
and ``call:func:<qualname>`` for what one called at once returns; ``constraint:<C>`` for a type
parameter ``T`` of a function (``func F[T fmt.Stringer](x T)`` binds ``T`` to
``constraint:fmt.Stringer`` in ``F``). The blank name ``_`` binds nothing. Package variables give
bindings in the top-level scope ``""``. A ``return`` binds the target ``return`` (the first result)
and ``return#<n>`` (result ``n``) of the function or literal around it to what each value gives
(``return A{}, nil`` -> ``return`` = ``type:A``; a value no binding writes, or a bare ``return``, is
``expr:``; ``nil`` is nothing); ``return`` is a keyword, so no name is bound so.
A ``var`` with a declared type and a value binds the type and ``holds:<value>`` on the same line
(``var l Logger = &File{}`` -> ``type:Logger`` and ``holds:type:File``): what flows into the
interface.

References. Identifiers and selectors passed as arguments, put in composite literals, sent on a
channel, stored in a field or an element, or returned are references, except names the enclosing
function (or a function around its literal) binds itself (parameters, receivers, locals), which can
hold no function that the records could name; a selector on one (``s.handle``) may be a method value
and is kept. A function literal not called where it is written is a reference ``func:<qualname>``
of the function around it (it is passed, stored, bound or returned: whoever holds it may call it).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from tree_sitter import Node

from projectgraph.fileindex import (
    CALL_TEXT_MAX,
    Assignment,
    Call,
    Definition,
    DynamicFlag,
    FileIndex,
    Import,
    Param,
    Reference,
)
from projectgraph.languages.base import folder_matches, parser, short_text
from projectgraph.languages.go import NO_BODY, constraints

_KINDS = (
    "package",
    "import",
    "def.function",
    "def.method",
    "def.type",
    "def.alias",
    "var",
    "assign",
    "range",
    "typeswitch",
    "closure",
    "return",
    "call",
    "call.generic",
    "literal",
    "ref",
    "ref.chain",
    "error",
)
_NAME = re.compile(r"[A-Za-z_]\w*", re.ASCII)
_CALLEE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)
_DIRECTIVE = re.compile(r"//(go:\w+|export\b|line\b|extern\b)")
_SENTINEL_END = 1 << 62
_Captures = dict[str, list[Node]]
_new = tuple.__new__


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed Go file."""
    return _Extractor(source).run(tree.root_node, path, file_hash)


# ---- types and chains, read from the tree -------------------------------------------------------


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def type_name(node: Node | None) -> str:
    """A type as the records write it: pointers and type arguments dropped (see the module doc)."""
    if node is None:
        return ""
    kind = node.type
    if kind in ("type_identifier", "identifier", "package_identifier"):
        return _text(node)
    if kind == "qualified_type":
        return f"{_text(node.child_by_field_name('package'))}.{_text(node.child_by_field_name('name'))}"
    if kind in ("pointer_type", "parenthesized_type", "type_elem", "type_constraint"):
        inner = node.named_children[0] if node.named_child_count else None
        return type_name(inner)
    if kind == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if kind in ("slice_type", "array_type", "implicit_length_array_type"):
        return "[]" + type_name(node.child_by_field_name("element"))
    if kind == "map_type":
        key = type_name(node.child_by_field_name("key"))
        return f"map[{key}]" + type_name(node.child_by_field_name("value"))
    if kind == "channel_type":
        return "chan " + type_name(node.child_by_field_name("value"))
    if kind == "function_type":
        return "func"
    if kind == "struct_type":
        return "struct{}"
    if kind == "interface_type":
        return "interface{}"
    if kind == "selector_expression":  # a qualified type in expression position (`new(pkg.T)`)
        return chain(node) or ""
    return " ".join(_text(node).split())


def chain(node: Node | None) -> str | None:
    """The receiver grammar of the module doc, or None for an expression it cannot write."""
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return _text(node)
    if kind == "selector_expression":
        operand = chain(node.child_by_field_name("operand"))
        if operand is None:
            return None
        return f"{operand}.{_text(node.child_by_field_name('field'))}"
    if kind == "call_expression":
        function = node.child_by_field_name("function")
        if function is not None and function.type == "identifier" and _text(function) == "new":
            args = node.child_by_field_name("arguments")
            if args is not None and args.named_child_count == 1:
                made = type_name(args.named_children[0])
                return f"{made}{{}}" if _CALLEE.fullmatch(made) else None
        inner = chain(function)
        return None if inner is None else f"{inner}()"
    if kind == "type_conversion_expression":
        target = node.child_by_field_name("type")
        if target is not None and target.type == "generic_type":
            inner = type_name(target)
            return f"{inner}()" if _CALLEE.fullmatch(inner) else None
        return None
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return chain(node.named_children[0])
    if kind == "unary_expression":
        operator = node.children[0].type if node.child_count else ""
        if operator in ("&", "*"):
            return chain(node.child_by_field_name("operand"))
        return None
    if kind == "type_assertion_expression":
        operand = chain(node.child_by_field_name("operand"))
        asserted = type_name(node.child_by_field_name("type"))
        if operand is None or not _CALLEE.fullmatch(asserted):
            return None
        return f"{operand}.({asserted})"
    if kind == "composite_literal":
        literal = type_name(node.child_by_field_name("type"))
        return f"{literal}{{}}" if _CALLEE.fullmatch(literal) else None
    if kind == "index_expression":
        operand = chain(node.child_by_field_name("operand"))
        return None if operand is None else f"{operand}[]"
    if kind in ("generic_type", "qualified_type", "type_identifier"):  # a method expression `T.M`
        named = type_name(node)
        return named if _CALLEE.fullmatch(named) else None
    return None


def _params(node: Node | None) -> tuple[Param, ...]:
    """The parameters of a parameter list, one Param per name (an unnamed one has name ``""``)."""
    if node is None:
        return ()
    params: list[Param] = []
    for child in node.named_children:
        if child.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        variadic = "..." if child.type == "variadic_parameter_declaration" else ""
        written = type_name(child.child_by_field_name("type"))
        if variadic:
            written = "[]" + written
        names = child.children_by_field_name("name")
        if not names:
            params.append(_new(Param, ("", written, False, variadic)))
        for name in names:
            params.append(_new(Param, (_text(name), written, False, variadic)))
    return tuple(params)


def _results(node: Node | None) -> tuple[str, ...]:
    """The type of each result by position."""
    if node is None:
        return ()
    if node.type != "parameter_list":
        return (type_name(node),)
    results: list[str] = []
    for child in node.named_children:
        if child.type != "parameter_declaration":
            continue
        written = type_name(child.child_by_field_name("type"))
        results.extend([written] * max(1, len(child.children_by_field_name("name"))))
    return tuple(results)


# ---- the extractor ------------------------------------------------------------------------------


class _Extractor:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.imports: list[Import] = []
        self.definitions: list[Definition] = []
        self.calls: list[Call] = []
        self.references: list[Reference] = []
        self.assignments: list[Assignment] = []
        self.dynamic: list[DynamicFlag] = []
        self.package = ""
        self.package_start = len(source)
        # scope entries in byte order; entry 0 is the top level
        self.starts: list[int] = [-1]
        self.ends: list[int] = [_SENTINEL_END]
        self.scopes: list[str] = [""]
        self.locals: list[set[str]] = [set()]
        self.parents: list[int] = [0]  # the entry around each entry (0 for a declaration)
        self.literals: dict[int, int] = {}  # a function literal's start byte -> its entry
        self.literal_names: dict[int, str] = {}  # a function literal's start byte -> its qualname
        self.signatures: dict[int, tuple[tuple[Param, ...], tuple[str, ...]]] = {}  # params, results

    def scope_entry(self, start: int) -> int:
        """The innermost entry around a node starting at ``start``: one that starts before it (a
        node that starts where a literal does, as the call ``func() {...}()``, is outside it)."""
        j = bisect_left(self.starts, start) - 1
        while j > 0 and self.ends[j] <= start:
            j = self.parents[j]
        return j if j > 0 else 0

    def is_local(self, entry: int, name: str) -> bool:
        """Whether a function binds ``name`` itself, or a function around its literal does."""
        while entry:
            if name in self.locals[entry]:
                return True
            entry = self.parents[entry]
        return False

    def line_text(self, node: Node) -> str:
        return short_text(self.source[node.start_byte : node.end_byte], CALL_TEXT_MAX)

    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        groups = folder_matches(__file__, "go", _KINDS, root)
        for captures in groups["package"]:
            if not self.package:
                self.package = _text(captures["name"][0])
                self.package_start = captures["package"][0].start_byte
        self._scopes(groups)
        for captures in groups["import"]:
            self._import(captures)
        for captures in groups["def.function"]:
            self._function(captures)
        for captures in groups["def.method"]:
            self._method(captures)
        for captures in groups["def.type"]:
            self._type(captures)
        for captures in groups["def.alias"]:
            self._alias(captures)
        for captures in groups["var"]:
            self._var(captures["var"][0])
        for captures in groups["assign"]:
            self._assign(captures)
        for captures in groups["range"]:
            self._range(captures)
        for captures in groups["typeswitch"]:
            self._type_switch(captures)
        for captures in groups["closure"]:
            self._closure(captures)
        for captures in groups["return"]:
            self._return(captures["return"][0])
        for captures in groups["call"]:
            self._call(captures["call"][0], captures["function"][0], captures["args"][0])
        for captures in groups["call.generic"]:
            self._generic_call(captures["call.generic"][0], captures["function"][0])
        for captures in groups["literal"]:
            self._literal(captures["literal"][0], captures["type"][0])
        for kind in ("ref", "ref.chain"):
            for captures in groups[kind]:
                self._reference(captures[kind][0])
        errors = len(groups["error"]) or (1 if root.has_error else 0)  # a MISSING token is an error too
        flags = [f"package:{self.package}"] if self.package else []
        if constraints.excluded(self.source[: self.package_start]):
            flags.append("build-excluded")
        if errors:
            flags.append("syntax-error")
        return FileIndex(
            path=path,
            language="go",
            hash=file_hash,
            imports=tuple(sorted(set(self.imports))),
            definitions=tuple(sorted(set(self.definitions))),
            calls=tuple(sorted(set(self.calls))),
            references=tuple(sorted(set(self.references))),
            assignments=tuple(sorted(set(self.assignments))),
            dynamic=tuple(sorted(set(self.dynamic))),
            main_guard=self.package == "main",
            syntax_errors=errors,
            flags=tuple(sorted(flags)),
        )

    # ---- scopes -----------------------------------------------------------------------------
    def _scopes(self, groups: dict[str, list[_Captures]]) -> None:
        """Top-level functions, methods and ``var f = func...`` in byte order, with their locals."""
        entries: list[tuple[int, int, str, set[str]]] = []
        for captures in groups["def.function"]:
            node = captures["def.function"][0]
            names = self._signature(node, captures)
            entries.append((node.start_byte, node.end_byte, _text(captures["name"][0]), names))
        for captures in groups["def.method"]:
            node = captures["def.method"][0]
            receiver, written = _receiver(captures["receiver"][0])
            owner = written.lstrip("*")
            names = self._signature(node, captures) | {receiver}
            entries.append((node.start_byte, node.end_byte, f"{owner}.{_text(captures['name'][0])}", names))
        functions = sorted((start, end) for start, end, _, _ in entries)
        defined: set[int] = set()  # the literals of `var f = func...`, which are the definitions f
        for captures in groups["var"]:
            node = captures["var"][0]
            j = bisect_right(functions, (node.start_byte, _SENTINEL_END)) - 1
            if j >= 0 and functions[j][1] > node.start_byte:
                continue  # a local variable
            declared = node.children_by_field_name("name")
            value = node.child_by_field_name("value")
            if len(declared) == 1 and value is not None and value.named_child_count == 1:
                literal = value.named_children[0]
                if literal.type == "func_literal":
                    params = {p.name for p in _params(literal.child_by_field_name("parameters"))}
                    entries.append((literal.start_byte, literal.end_byte, _text(declared[0]), params))
                    defined.add(literal.start_byte)
        entries.sort(key=lambda e: (e[0], -e[1]))
        declarations: list[tuple[int, int, str, set[str], Node | None]] = []
        for start, end, qualname, names in entries:
            if declarations and start < declarations[-1][1]:
                continue  # nested in the previous entry: only a broken parse gives that
            declarations.append((start, end, qualname, names, None))
        for captures in groups["closure"]:
            node = captures["closure"][0]
            if node.start_byte not in defined:
                declarations.append((node.start_byte, node.end_byte, "", set(), node))
        declarations.sort(key=lambda e: (e[0], -e[1]))
        open_entries: list[int] = []  # the entries around the current position, outermost first
        counts: dict[str, int] = {}
        for start, end, qualname, names, made in declarations:
            while open_entries and self.ends[open_entries[-1]] <= start:
                open_entries.pop()
            parent = open_entries[-1] if open_entries else 0
            if made is not None:
                # a function literal is named after the function around it and its position among
                # that function's literals (F$1, F$1$1, T.M$2), as the Go compiler names them; at
                # the top level, after the package variable whose value holds it
                owner = self.scopes[parent] if parent else _package_variable(made)
                counts[owner] = counts.get(owner, 0) + 1
                qualname = f"{owner}${counts[owner]}"
                names = self._literal_signature(made)
                self.literals[start] = len(self.starts)
            elif open_entries:
                continue  # a declaration inside a literal: only a broken parse gives that
            self.starts.append(start)
            self.ends.append(end)
            self.scopes.append(qualname)
            self.parents.append(parent)
            names.discard("")
            names.discard("_")
            self.locals.append(names)
            open_entries.append(len(self.starts) - 1)
        self.literal_names = {start: self.scopes[entry] for start, entry in self.literals.items()}

    def _literal_signature(self, literal: Node) -> set[str]:
        """Read a function literal's parameters and results once; the names they bind."""
        params = _params(literal.child_by_field_name("parameters"))
        result = literal.child_by_field_name("result")
        self.signatures[literal.start_byte] = (params, _results(result))
        names = {p.name for p in params}
        if result is not None and result.type == "parameter_list":
            names.update(p.name for p in _params(result) if p.name)
        return names

    def _signature(self, node: Node, captures: _Captures) -> set[str]:
        """Read the parameters and results of a declaration once; the names they bind."""
        params = _params(captures["parameters"][0])
        result = _first(captures, "result")
        results = _results(result)
        self.signatures[node.start_byte] = (params, results)
        names = {p.name for p in params}
        if result is not None and result.type == "parameter_list":
            names.update(p.name for p in _params(result) if p.name)
        return names

    # ---- declarations -----------------------------------------------------------------------
    def _import(self, captures: _Captures) -> None:
        node = captures["import"][0]
        path_node = captures["path"][0]
        module = _text(path_node).strip('`"')
        alias_node = _first(captures, "alias")
        alias = _text(alias_node) if alias_node is not None else None
        star = alias == "."
        line = node.start_point[0] + 1
        self.imports.append(
            _new(Import, (line, module, None, None if star else alias, 0, star, "import", ""))
        )

    def _doc(self, node: Node) -> tuple[str, tuple[str, ...]]:
        """The first line of the doc comment above ``node`` and the directives among its lines."""
        source = self.source
        end = source.rfind(b"\n", 0, node.start_byte)
        lines: list[str] = []
        while end > 0:
            start = source.rfind(b"\n", 0, end) + 1
            raw = source[start:end].strip()
            if not raw.startswith(b"//"):
                break
            lines.append(raw.decode("utf-8", "replace"))
            end = start - 1
        lines.reverse()
        directives = tuple(
            " ".join(line[2:].split()) if m.group(1) == "go:linkname" else m.group(1)
            for line in lines
            if (m := _DIRECTIVE.match(line))
        )
        doc = ""
        for line in lines:
            if not _DIRECTIVE.match(line):
                text = line[2:].strip()
                if text:
                    doc = text[:200]
                    break
        return doc, directives

    def _header(self, node: Node, body: Node | None) -> str:
        end = body.start_byte if body is not None else node.end_byte
        return " ".join(self.source[node.start_byte : end].decode("utf-8", "replace").split())[:200]

    def _definition(
        self,
        node: Node,
        kind: str,
        name: str,
        qualname: str,
        body: Node | None,
        bases: tuple[str, ...] = (),
        params: tuple[Param, ...] = (),
        returns: tuple[str, ...] = (),
        signature: str | None = None,
    ) -> None:
        doc, directives = self._doc(node)
        if body is None and kind in ("function", "method"):
            directives += (NO_BODY,)
        line, column = node.start_point
        exported = (
            name[:1].isupper() and all(part[:1].isupper() for part in qualname.split(".")) and "$" not in name
        )
        if qualname == "init" and kind == "function":
            exported = True  # the runtime calls it when the package loads: an entry point of a library
        self.definitions.append(
            _new(
                Definition,
                (
                    line + 1,
                    node.end_point[0] + 1,
                    kind,
                    name,
                    qualname,
                    column,
                    self._header(node, body) if signature is None else signature,
                    doc,
                    bases,
                    directives,
                    params,
                    returns,
                    exported,
                    False,
                ),
            )
        )

    def _function(self, captures: _Captures) -> None:
        node = captures["def.function"][0]
        name = _text(captures["name"][0])
        params, results = self.signatures[node.start_byte]
        self._definition(
            node, "function", name, name, _first(captures, "body"), params=params, returns=results
        )
        type_parameters = _first(captures, "type_parameters")
        if type_parameters is not None:
            line = node.start_point[0] + 1
            for declaration in type_parameters.named_children:
                constraint = type_name(declaration.child_by_field_name("type"))
                if declaration.type != "type_parameter_declaration" or not _CALLEE.fullmatch(constraint):
                    continue
                for parameter in declaration.children_by_field_name("name"):
                    binding = (line, name, _text(parameter), f"constraint:{constraint}")
                    self.assignments.append(_new(Assignment, binding))

    def _method(self, captures: _Captures) -> None:
        node = captures["def.method"][0]
        name = _text(captures["name"][0])
        receiver, written = _receiver(captures["receiver"][0])
        owner = written.lstrip("*")
        qualname = f"{owner}.{name}"
        self._definition(
            node,
            "method",
            name,
            qualname,
            _first(captures, "body"),
            bases=(written,),
            params=self.signatures[node.start_byte][0],
            returns=self.signatures[node.start_byte][1],
        )
        if receiver not in ("", "_"):
            line = node.start_point[0] + 1
            self.assignments.append(_new(Assignment, (line, qualname, receiver, f"type:{written}")))

    def _type(self, captures: _Captures) -> None:
        node = captures["def.type"][0]
        name = _text(captures["name"][0])
        body = captures["type"][0]
        kind = body.type
        signature = self._header(node, None)[:200]
        if kind == "struct_type":
            fields, embedded = self._fields(body)
            self._definition(node, "struct", name, name, None, embedded, fields, signature=_short(signature))
        elif kind == "interface_type":
            embedded = self._interface(body, name)
            self._definition(node, "interface", name, name, None, embedded, signature=_short(signature))
        else:
            self._definition(node, "type", name, name, None, returns=(type_name(body),), signature=signature)

    def _alias(self, captures: _Captures) -> None:
        node = captures["def.alias"][0]
        name = _text(captures["name"][0])
        self._definition(node, "alias", name, name, None, returns=(type_name(captures["type"][0]),))

    def _fields(self, struct: Node) -> tuple[tuple[Param, ...], tuple[str, ...]]:
        fields: list[Param] = []
        embedded: list[str] = []
        for declarations in struct.named_children:
            if declarations.type != "field_declaration_list":
                continue
            for field in declarations.named_children:
                if field.type != "field_declaration":
                    continue
                written = type_name(field.child_by_field_name("type"))
                names = field.children_by_field_name("name")
                if names:
                    fields.extend(_new(Param, (_text(n), written, False, "")) for n in names)
                else:  # an embedded field is named after its type
                    embedded.append(written)
                    fields.append(_new(Param, (written.rpartition(".")[2], written, False, "")))
        return tuple(fields), tuple(embedded)

    def _interface(self, interface: Node, owner: str) -> tuple[str, ...]:
        embedded: list[str] = []
        for element in interface.named_children:
            if element.type == "method_elem":
                name = _text(element.child_by_field_name("name"))
                self._definition(
                    element,
                    "method",
                    name,
                    f"{owner}.{name}",
                    None,
                    bases=(owner,),
                    params=_params(element.child_by_field_name("parameters")),
                    returns=_results(element.child_by_field_name("result")),
                )
            elif element.type == "type_elem" and element.named_child_count == 1:
                written = type_name(element.named_children[0])
                if _CALLEE.fullmatch(written):
                    embedded.append(written)
        return tuple(embedded)

    # ---- bindings ---------------------------------------------------------------------------
    def _var(self, node: Node) -> None:
        entry = self.scope_entry(node.start_byte)
        scope = self.scopes[entry]
        names = [_text(n) for n in node.children_by_field_name("name")]
        declared_node = node.child_by_field_name("type")
        declared = type_name(declared_node) if declared_node is not None else ""
        value = node.child_by_field_name("value")
        values = value.named_children if value is not None else []
        line = node.start_point[0] + 1
        top_level = entry == 0
        if top_level:
            for name_node in node.children_by_field_name("name"):
                name = _text(name_node)
                if name == "_":
                    continue
                is_function = len(values) == 1 and values[0].type == "func_literal" and name in self.scopes
                self._definition(
                    node,
                    "function" if is_function else "variable",
                    name,
                    name,
                    values[0].child_by_field_name("body") if is_function else None,
                    params=_params(values[0].child_by_field_name("parameters")) if is_function else (),
                    returns=_results(values[0].child_by_field_name("result"))
                    if is_function
                    else ((declared,) if declared else ()),
                    signature=None if is_function else _short(self._header(node, None)),
                )
        else:
            self.locals[entry].update(names)
        if top_level and len(values) == 1 and values[0].type == "func_literal" and names[0] in self.scopes:
            return  # `var f = func...` is the definition f
        if declared:
            for position, name in enumerate(names):
                if name != "_":
                    self.assignments.append(_new(Assignment, (line, scope, name, f"type:{declared}")))
                    if len(values) != len(names):
                        continue
                    held = _binding(values[position], self.source, self.literal_names)
                    if held is not None:  # what an interface of that type holds
                        self.assignments.append(_new(Assignment, (line, scope, name, f"holds:{held}")))
            return
        self._bind_all(names, values, line, scope)

    def _assign(self, captures: _Captures) -> None:
        node = captures["assign"][0]
        left = captures["left"][0]
        right = captures["right"][0]
        source = self.source
        left_end = left.end_byte
        if node.type == "assignment_statement" and source[left_end : right.start_byte].strip() != b"=":
            return  # `x += 1` binds nothing new
        names = [
            name.strip() for name in source[left.start_byte : left_end].decode("utf-8", "replace").split(",")
        ]
        if not all(_NAME.fullmatch(name) for name in names):  # selectors, index expressions, comments
            names = [_text(target) if target.type == "identifier" else "" for target in left.named_children]
        start = node.start_byte
        entry = self.scope_entry(start)
        if entry and source[left_end : left_end + 4].lstrip().startswith(b":="):
            self.locals[entry].update(names)
        count = right.named_child_count
        values = [right.named_child(0)] if count == 1 else right.named_children
        self._bind_all(names, values, node.start_point[0] + 1, self.scopes[entry])

    def _bind_all(self, names: list[str], values: list[Node], line: int, scope: str) -> None:
        if len(values) == 1 and len(names) > 1:
            first = _binding(values[0], self.source, self.literal_names)
            if first is None:
                return
            kind = first.partition(":")[0]
            for position, name in enumerate(names):
                if not name or name == "_":
                    continue
                if kind == "call":
                    value = first if position == 0 else f"{first}#{position}"
                elif position == 0 and kind in ("type", "elem"):  # v, ok := x.(T) / m[k] / <-ch
                    value = first
                else:
                    continue
                self.assignments.append(_new(Assignment, (line, scope, name, value)))
            return
        for name, value_node in zip(names, values, strict=False):
            if not name:  # `s.f = handler`, `m[k] = handler`: a function stored away is used as a value
                if value_node.type in ("identifier", "selector_expression"):
                    self._reference(value_node)
                continue
            if name == "_":
                continue
            bound = _binding(value_node, self.source, self.literal_names)
            if bound is None:
                continue
            value = bound
            self.assignments.append(_new(Assignment, (line, scope, name, value)))
            if value.startswith("name:"):
                self._reference(value_node)

    def _range(self, captures: _Captures) -> None:
        node = captures["range"][0]
        entry = self.scope_entry(node.start_byte)
        names = [_text(n) if n.type == "identifier" else "" for n in captures["left"][0].named_children]
        if entry:
            self.locals[entry].update(names)
        right = captures["right"][0]
        line, scope = node.start_point[0] + 1, self.scopes[entry]
        over = chain(right)
        if over is None:
            if right.type == "composite_literal" and len(names) > 1 and names[1] not in ("", "_"):
                # `for _, x := range []T{...}`: the element type is written
                written = type_name(right.child_by_field_name("type"))
                element = _element(written)
                if element:
                    self.assignments.append(_new(Assignment, (line, scope, names[1], f"type:{element}")))
            return
        for position, name in enumerate(names[:2]):
            if name and name != "_":
                self.assignments.append(_new(Assignment, (line, scope, name, f"range:{over}#{position}")))

    def _type_switch(self, captures: _Captures) -> None:
        node = captures["typeswitch"][0]
        aliases = captures["alias"][0].named_children
        if len(aliases) != 1:
            return
        name = _text(aliases[0])
        entry = self.scope_entry(node.start_byte)
        if entry:
            self.locals[entry].add(name)
        scope = self.scopes[entry]
        value = chain(node.child_by_field_name("value"))
        for case in node.named_children:
            if case.type != "type_case":
                continue
            types = case.children_by_field_name("type")
            line = case.start_point[0] + 1
            if len(types) == 1 and _CALLEE.fullmatch(type_name(types[0])):
                self.assignments.append(_new(Assignment, (line, scope, name, f"type:{type_name(types[0])}")))
            elif value is not None:  # several types, or default: the alias keeps the switch's type
                self.assignments.append(_new(Assignment, (line, scope, name, f"name:{value}")))

    def _closure(self, captures: _Captures) -> None:
        """A function literal is a definition (kind function) of its own scope; the function that
        makes it refers to it (whoever it is passed, stored or returned to may call it) unless it
        calls it where it is written."""
        node = captures["closure"][0]
        entry = self.literals.get(node.start_byte)
        if entry is None:
            return  # `var f = func...`: the definition f
        qualname = self.scopes[entry]
        params, results = self.signatures[node.start_byte]
        body = node.child_by_field_name("body")
        self._definition(
            node, "function", qualname.rpartition(".")[2], qualname, body, params=params, returns=results
        )
        parent = node.parent
        function = parent.child_by_field_name("function") if parent is not None else None
        if (
            parent is not None
            and parent.type == "call_expression"
            and function is not None
            and function.start_byte == node.start_byte
            and function.type == "func_literal"
        ):
            return  # called where it is written: the call is the maker's edge
        line, column = node.start_point
        scope = self.scopes[self.parents[entry]]
        self.references.append(_new(Reference, (line + 1, column, scope, f"func:{qualname}")))

    def _return(self, node: Node) -> None:
        """``return a, b``: result ``n`` of the function holds what value ``n`` gives (the target
        ``return`` for the first result, ``return#<n>`` for the others); a value the bindings
        cannot write is ``expr:``, and a bare ``return`` (named results) is ``expr:`` for the first,
        so a set of returns is complete only when each is written (``nil`` gives nothing)."""
        entry = self.scope_entry(node.start_byte)
        if not entry:
            return
        scope = self.scopes[entry]
        line = node.start_point[0] + 1
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        if values is None:
            self.assignments.append(_new(Assignment, (line, scope, "return", "expr:")))
            return
        items = [child for child in values.named_children if child.type != "comment"]
        for position, item in enumerate(items):
            if item.type == "nil":
                continue
            bound = _binding(item, self.source, self.literal_names)
            target = f"return#{position}" if position else "return"
            self.assignments.append(_new(Assignment, (line, scope, target, bound or "expr:")))

    # ---- calls ------------------------------------------------------------------------------
    def _call(self, node: Node, function: Node, args: Node) -> None:
        source = self.source
        start = node.start_byte
        args_start = args.start_byte
        callee = source[start:args_start].decode("utf-8", "replace")
        if _CALLEE.fullmatch(callee):  # the common case: a plain name chain, read from the bytes
            receiver: str | None
            receiver, _, name = callee.rpartition(".")
            receiver = receiver or None
        else:
            kind = function.type
            if kind == "func_literal":  # a literal called where it is written: a call of its node
                entry = self.literals.get(function.start_byte)
                if entry is None:
                    return
                name = self.scopes[entry]
                callee, receiver = f"func:{name}", None
            elif kind == "selector_expression":
                name = _text(function.child_by_field_name("field"))
                receiver = chain(function.child_by_field_name("operand")) or "<expr>"
            elif kind in (
                "parenthesized_expression",
                "generic_type",
                "qualified_type",
                "type_identifier",
                "identifier",
            ):
                inner = chain(function)
                if inner is None:
                    receiver, name = "<expr>", ""
                else:
                    head, _, name = inner.rpartition(".")
                    receiver = head or None
            elif kind == "index_expression":
                # `F[int](x)`, a generic instantiation, or `handlers[k](x)`, a function taken from a
                # slice or a map: the linker tells them apart by what the name holds
                inner = chain(function.child_by_field_name("operand"))
                if inner is None:
                    receiver, name = "<expr>", ""
                else:
                    head, _, name = inner.rpartition(".")
                    receiver = head or None
            elif kind == "call_expression":  # `f()()`: a call of what a call returned
                inner = chain(function)
                receiver, name = None, ""
                callee = inner or "<expr>"
            elif kind in _UNNAMED_TYPES:
                return  # a conversion to an unnamed type runs no code
            else:
                receiver, name = "<expr>", ""
            if kind not in ("call_expression", "func_literal"):
                callee = f"{receiver}.{name}" if receiver else name
                if not name:
                    callee = "<expr>"
        line, column = node.start_point
        scope = self.scopes[self.scope_entry(start)]
        end = node.end_byte
        raw = source[start : min(end, start + CALL_TEXT_MAX)]
        text = raw.decode("utf-8", "replace")
        if end - start > CALL_TEXT_MAX or "\n" in text or "  " in text or "\t" in text:
            text = short_text(source[start:end], CALL_TEXT_MAX)
        count = args.named_child_count
        if count and source.find(b"/", args_start, args.end_byte) >= 0:
            count = sum(1 for a in args.named_children if a.type != "comment")
        self.calls.append(
            _new(Call, (line + 1, column, scope, callee, name, receiver, count, text, False, False))
        )
        if name == "MethodByName" and receiver is not None:
            self.dynamic.append(_new(DynamicFlag, (line + 1, column, scope, "getattr", None, None)))

    def _generic_call(self, node: Node, generic: Node) -> None:
        written = type_name(generic)
        if not _CALLEE.fullmatch(written):
            return
        head, _, name = written.rpartition(".")
        line, column = node.start_point
        scope = self.scopes[self.scope_entry(node.start_byte)]
        self.calls.append(
            _new(
                Call,
                (line + 1, column, scope, written, name, head or None, 1, self.line_text(node), False, False),
            )
        )

    def _literal(self, node: Node, type_node: Node) -> None:
        written = type_name(type_node)
        if not _CALLEE.fullmatch(written):
            return
        head, _, name = written.rpartition(".")
        line, column = node.start_point
        scope = self.scopes[self.scope_entry(node.start_byte)]
        text = short_text(self.source[node.start_byte : node.end_byte], CALL_TEXT_MAX)
        self.calls.append(
            _new(Call, (line + 1, column, scope, written, name, head or None, 0, text, True, False))
        )

    # ---- references -------------------------------------------------------------------------
    def _reference(self, node: Node) -> None:
        start = node.start_byte
        written: str | None = self.source[start : node.end_byte].decode("utf-8", "replace")
        if not _CALLEE.fullmatch(written or ""):
            written = chain(node)
            if written is None or not _CALLEE.fullmatch(written):
                return
        assert written is not None
        entry = self.scope_entry(start)
        # a local name holds no function the records could name; a selector on one may be a method
        # value (`s.handle`), which the linker tells from a field
        if written in _NOT_REFERENCES or self.is_local(entry, written):
            return
        line, column = node.start_point
        self.references.append(_new(Reference, (line + 1, column, self.scopes[entry], written)))


_NOT_REFERENCES = frozenset(("nil", "true", "false", "iota", "_"))
_UNNAMED_TYPES = frozenset(
    (
        "array_type",
        "slice_type",
        "map_type",
        "channel_type",
        "function_type",
        "pointer_type",
        "interface_type",
        "struct_type",
    )
)


def _element(written: str) -> str:
    """The element type of a slice or map type as the records write it (``[]T`` -> ``T``)."""
    if written.startswith("[]"):
        return written[2:]
    if written.startswith("map["):
        depth = 0
        for index in range(3, len(written)):
            depth += {"[": 1, "]": -1}.get(written[index], 0)
            if depth == 0:
                return written[index + 1 :]
    return ""


def _package_variable(literal: Node) -> str:
    """The package variable whose value holds a top-level function literal (``init`` if none)."""
    node: Node | None = literal.parent
    while node is not None and node.type != "var_spec":
        node = node.parent
    names = node.children_by_field_name("name") if node is not None else []
    return _text(names[0]) if names else "init"


def _first(captures: _Captures, name: str) -> Node | None:
    found = captures.get(name)
    return found[0] if found else None


def _short(text: str) -> str:
    """A type declaration's header: up to its body's brace."""
    head, brace, _ = text.partition("{")
    return head.strip() if brace else text


def _receiver(node: Node) -> tuple[str, str]:
    """The receiver's name and type as written, ``*`` kept: ``("c", "*Circle")``."""
    for child in node.named_children:
        if child.type == "parameter_declaration":
            type_node = child.child_by_field_name("type")
            written = type_name(type_node)
            while (
                type_node is not None
                and type_node.type == "parenthesized_type"
                and type_node.named_child_count
            ):
                type_node = type_node.named_children[0]
            if type_node is not None and type_node.type == "pointer_type":
                written = "*" + written
            name = child.child_by_field_name("name")
            return (_text(name) if name is not None else ""), written
    return "", ""


def _binding(node: Node, source: bytes, literals: dict[int, str]) -> str | None:
    """What a value expression gives a name it is bound to (see the module doc), or None."""
    kind = node.type
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _binding(node.named_children[0], source, literals)
    if kind == "call_expression":
        args = node.child_by_field_name("arguments")
        if args is not None:
            callee = source[node.start_byte : args.start_byte].decode("utf-8", "replace")
            if _CALLEE.fullmatch(callee) and callee != "new":  # the common case, read from the bytes
                return f"call:{callee}"
        function = node.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "func_literal":  # what a literal called at once returns
            name = literals.get(function.start_byte)
            return f"call:func:{name}" if name else None
        if function.type == "identifier" and _text(function) == "new":
            args = node.child_by_field_name("arguments")
            if args is not None and args.named_child_count == 1:
                return f"type:{type_name(args.named_children[0])}"
            return None
        written = chain(function)
        if written is None:
            if function.type in ("parenthesized_expression",):
                return None
            named = type_name(function) if function.type.endswith("_type") else ""
            return f"type:{named}" if named else None
        return f"call:{written}"
    if kind == "type_conversion_expression":
        target = node.child_by_field_name("type")
        written = type_name(target)
        return (
            f"call:{written}" if target is not None and target.type == "generic_type" else f"type:{written}"
        )
    if kind == "composite_literal":
        return f"type:{type_name(node.child_by_field_name('type'))}"
    if kind == "unary_expression":
        operator = node.children[0].type if node.child_count else ""
        operand = node.child_by_field_name("operand")
        if operand is None:
            return None
        if operator == "&":
            return _binding(operand, source, literals)
        if operator == "*":
            written = chain(operand)
            return None if written is None else f"name:{written}"
        if operator == "<-":
            written = chain(operand)
            return None if written is None else f"elem:{written}"
        return None
    if kind == "type_assertion_expression":
        return f"type:{type_name(node.child_by_field_name('type'))}"
    if kind in ("identifier", "selector_expression"):
        written = chain(node)
        if not written or written in _NOT_REFERENCES:
            return None
        return f"name:{written}"
    if kind == "index_expression":
        written = chain(node.child_by_field_name("operand"))
        return None if written is None else f"elem:{written}"
    if kind == "func_literal":
        name = literals.get(node.start_byte)
        return f"func:{name}" if name else "func:"
    return None


# ---- skeleton -----------------------------------------------------------------------------------


def skeleton(source: bytes) -> bytes | None:
    """The file with each top-level var value that holds only data blanked, or None if none does.

    A composite literal keeps its type and loses its elements (``var t = []entry{...}`` becomes
    ``var t = []entry{}``, its lines blank, so every line number stays); a value with a call or a
    function literal stays whole, as do function bodies.
    """
    tree = parser("go").parse(source)
    out = bytearray(source)
    changed = False
    for declaration in tree.root_node.named_children:
        if declaration.type != "var_declaration":
            continue
        specs = [c for c in declaration.named_children if c.type == "var_spec"]
        for group in declaration.named_children:
            if group.type == "var_spec_list":
                specs.extend(c for c in group.named_children if c.type == "var_spec")
        for spec in specs:
            value = spec.child_by_field_name("value")
            if value is None:
                continue
            for expression in value.named_children:
                literal = expression
                if literal.type == "unary_expression":
                    literal = literal.child_by_field_name("operand") or literal
                if literal.type != "composite_literal" or _runs_code(literal):
                    continue
                body = literal.child_by_field_name("body")
                if body is None or body.end_byte - body.start_byte <= 2:
                    continue
                for index in range(body.start_byte + 1, body.end_byte - 1):
                    if out[index] not in (0x0A, 0x0D):
                        out[index] = 0x20
                changed = True
    return bytes(out) if changed else None


def _runs_code(node: Node) -> bool:
    """Whether a value holds a call (not a conversion of a literal) or a function literal."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("call_expression", "func_literal"):
            return True
        stack.extend(current.named_children)
    return False
