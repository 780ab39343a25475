"""Rust extractor: one tree-sitter query, items sorted by byte offset, scopes through a stack.

What the records mean for Rust (the linker, ``languages/rust/link/linker.py``, reads them so):

- **Qualified names.** An inline module, a trait and an impl block are scopes: ``inner.helper``,
  ``Shape.area`` (a trait method), ``Circle.area`` (a method of ``impl Circle`` or of
  ``impl Shape for Circle``: the last segment of the impl's self type). A function inside a
  function is ``outer.inner``. A closure in a function is a definition of kind function (not
  exported) named after the function and its position among that function's closures, as ``f$1``,
  ``f$1$1`` (a closure in ``f$1``), ``Circle.area$2``: the scope of its own calls, with its
  parameters as ``params``; the function that makes it has a Reference ``closure:<qualname>`` (it
  is stored, passed or returned: whoever holds it may call it), and a call of it where it is
  written, ``(|| ..)()``, has callee ``closure:<qualname>``. Kinds: function, method, struct, enum,
  union, trait, type, module, macro.
- **Types** are written one way everywhere (``Param.type``, ``type:`` assignments): a path as the
  source writes it (``crate::model::Circle``, ``Circle``), with ``&``, ``&mut``, ``*const``,
  ``Box<..>``, ``Rc<..>``, ``Arc<..>`` and type arguments dropped, ``Self`` replaced by the
  impl's self type, a generic parameter replaced by its bounds (``T: Shape + Send`` is ``Shape``;
  several bounds are joined by ``+``; an unbounded parameter is no type), ``dyn Trait`` and
  ``impl Trait`` by the trait. ``Option<T>`` and ``Result<T, E>`` (any path ending in
  ``Result``) keep their wrapper: ``Option<Circle>``, ``Result<Circle>``.
- ``Definition.returns`` of a function holds its return type in that form with the wrapper split
  off as a marker: ``("Circle", "wraps:Option")``. A type alias returns what it aliases.
- ``Definition.bases``: for a method of an impl block, the impl's self type then, for a trait impl,
  the trait (``("Circle", "shapes::Shape")``); a generic self type (a blanket impl) is written
  ``<T>``. For a trait, its supertraits.
- ``Definition.decorators``: the attributes as paths (``test``, ``tokio::main``), ``derive(Clone)``
  per derived trait, ``cfg(test)``; ``abstract`` marks a trait method with no default body.
- ``Definition.exported``: ``pub`` (not ``pub(crate)``), and every method of a trait impl.
- Imports: ``use`` binds ``Import(module="a::b", name="c", alias, kind="use")`` per leaf of a use
  tree (``self`` in a group binds the group's module; ``*`` is ``star``); ``mod foo;`` is
  ``Import(kind="mod", name="foo", module=<#[path] value or "">)``; ``extern crate a as b`` is
  kind ``extern``, and ``#[macro_use] extern crate a`` adds kind ``macro_use``. Import.scope is the
  inline module or function holding the declaration. ``pub use`` and ``pub mod`` are Exports too.
- Assignments: a struct field is ``(scope=Struct, target="self.field", value="type:T")`` (tuple
  fields ``self.0``); a ``let`` with a type is ``type:T``, with a value ``name:<chain>``, where a
  chain is ``a::b``, ``.field``, ``()`` for a call and ``?`` for an unwrap (the ``?`` operator,
  and ``if let Some(x) = e``/``let Ok(x) = e else``); a closure is ``closure:<qualname>``, and so is
  ``Box::new(<closure>)`` (``Rc``, ``Arc``); a struct literal or a cast is ``type:T``. What a
  function's body ends in is the binding ``return`` of the function (a keyword: no name is bound
  so), for a closure, a struct literal or a path, through ``Box::new(..)``. ``impl Trait for
  Type`` is ``(target="Type", value="impl:Trait")``. Consts and statics are ``type:`` assignments
  in their container.
- Calls: ``recv.m()`` has ``receiver`` = the receiver chain (``<expr>`` when it is no chain);
  ``a::b::f()`` and ``f()`` have no receiver and the path as callee. A macro ``m!(..)`` is a call
  with callee ``m!``; its body is tokens, where ``f(..)``, ``a::f(..)``, ``x.m(..)`` and ``n!(..)``
  are read as calls and a bare name in an argument position as a reference (``$f(..)`` is not).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

from tree_sitter import Node

from projectgraph.fileindex import (
    CALL_TEXT_MAX,
    Assignment,
    Call,
    Definition,
    Export,
    FileIndex,
    Import,
    Param,
    Reference,
)
from projectgraph.languages.base import folder_matches, parser, short_text

_KINDS = (
    "def.function",
    "def.signature",
    "def.struct",
    "def.enum",
    "def.union",
    "def.trait",
    "def.type",
    "def.mod",
    "def.impl",
    "def.macro",
    "const",
    "call",
    "macro",
    "use",
    "extern",
    "let",
    "letcond",
    "closure.param",
    "def.closure",
    "ref",
    "struct.literal",
    "error",
)
_SCOPES = frozenset(("def.function", "def.trait", "def.impl", "def.macro", "def.mod"))
_ITEM_KINDS = {
    "def.function": "function",
    "def.signature": "method",
    "def.struct": "struct",
    "def.enum": "enum",
    "def.union": "union",
    "def.trait": "trait",
    "def.type": "type",
    "def.mod": "module",
    "def.macro": "macro",
}
WRAPPERS = frozenset(("Option", "Result"))
TRANSPARENT = frozenset(("Box", "Rc", "Arc"))
MARKER_TRAITS = frozenset(("Send", "Sync", "Sized", "Unpin", "Copy", "UnwindSafe", "RefUnwindSafe"))
KEYWORDS = frozenset(
    """as async await break const continue crate dyn else enum extern false fn for if impl in let loop
    match mod move mut pub ref return self Self static struct super trait true type unsafe use where
    while yield""".split()
)
QUOTING_MACROS = frozenset(
    (
        "quote",
        "quote_spanned",
        "parse_quote",
        "parse_quote_spanned",
        "quote_block",
        "quote_expr",
        "quote_stmt",
    )
)
_CHAIN_MAX = 240
_SIGNATURE_MAX = 200


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed Rust file."""
    return _Extractor(source).run(tree.root_node, path, file_hash)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _path_join(prefix: str, name: str) -> str:
    return f"{prefix}::{name}" if prefix else name


class _Scope:
    """One scope entry: an item that holds others (function, trait, impl, inline module, macro)."""

    __slots__ = (
        "end",
        "exported",
        "generics",
        "impl_bases",
        "kind",
        "module",
        "parent",
        "qualname",
        "self_type",
        "start",
        "trait_impl",
    )

    def __init__(
        self,
        start: int,
        end: int,
        parent: int,
        qualname: str,
        kind: str,
        generics: dict[str, str | None],
        self_type: str | None,
        module: str,
    ) -> None:
        self.start = start
        self.end = end
        self.parent = parent
        self.qualname = qualname
        self.kind = kind  # module | function | trait | impl | macro
        self.generics = generics
        self.self_type = self_type
        self.impl_bases: tuple[str, ...] = ()
        self.module = module  # the nearest inline module's qualname ("" for the file)
        self.trait_impl = False
        self.exported = False


_Captures = dict[str, list[Node]]


class _Extractor:
    def __init__(self, source: bytes, root: _Scope | None = None, depth: int = 0) -> None:
        self.source = source
        self.depth = depth  # how many item macros hold this source
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.definitions: list[Definition] = []
        self.calls: list[Call] = []
        self.references: list[Reference] = []
        self.assignments: list[Assignment] = []
        if root is None:
            root = _Scope(-1, 1 << 62, 0, "", "module", {}, None, "")
        self.scopes: list[_Scope] = [root]
        self.starts: list[int] = [-1]
        self.closures: dict[int, str] = {}  # a closure's start byte -> its qualname
        self.closure_counts: dict[str, int] = {}
        # (function, the expression its body ends in, the function's scope)
        self.tails: list[tuple[str, Node, _Scope]] = []

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _plain(self, node: Node) -> str | None:
        """The node's text when it is a plain path (``a::b::C``), else None."""
        raw = self.source[node.start_byte : node.end_byte]
        return raw.decode("ascii") if _FAST_PATH.fullmatch(raw) else None

    def entry(self, start: int) -> _Scope:
        """The innermost scope holding byte ``start``."""
        j = bisect_right(self.starts, start) - 1
        scopes = self.scopes
        while scopes[j].end <= start and j:
            j = scopes[j].parent
        return scopes[j]

    # main loop -------------------------------------------------------------------------------
    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        errors = self.collect(root)
        return FileIndex(
            path=path,
            language="rust",
            hash=file_hash,
            imports=tuple(sorted(set(self.imports), key=_import_order)),
            exports=tuple(sorted(set(self.exports), key=_import_order)),
            definitions=tuple(sorted(self.definitions)),
            calls=tuple(sorted(set(self.calls))),
            references=tuple(sorted(set(self.references))),
            assignments=tuple(sorted(set(self.assignments))),
            syntax_errors=errors,
            flags=("syntax-error",) if errors else (),
        )

    def collect(self, root: Node) -> int:
        """Fill the record lists from the tree; the number of syntax errors."""
        groups = folder_matches(__file__, "rust", _KINDS, root)
        self._items(groups)
        for captures in groups["call"]:
            node = captures["call"][0]
            args = captures.get("args")
            self._call(node, captures["function"][0], args[0] if args else None, self.entry(node.start_byte))
        for captures in groups["macro"]:
            node = captures["macro"][0]
            scope = self.entry(node.start_byte)
            if not self._item_macro(node, scope):
                self._macro(node, scope)
        for captures in groups["use"]:
            node = captures["use"][0]
            self._use(node, self.entry(node.start_byte))
        for captures in groups["extern"]:
            node = captures["extern"][0]
            self._extern(node, self.entry(node.start_byte))
        for captures in groups["let"]:
            node = captures["let"][0]
            self._let(node, self.entry(node.start_byte))
        for captures in groups["letcond"]:
            node = captures["letcond"][0]
            self._let(node, self.entry(node.start_byte))
        for captures in groups["closure.param"]:
            node = captures["closure.param"][0]
            self._closure_param(node, self.entry(node.start_byte))
        for captures in groups["const"]:
            node = captures["const"][0]
            self._const(node, self.entry(node.start_byte))
        for captures in groups["ref"]:
            node = captures["ref"][0]
            scope = self.entry(node.start_byte)
            name = self._path(node, scope.generics)
            if name and name not in KEYWORDS:
                self._reference(node, scope, name)
        for captures in groups["struct.literal"]:
            node = captures["struct.literal"][0]
            scope = self.entry(node.start_byte)
            written = self._type(node, scope)
            if written:
                self._reference(node, scope, written)
        return len(groups["error"])

    def _item_macro(self, node: Node, scope: _Scope) -> bool:
        """An item-position macro whose braces hold items (``cfg_rt! { mod x; pub use x::y; }``):
        its body is read as the items of the module, impl or trait around it."""
        parent = node.parent
        if parent is None or parent.type not in ("source_file", "declaration_list") or self.depth >= 8:
            return False
        body = next((c for c in node.named_children if c.type == "token_tree"), None)
        if body is None or self.source[body.start_byte : body.start_byte + 1] != b"{":
            return False
        inner = self.source[body.start_byte + 1 : body.end_byte - 1]
        tree = parser("rust").parse(inner)
        if tree.root_node.has_error:
            return False
        root = _Scope(-1, 1 << 62, 0, scope.qualname, scope.kind, dict(scope.generics), scope.self_type,
                      scope.module)  # fmt: skip
        root.impl_bases, root.trait_impl, root.exported = scope.impl_bases, scope.trait_impl, scope.exported
        nested = _Extractor(inner, root, self.depth + 1)
        nested.collect(tree.root_node)
        row, column = body.start_point
        column += 1
        macro = self._path(node.child_by_field_name("macro"), {})
        line = node.start_point[0] + 1
        self.calls.append(
            Call(line, node.start_point[1], scope.qualname, f"{macro}!", macro.rsplit("::", 1)[-1], None, 1,
                 self._call_text(node.start_byte, body.start_byte + 1) + "…")
        )  # fmt: skip
        self.imports += [i._replace(line=i.line + row) for i in nested.imports]
        self.exports += [e._replace(line=e.line + row) for e in nested.exports]
        self.assignments += [a._replace(line=a.line + row) for a in nested.assignments]
        self.definitions += [
            d._replace(
                line=d.line + row, end_line=d.end_line + row, column=d.column + (column if d.line == 1 else 0)
            )
            for d in nested.definitions
        ]
        self.calls += [
            c._replace(line=c.line + row, column=c.column + (column if c.line == 1 else 0))
            for c in nested.calls
        ]
        self.references += [
            r._replace(line=r.line + row, column=r.column + (column if r.line == 1 else 0))
            for r in nested.references
        ]
        return True

    # items -----------------------------------------------------------------------------------
    def _items(self, groups: dict[str, list[_Captures]]) -> None:
        events: list[tuple[int, int, str, Node]] = []
        for kind in _ITEM_KINDS.keys() | {"def.impl", "def.closure"}:
            for captures in groups[kind]:
                node = captures[kind][0]
                events.append((node.start_byte, -node.end_byte, kind, node))
        events.sort(key=lambda e: (e[0], e[1]))
        stack = [0]
        for start, _neg_end, kind, node in events:
            while self.scopes[stack[-1]].end <= start:
                stack.pop()
            parent_index = stack[-1]
            parent = self.scopes[parent_index]
            made = self._item(kind, node, parent, parent_index)
            if made is not None:
                self.scopes.append(made)
                self.starts.append(made.start)
                stack.append(len(self.scopes) - 1)
        self._returned_closures()

    def _item(self, kind: str, node: Node, parent: _Scope, parent_index: int) -> _Scope | None:
        if kind == "def.impl":
            return self._impl(node, parent, parent_index)
        if kind == "def.closure":
            return self._closure(node, parent, parent_index)
        name_node = node.child_by_field_name("name")
        name = self.text(name_node)
        if not name:
            return None
        decorators, doc, path_attr, macro_use = self._attributes(node)
        line, column = node.start_point[0] + 1, node.start_point[1]
        end_line = node.end_point[0] + 1
        qualname = _join(parent.qualname, name)
        exported = self._is_pub(node)
        if kind == "def.mod":
            body = node.child_by_field_name("body")
            if body is None:  # `mod foo;`: a file of the module tree
                self.imports.append(
                    Import(line=line, module=path_attr, name=name, kind="mod", scope=parent.module)
                )
                if exported:
                    self.exports.append(Export(line=line, name=name, local=name))
                return None
            self.definitions.append(
                Definition(
                    line,
                    end_line,
                    "module",
                    name,
                    qualname,
                    column,
                    self._signature(node, body),
                    doc,
                    decorators=tuple(decorators),
                    exported=exported,
                )
            )
            scope = _Scope(
                node.start_byte, node.end_byte, parent_index, qualname, "module", {}, None, qualname
            )
            if path_attr:
                self.imports.append(
                    Import(line=line, module=path_attr, name=name, kind="mod", scope=parent.module)
                )
            return scope
        if kind == "def.macro":
            if macro_use or "macro_export" in decorators:
                exported = True
            self.definitions.append(
                Definition(
                    line,
                    end_line,
                    "macro",
                    name,
                    qualname,
                    column,
                    f"macro_rules! {name}",
                    doc,
                    decorators=tuple(decorators),
                    exported=exported,
                )
            )
            scope = _Scope(
                node.start_byte, node.end_byte, parent_index, qualname, "macro", {}, None, parent.module
            )
            for child in node.named_children:
                if child.type == "macro_rule":
                    right = child.child_by_field_name("right")
                    if right is not None:
                        self._tokens(right, scope, qualname)
            return None  # the rules' tokens are read here: a macro holds no item
        generics = dict(parent.generics)
        self._generics(node, generics, parent)
        inner = _Scope(
            node.start_byte,
            node.end_byte,
            parent_index,
            qualname,
            "function",
            generics,
            parent.self_type,
            parent.module,
        )
        if kind in ("def.function", "def.signature"):
            in_type = parent.kind in ("impl", "trait")
            def_kind = "method" if in_type else "function"
            if kind == "def.signature" and in_type:
                decorators.append("abstract")
            if (parent.kind == "impl" and parent.trait_impl) or (parent.kind == "trait" and parent.exported):
                exported = True
            params = self._params(node.child_by_field_name("parameters"), inner)
            returns = self._returns(node.child_by_field_name("return_type"), inner)
            body = node.child_by_field_name("body")
            if body is not None and body.named_child_count and not _returns_early(body):
                tail = _unparenthesized(body.named_children[-1])
                if tail.type in ("closure_expression", "call_expression", "struct_expression", "identifier"):
                    self.tails.append((qualname, tail, inner))
            modifiers = next((c for c in node.children if c.type == "function_modifiers"), None)
            is_async = modifiers is not None and "async" in self.text(modifiers).split()
            self.definitions.append(
                Definition(
                    line,
                    end_line,
                    def_kind,
                    name,
                    qualname,
                    column,
                    self._signature(node, body),
                    doc,
                    parent.impl_bases if parent.kind == "impl" else (),
                    tuple(decorators),
                    params,
                    returns,
                    exported,
                    is_async,
                )
            )
            return inner if kind == "def.function" else None
        if kind == "def.trait":
            bases = self._bounds(node.child_by_field_name("bounds"), inner)
            self.definitions.append(
                Definition(
                    line,
                    end_line,
                    "trait",
                    name,
                    qualname,
                    column,
                    self._signature(node, node.child_by_field_name("body")),
                    doc,
                    bases,
                    tuple(decorators),
                    exported=exported,
                )
            )
            inner.kind = "trait"
            inner.self_type = name
            inner.exported = exported
            return inner
        if kind == "def.type":
            aliased = self._type(node.child_by_field_name("type"), inner)
            self.definitions.append(
                Definition(
                    line,
                    end_line,
                    "type",
                    name,
                    qualname,
                    column,
                    self._signature(node, None),
                    doc,
                    decorators=tuple(decorators),
                    returns=(aliased,) if aliased else (),
                    exported=exported,
                )
            )
            return None
        # struct, enum, union
        body = node.child_by_field_name("body")
        self.definitions.append(
            Definition(
                line,
                end_line,
                _ITEM_KINDS[kind],
                name,
                qualname,
                column,
                self._signature(node, body),
                doc,
                decorators=tuple(decorators),
                exported=exported,
            )
        )
        if body is not None and kind in ("def.struct", "def.union"):
            inner.self_type = name
            self._fields(body, qualname, inner)
        return None

    def _impl(self, node: Node, parent: _Scope, parent_index: int) -> _Scope | None:
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return None
        own: dict[str, str | None] = {}
        params = node.child_by_field_name("type_parameters")
        generic_names = set()
        if params is not None:
            for child in params.named_children:
                if child.type in ("type_parameter", "constrained_type_parameter"):
                    generic_names.add(
                        self.text(child.child_by_field_name("name") or child.child_by_field_name("left"))
                    )
        base = _Scope(0, 0, 0, "", "impl", {}, None, parent.module)
        written = self._type(type_node, base)
        if written is not None and written in generic_names:
            self_type = f"<{written}>"
            segment = written
        elif written is not None:
            self_type = written.split("<")[0]
            segment = self_type.rsplit("::", 1)[-1]
        else:
            segment = _SHAPES.get(type_node.type, type_node.type)
            if type_node.type == "reference_type":
                segment = "ref"
            self_type = segment
        generics = dict(parent.generics)
        generics.update(own)
        scope = _Scope(
            node.start_byte,
            node.end_byte,
            parent_index,
            _join(parent.qualname, segment),
            "impl",
            generics,
            self_type,
            parent.module,
        )
        self._generics(node, scope.generics, scope)
        trait_node = node.child_by_field_name("trait")
        trait = self._type(trait_node, base) if trait_node is not None else None
        if trait_node is not None:
            scope.trait_impl = True
            trait = trait or self.text(trait_node)
            scope.impl_bases = (self_type, trait)
            self.assignments.append(
                Assignment(node.start_point[0] + 1, parent.qualname, self_type, f"impl:{trait}")
            )
        else:
            scope.impl_bases = (self_type,)
        return scope

    def _attributes(self, node: Node) -> tuple[list[str], str, str, bool]:
        """(decorators, first doc line, #[path] value, #[macro_use]) from the item's preceding siblings."""
        decorators: list[str] = []
        docs: list[str] = []
        path_attr = ""
        macro_use = False
        if not self._annotated(node.start_byte):
            return decorators, "", path_attr, macro_use
        sibling = node.prev_sibling
        while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
            if sibling.type == "attribute_item":
                attr = sibling.named_children[0] if sibling.named_children else None
                if attr is not None and attr.named_children:
                    name = self._path(attr.named_children[0], {})
                    args = attr.child_by_field_name("arguments")
                    value = attr.child_by_field_name("value")
                    if name == "derive" and args is not None:
                        derived = [
                            f"derive({self._path(child, {})})"
                            for child in args.named_children
                            if child.type in ("identifier", "scoped_identifier")
                        ]
                        decorators.extend(reversed(derived))
                    elif name == "path" and value is not None:
                        path_attr = self.text(value).strip('"')
                    elif name == "cfg" and args is not None:
                        decorators.append("cfg" + "".join(self.text(args).split()))
                    else:
                        decorators.append(name)
                        if name == "macro_use":
                            macro_use = True
            else:
                text = self.text(sibling)
                if text.startswith("///") and not text.startswith("////"):
                    docs.append(text[3:].strip())
            sibling = sibling.prev_sibling
        decorators.reverse()
        doc = next((line for line in reversed(docs) if line), "")
        return decorators, doc[:200], path_attr, macro_use

    def _annotated(self, start: int) -> bool:
        """Whether an attribute or a comment may end right before byte ``start``."""
        source = self.source
        k = start - 1
        while k >= 0 and source[k] in b" \t\r\n":
            k -= 1
        if k < 0:
            return False
        if source[k] == 93 or source[k - 1 : k + 1] == b"*/":  # `]` or the end of a block comment
            return True
        line_start = source.rfind(b"\n", 0, k) + 1
        return source[line_start : k + 1].lstrip().startswith(b"//")

    def _is_pub(self, node: Node) -> bool:
        for child in node.children:
            if child.type == "visibility_modifier":
                return self.text(child) == "pub"
            if child.is_named and child.type not in ("attribute_item", "function_modifiers"):
                return False
        return False

    def _signature(self, node: Node, body: Node | None) -> str:
        end = body.start_byte if body is not None else node.end_byte
        raw = self.source[node.start_byte : min(end, node.start_byte + _SIGNATURE_MAX * 4)]
        text = " ".join(raw.decode("utf-8", "replace").split()).rstrip(" {;")
        return text if len(text) <= _SIGNATURE_MAX else text[: _SIGNATURE_MAX - 1] + "…"

    # types -----------------------------------------------------------------------------------
    def _generics(self, node: Node, generics: dict[str, str | None], scope: _Scope) -> None:
        """Add the item's type parameters (and its where clause) to ``generics``: name -> bounds."""
        params = node.child_by_field_name("type_parameters")
        if params is not None:
            for child in params.named_children:
                if child.type in ("type_parameter", "constrained_type_parameter"):
                    name_node = child.child_by_field_name("name") or child.child_by_field_name("left")
                    name = self.text(name_node)
                    generics[name] = None
                    bounds = child.child_by_field_name("bounds")
                    if bounds is not None:
                        generics[name] = "+".join(self._bounds(bounds, scope, generics)) or None
        for child in node.named_children:
            if child.type == "where_clause":
                for predicate in child.named_children:
                    left = predicate.child_by_field_name("left")
                    bounds = predicate.child_by_field_name("bounds")
                    name = self.text(left)
                    if bounds is not None and name in generics:
                        found = self._bounds(bounds, scope, generics)
                        if found:
                            known = generics[name]
                            generics[name] = "+".join(
                                dict.fromkeys([*(known.split("+") if known else []), *found])
                            )

    def _bounds(
        self, bounds: Node | None, scope: _Scope, generics: dict[str, str | None] | None = None
    ) -> tuple[str, ...]:
        if bounds is None:
            return ()
        found: list[str] = []
        plain = _Scope(0, 0, 0, "", "function", {}, scope.self_type, scope.module)
        for child in bounds.named_children:
            if child.type in ("lifetime", "removed_trait_bound", "function_type"):
                continue
            if child.type == "higher_ranked_trait_bound":
                child = child.child_by_field_name("type") or child
            text = self._type(child, plain)
            if text and text not in MARKER_TRAITS and not text.startswith("'"):
                found.append(text)
        return tuple(found)

    def _type(self, node: Node | None, scope: _Scope) -> str | None:
        """A type in the one written form of the module docstring, or None."""
        if node is None:
            return None
        kind = node.type
        if kind == "type_identifier" or kind == "identifier":
            name = self.text(node)
            if name == "Self":
                return scope.self_type
            if name in scope.generics:
                return scope.generics[name]
            return name
        if kind == "primitive_type":
            return self.text(node)
        if kind in ("scoped_type_identifier", "scoped_identifier"):
            path = self._path(node, scope.generics)
            if path.startswith("Self::"):
                return None  # an associated type
            return path
        if kind == "generic_type":
            head = self._type(node.child_by_field_name("type"), scope)
            if head is None:
                return None
            last = head.rsplit("::", 1)[-1]
            args = node.child_by_field_name("type_arguments")
            first = None
            if args is not None:
                first = next(
                    (c for c in args.named_children if c.type not in ("lifetime", "type_binding", "block")),
                    None,
                )
            if last in TRANSPARENT and first is not None:
                return self._type(first, scope)
            if last in WRAPPERS and first is not None:
                inner = self._type(first, scope)
                if inner is None or "<" in inner:
                    return last
                return f"{last}<{inner}>"
            return head
        if kind in ("reference_type", "pointer_type"):
            return self._type(node.child_by_field_name("type"), scope)
        if kind in ("dynamic_type", "abstract_type"):
            trait = node.child_by_field_name("trait")
            if trait is None or trait.type == "function_type":
                return None
            return self._type(trait, scope)
        if kind == "bounded_type":
            parts = []
            for child in node.named_children:
                text = self._type(child, scope) if child.type != "lifetime" else None
                if text and text not in MARKER_TRAITS:
                    parts.append(text)
            return "+".join(parts) or None
        if kind == "generic_function":
            return self._type(node.child_by_field_name("function"), scope)
        if kind == "array_type":
            return "array" if node.child_by_field_name("length") is not None else "slice"
        return None

    def _path(self, node: Node | None, generics: dict[str, str | None]) -> str:
        """A path as written, type arguments dropped: ``a::b::C``; ``<T as Tr>::f`` is ``T::f``
        (``Tr::f`` when ``T`` is a generic parameter)."""
        if node is None:
            return ""
        kind = node.type
        if kind in ("scoped_identifier", "scoped_type_identifier", "identifier", "type_identifier"):
            plain = self._plain(node)
            if plain is not None:
                return plain
        if kind in ("scoped_identifier", "scoped_type_identifier", "scoped_use_list"):
            path = node.child_by_field_name("path")
            name = node.child_by_field_name("name")
            head = self._path(path, generics) if path is not None else ""
            return _path_join(head, self.text(name)) if name is not None else head
        if kind == "generic_type":
            return self._path(node.child_by_field_name("type"), generics)
        if kind == "generic_function":
            return self._path(node.child_by_field_name("function"), generics)
        if kind == "bracketed_type":
            inner = node.named_children[0] if node.named_children else None
            if inner is not None and inner.type == "qualified_type":
                written = self._path(inner.child_by_field_name("type"), generics)
                if written in generics or written == "Self":
                    return self._path(inner.child_by_field_name("alias"), generics)
                return written
            return self._path(inner, generics)
        text = self.text(node)
        return text[2:] if text.startswith("r#") else text

    def _params(self, node: Node | None, scope: _Scope) -> tuple[Param, ...]:
        if node is None:
            return ()
        params = []
        for child in node.named_children:
            kind = child.type
            if kind == "self_parameter":
                params.append(Param("self", scope.self_type))
            elif kind == "parameter":
                pattern = child.child_by_field_name("pattern")
                type_node = child.child_by_field_name("type")
                if pattern is None:
                    continue
                name = self.text(pattern) if pattern.type in ("identifier", "self") else None
                if name is None and pattern.type in ("ref_pattern", "mut_pattern") and pattern.named_children:
                    name = self.text(pattern.named_children[-1])
                if name is None:
                    params.append(Param("_"))
                    continue
                declared = scope.self_type if name == "self" else self._type(type_node, scope)
                params.append(Param(name, declared))
            elif kind == "variadic_parameter":
                params.append(Param("...", variadic="..."))
        return tuple(params)

    def _returns(self, node: Node | None, scope: _Scope) -> tuple[str, ...]:
        written = self._type(node, scope)
        if written is None:
            return ()
        head, sep, inner = written.partition("<")
        if sep and head in WRAPPERS:
            return (inner[:-1], f"wraps:{head}")
        return (written,)

    def _fields(self, body: Node, qualname: str, scope: _Scope) -> None:
        line = body.start_point[0] + 1
        if body.type == "field_declaration_list":
            for child in body.named_children:
                if child.type != "field_declaration":
                    continue
                name = self.text(child.child_by_field_name("name"))
                declared = self._type(child.child_by_field_name("type"), scope)
                if name and declared:
                    self.assignments.append(
                        Assignment(child.start_point[0] + 1, qualname, f"self.{name}", f"type:{declared}")
                    )
        elif body.type == "ordered_field_declaration_list":
            for position, child in enumerate(body.children_by_field_name("type")):
                declared = self._type(child, scope)
                if declared:
                    self.assignments.append(
                        Assignment(line, qualname, f"self.{position}", f"type:{declared}")
                    )

    # calls -----------------------------------------------------------------------------------
    def chain(self, node: Node | None, depth: int = 0) -> str | None:
        """An expression as a chain (``a::b``, ``.f``, ``()``, ``?``), or None."""
        if node is None or depth > 40:
            return None
        kind = node.type
        if kind in ("identifier", "self"):
            text = self.text(node)
            return text[2:] if text.startswith("r#") else text
        if kind in ("scoped_identifier", "generic_function"):
            return self._path(node, {}) or None
        if kind == "field_expression":
            value = self.chain(node.child_by_field_name("value"), depth + 1)
            field = node.child_by_field_name("field")
            if value is None or field is None:
                return None
            return f"{value}.{self.text(field)}"
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            head = self.chain(function, depth + 1)
            return f"{head}()" if head is not None else None
        if kind == "try_expression":
            inner = self.chain(node.named_children[0] if node.named_children else None, depth + 1)
            return f"{inner}?" if inner is not None else None
        if kind in ("await_expression", "parenthesized_expression"):
            return self.chain(node.named_children[0] if node.named_children else None, depth + 1)
        if kind == "reference_expression":
            return self.chain(node.child_by_field_name("value"), depth + 1)
        deref = kind == "unary_expression" and self.source[node.start_byte : node.start_byte + 1] == b"*"
        if deref and node.named_children:
            return self.chain(node.named_children[0], depth + 1)
        return None

    def _call(self, node: Node, function: Node, args: Node | None, scope: _Scope) -> None:
        source = self.source
        start = node.start_byte
        receiver: str | None = None
        head = source[start : function.end_byte]
        if _FAST_CALLEE.fullmatch(head):  # a plain chain: `f`, `a::b::f`, `self.items.iter`
            callee = head.decode("ascii")
            dot = callee.rfind(".")
            if dot >= 0:
                receiver, name = callee[:dot], callee[dot + 1 :]
            else:
                name = callee[callee.rfind(":") + 1 :]
                if callee.startswith("Self::") and scope.self_type:
                    callee = scope.self_type + callee[4:]
        else:
            if function.type == "generic_function":
                function = function.child_by_field_name("function") or function
            kind = function.type
            if kind in ("identifier", "scoped_identifier", "self"):
                callee = self._path(function, scope.generics)
                if callee.startswith("Self::") and scope.self_type:
                    callee = scope.self_type + callee[4:]
                name = callee.rsplit("::", 1)[-1]
            elif kind == "field_expression":
                name = self.text(function.child_by_field_name("field"))
                receiver = self.chain(function.child_by_field_name("value"))
                if receiver is None or len(receiver) > _CHAIN_MAX:
                    receiver = "<expr>"
                callee = f"{receiver}.{name}"
            else:
                closure = _unparenthesized(function)
                called = (
                    self.closures.get(closure.start_byte) if closure.type == "closure_expression" else None
                )
                callee, name = (f"closure:{called}", called) if called else ("<expr>", "")
        count = args.named_child_count if args is not None else 0
        line, column = node.start_point
        self.calls.append(
            _new(Call, (line + 1, column, scope.qualname, callee, name, receiver, count,
                        self._call_text(start, node.end_byte), False, False))
        )  # fmt: skip

    def _call_text(self, start: int, end: int) -> str:
        raw = self.source[start : min(end, start + CALL_TEXT_MAX * 4)]
        if len(raw) <= CALL_TEXT_MAX and raw.isascii() and b"  " not in raw:
            text = raw.decode("ascii")
            if text.isprintable():
                return text
        return short_text(raw, CALL_TEXT_MAX)

    def _macro(self, node: Node, scope: _Scope) -> None:
        macro = node.child_by_field_name("macro")
        if macro is None:
            return
        path = self._path(macro, {})
        line, column = node.start_point
        self.calls.append(
            Call(line + 1, column, scope.qualname, f"{path}!", path.rsplit("::", 1)[-1], None, 1,
                 self._call_text(node.start_byte, node.end_byte))
        )  # fmt: skip
        if path.rsplit("::", 1)[-1] in QUOTING_MACROS:
            return  # its tokens are code it writes for another crate, not calls of this one
        for child in node.named_children:
            if child.type == "token_tree":
                self._tokens(child, scope, scope.qualname)

    def _tokens(self, tree: Node, scope: _Scope, owner: str) -> None:
        """Calls and argument references in a token tree (a macro's input or a macro_rules body),
        read from its bytes with string literals and comments blanked."""
        body = self.source[tree.start_byte : tree.end_byte]
        if b'"' in body or b"'" in body or b"/" in body:
            body = _LITERALS.sub(lambda m: b" " * len(m.group()), body)
        if b"#" in body:
            body = _blank_attributes(body)
        newlines = [m.start() for m in _NEWLINE.finditer(body)]
        base_line, base_column = tree.start_point

        def position(offset: int) -> tuple[int, int]:
            index = bisect_right(newlines, offset)
            if index == 0:
                return base_line + 1, base_column + offset
            return base_line + index + 1, offset - newlines[index - 1] - 1

        for match in _TOKEN_CALL.finditer(body):
            first, rest, bang, bracket = match.group(1, 2, 3, 4)
            if not bang and bracket != b"(":
                continue
            segments = [first.decode("ascii")]
            if rest:
                segments += [s.strip().decode("ascii") for s in rest.split(b"::")[1:]]
            if segments[0] == "$crate":
                segments[0] = "crate"
            name = segments[-1]
            if name in KEYWORDS and not bang:
                continue
            before = _previous(body, match.start())
            if before == b"$" or _word_before(body, match.start()) in (b"fn", b"macro_rules"):
                continue
            line, column = position(match.start())
            text = short_text(body[match.start() : match.end() + 40], CALL_TEXT_MAX)
            if bang:
                path = "::".join(segments)
                self.calls.append(Call(line, column, owner, f"{path}!", name, None, 1, text))
                continue
            receiver = None
            if before == b".":
                if len(segments) > 1:
                    continue
                receiver = _receiver_before(body, match.start())
                callee = f"{receiver}.{name}"
            else:
                callee = "::".join(segments)
                if callee.startswith("Self::") and scope.self_type:
                    callee = scope.self_type + callee[4:]
            self.calls.append(Call(line, column, owner, callee, name, receiver, 1, text))
        for match in _TOKEN_ARGUMENT.finditer(body):
            word = match.group(1).decode("ascii")
            if word not in KEYWORDS:
                line, column = position(match.start(1))
                self.references.append(Reference(line, column, owner, word))

    def _reference(self, node: Node, scope: _Scope, name: str, owner: str | None = None) -> None:
        if name.startswith("Self::") and scope.self_type:
            name = scope.self_type + name[4:]
        elif name == "Self" and scope.self_type:
            name = scope.self_type
        line, column = node.start_point
        self.references.append(Reference(line + 1, column, scope.qualname if owner is None else owner, name))

    # imports ---------------------------------------------------------------------------------
    def _use(self, node: Node, scope: _Scope) -> None:
        argument = node.child_by_field_name("argument")
        if argument is None:
            return
        public = self._is_pub(node)
        self._use_tree(
            argument,
            "",
            node.start_point[0] + 1,
            scope.qualname if scope.kind == "function" else scope.module,
            public,
        )

    def _use_tree(self, node: Node, prefix: str, line: int, scope: str, public: bool) -> None:
        kind = node.type
        if kind == "use_as_clause":
            path = _path_join(prefix, self._path(node.child_by_field_name("path"), {}))
            alias = self.text(node.child_by_field_name("alias"))
            self._use_leaf(path, alias, line, scope, public)
        elif kind == "scoped_use_list":
            path_node = node.child_by_field_name("path")
            head = _path_join(prefix, self._path(path_node, {})) if path_node is not None else prefix
            listing = node.child_by_field_name("list")
            if listing is not None:
                for child in listing.named_children:
                    self._use_tree(child, head, line, scope, public)
        elif kind == "use_list":
            for child in node.named_children:
                self._use_tree(child, prefix, line, scope, public)
        elif kind == "use_wildcard":
            inner = node.named_children[0] if node.named_children else None
            module = _path_join(prefix, self._path(inner, {})) if inner is not None else prefix
            self.imports.append(Import(line=line, module=module, star=True, kind="use", scope=scope))
            if public:
                self.exports.append(Export(line=line, name="*", module=module, star=True))
        elif kind in ("identifier", "scoped_identifier", "self", "crate", "super", "metavariable"):
            self._use_leaf(_path_join(prefix, self._path(node, {})), None, line, scope, public)

    def _use_leaf(self, path: str, alias: str | None, line: int, scope: str, public: bool) -> None:
        path = path.removeprefix("::")
        module, _, name = path.rpartition("::")
        if name == "self":
            module, _, name = module.rpartition("::")
        if not name:
            return
        if alias == "_":  # `use Trait as _`: brings the trait's methods, binds no name
            alias = None
        self.imports.append(Import(line=line, module=module, name=name, alias=alias, kind="use", scope=scope))
        if public:
            self.exports.append(Export(line=line, name=alias or name, local=name, module=module))

    def _extern(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        alias_node = node.child_by_field_name("alias")
        line = node.start_point[0] + 1
        self.imports.append(
            Import(
                line=line,
                module="",
                name=name,
                alias=self.text(alias_node) or None,
                kind="extern",
                scope=scope.module,
            )
        )
        _decorators, _doc, _path, macro_use = self._attributes(node)
        if macro_use:
            self.imports.append(Import(line=line, module="", name=name, kind="macro_use", scope=scope.module))

    # bindings --------------------------------------------------------------------------------
    def _let(self, node: Node, scope: _Scope) -> None:
        pattern = node.child_by_field_name("pattern")
        name, unwrap = self._binding(pattern)
        if name is None:
            return
        line = node.start_point[0] + 1
        declared = self._type(node.child_by_field_name("type"), scope)
        if declared:
            self.assignments.append(Assignment(line, scope.qualname, name, f"type:{declared}"))
        value = self._value(node.child_by_field_name("value"), scope, unwrap)
        if value:
            self.assignments.append(Assignment(line, scope.qualname, name, value))

    def _binding(self, pattern: Node | None) -> tuple[str | None, bool]:
        if pattern is None:
            return None, False
        kind = pattern.type
        if kind == "identifier":
            return self.text(pattern), False
        if kind in ("ref_pattern", "mut_pattern") and pattern.named_children:
            return self._binding(pattern.named_children[-1])
        if kind == "tuple_struct_pattern":
            head = pattern.child_by_field_name("type")
            inner = [c for c in pattern.named_children if c != head]
            if head is not None and self.text(head) in ("Some", "Ok") and len(inner) == 1:
                name, _ = self._binding(inner[0])
                return name, True
        return None, False

    def _value(self, node: Node | None, scope: _Scope, unwrap: bool) -> str | None:
        if node is None:
            return None
        kind = node.type
        if kind == "struct_expression":
            declared = self._type(node.child_by_field_name("name"), scope)
            return f"type:{declared}" if declared else None
        if kind == "type_cast_expression":
            declared = self._type(node.child_by_field_name("type"), scope)
            return f"type:{declared}" if declared else None
        if kind == "closure_expression":
            return f"closure:{self.closures.get(node.start_byte, '')}"
        boxed = self._boxed_closure(node)
        if boxed is not None:  # `Box::new(|| ..)`: the box holds the closure (Box, Rc, Arc are transparent)
            return f"closure:{boxed}"
        if kind == "string_literal":
            return "type:str"
        if kind == "macro_invocation":
            macro = self._path(node.child_by_field_name("macro"), {})
            return {"format": "type:String", "vec": "type:Vec"}.get(macro)
        chain = self.chain(node)
        if chain is None or len(chain) > _CHAIN_MAX:
            return None
        if chain.startswith(("Self::", "Self(")) and scope.self_type:
            chain = scope.self_type + chain[4:]
        return f"name:{chain}{'?' if unwrap else ''}"

    def _closure(self, node: Node, parent: _Scope, parent_index: int) -> _Scope | None:
        """A closure in a function: a definition of kind function named after the function and its
        position among that function's closures (``f$1``, ``f$1$1``, ``Circle.area$2``), the scope
        of its own calls; whoever gets it may call it, so the function that makes it refers to it
        (a Reference ``closure:<qualname>``; a ``let`` binds the name to the same). A closure outside
        a function (in a const or a static) stays part of its container."""
        if parent.kind != "function":
            return None
        count = self.closure_counts.get(parent.qualname, 0) + 1
        self.closure_counts[parent.qualname] = count
        qualname = f"{parent.qualname}${count}"
        inner = _Scope(
            node.start_byte,
            node.end_byte,
            parent_index,
            qualname,
            "function",
            dict(parent.generics),
            parent.self_type,
            parent.module,
        )
        params: list[Param] = []
        parameters = node.child_by_field_name("parameters")
        for child in parameters.named_children if parameters is not None else ():
            if child.type == "identifier":
                params.append(Param(self.text(child)))
            elif child.type == "parameter":
                params.extend(self._params_of(child, inner))
            else:
                params.append(Param("_"))
        body = node.child_by_field_name("body")
        line, column = node.start_point[0] + 1, node.start_point[1]
        header = short_text(self.source[node.start_byte : body.start_byte if body else node.end_byte], 200)
        self.definitions.append(
            Definition(
                line,
                node.end_point[0] + 1,
                "function",
                qualname.rpartition(".")[2],
                qualname,
                column,
                header.strip(),
                "",
                params=tuple(params),
                returns=self._returns(node.child_by_field_name("return_type"), inner),
                exported=False,
            )
        )
        self.closures[node.start_byte] = qualname
        self.references.append(Reference(line, column, parent.qualname, f"closure:{qualname}"))
        return inner

    def _boxed_closure(self, node: Node) -> str | None:
        """The closure ``Box::new(|| ..)`` (or ``Rc::new``, ``Arc::new``) wraps, if it is one."""
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if function is None or args is None or args.named_child_count != 1:
            return None
        written = self.text(function).replace(" ", "")
        if written.rpartition("::")[0].rpartition("::")[2] not in TRANSPARENT or not written.endswith(
            "::new"
        ):
            return None
        inner = _unparenthesized(args.named_children[0])
        return self.closures.get(inner.start_byte) if inner.type == "closure_expression" else None

    def _returned_closures(self) -> None:
        """What a function's body ends in is what it returns (when the body has no ``return`` of
        its own): the binding ``return`` in the function (a keyword: no name is bound so) to a
        closure (``closure:<q>``, a boxed one too), a struct literal (``type:T``) or a path
        (``name:Circle``, a unit struct); ``Box::new(x)`` returns what ``x`` gives."""
        for qualname, tail, scope in self.tails:
            value = self._value(tail, scope, False)
            if value is not None and value.startswith("name:") and tail.type == "call_expression":
                args = tail.child_by_field_name("arguments")
                function = self.text(tail.child_by_field_name("function")).replace(" ", "")
                boxed = function.rpartition("::")[0].rpartition("::")[2] in TRANSPARENT
                if boxed and function.endswith("::new") and args is not None and args.named_child_count == 1:
                    value = self._value(_unparenthesized(args.named_children[0]), scope, False)
            if value is not None and value.split(":", 1)[0] in ("closure", "type", "name"):
                line = tail.start_point[0] + 1
                self.assignments.append(Assignment(line, qualname, "return", value))

    def _params_of(self, parameter: Node, scope: _Scope) -> tuple[Param, ...]:
        """The Param of one ``parameter`` node (as ``_params`` reads a list of them)."""
        pattern = parameter.child_by_field_name("pattern")
        if pattern is None:
            return ()
        name = self.text(pattern) if pattern.type == "identifier" else "_"
        return (Param(name, self._type(parameter.child_by_field_name("type"), scope)),)

    def _closure_param(self, node: Node, scope: _Scope) -> None:
        pattern = node.child_by_field_name("pattern")
        declared = self._type(node.child_by_field_name("type"), scope)
        if pattern is not None and pattern.type == "identifier" and declared:
            self.assignments.append(
                Assignment(node.start_point[0] + 1, scope.qualname, self.text(pattern), f"type:{declared}")
            )

    def _const(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        declared = self._type(node.child_by_field_name("type"), scope)
        if name and declared:
            self.assignments.append(
                Assignment(node.start_point[0] + 1, scope.qualname, name, f"type:{declared}")
            )


def _returns_early(body: Node) -> bool:
    """Whether a function body has a ``return`` of its own (not one of a closure or an inner fn):
    then what it ends in is not all it returns."""
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "return_expression":
            return True
        if node.type not in ("closure_expression", "function_item"):
            stack.extend(node.named_children)
    return False


def _unparenthesized(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


_new = tuple.__new__
_FAST_PATH = re.compile(rb"(?:[A-Za-z_][A-Za-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)*")
# a callee that is a plain chain of names: read from the bytes, no node asked
_FAST_CALLEE = re.compile(rb"(?:self|[A-Za-z_][A-Za-z0-9_]*)(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)*")
_LITERALS = re.compile(
    rb'b?r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"|b?\'(?:\\[\s\S][^\']{0,8}|[^\'\\])\'|//[^\n]*|/\*[\s\S]*?\*/'
)
_NEWLINE = re.compile(rb"\n")
_TOKEN_CALL = re.compile(
    rb"(?<![\w$:])(\$crate|[A-Za-z_][A-Za-z0-9_]*)((?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(!)?\s*([(\[{])"
)
_TOKEN_ARGUMENT = re.compile(rb"[(\[,]\s*([a-z_][a-z0-9_]*)\s*(?=[,)\]])")
_CHAIN_BEFORE = re.compile(rb"(?:self|[A-Za-z_][A-Za-z0-9_]*)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*")


def _blank_attributes(body: bytes) -> bytes:
    """``#[..]`` and ``#![..]`` blanked (same length): an attribute's tokens are no calls."""
    out = bytearray(body)
    start = body.find(b"#")
    while start >= 0:
        open_at = start + 1 + (body[start + 1 : start + 2] == b"!")
        if body[open_at : open_at + 1] == b"[":
            depth = 0
            end = open_at
            while end < len(body):
                if body[end] == 91:
                    depth += 1
                elif body[end] == 93:
                    depth -= 1
                    if depth == 0:
                        break
                end += 1
            out[start : end + 1] = b" " * (end + 1 - start)
            start = body.find(b"#", end + 1)
        else:
            start = body.find(b"#", start + 1)
    return bytes(out)


def _previous(body: bytes, offset: int) -> bytes:
    """The byte before ``offset``, spaces skipped."""
    k = offset - 1
    while k >= 0 and body[k] in b" \t\r\n":
        k -= 1
    return body[k : k + 1]


def _word_before(body: bytes, offset: int) -> bytes:
    k = offset - 1
    while k >= 0 and body[k] in b" \t\r\n":
        k -= 1
    end = k + 1
    while k >= 0 and (body[k : k + 1].isalnum() or body[k] == 95):
        k -= 1
    return body[k + 1 : end]


def _receiver_before(body: bytes, offset: int) -> str:
    """The chain before the ``.`` in front of ``offset`` (``self.a`` in ``self.a.m(``), or ``<expr>``."""
    k = offset - 1
    while k >= 0 and body[k] in b" \t\r\n":
        k -= 1
    k -= 1  # the dot
    while k >= 0 and body[k] in b" \t\r\n":
        k -= 1
    end = k + 1
    while k >= 0 and (body[k : k + 1].isalnum() or body[k] in b"_."):
        k -= 1
    text = body[k + 1 : end]
    if not text or not _CHAIN_BEFORE.fullmatch(text) or (k >= 0 and body[k] in b"$):]>"):
        return "<expr>"
    return text.decode("ascii")


_SHAPES = {
    "array_type": "slice",
    "tuple_type": "tuple",
    "function_type": "fn",
    "unit_type": "unit",
    "never_type": "never",
    "pointer_type": "ptr",
}


def _import_order(record: Any) -> tuple[Any, ...]:
    """Records in field order, None before any text."""
    return tuple((False, "") if value is None else (True, value) for value in record)
