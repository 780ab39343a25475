"""Java extractor: one tree-sitter query, types and members sorted by byte offset, scopes by a stack.

What the records mean for Java (the linker, ``languages/java/link/linker.py``, reads them so):

- **Qualified names**: a nested type is ``Outer.Inner``, a method ``Outer.run``, a constructor
  ``Outer.<init>`` (overloads share one name), a local class ``Outer.run.Local``. Kinds: class,
  interface, enum, record, annotation, method, constructor, function (a lambda). The body of an
  anonymous class (and of an enum constant) is part of the method around it: its calls are that
  method's. A lambda in a method is a definition of kind function (not exported) named after the
  method and its position among the method's lambdas, ``Outer.run$1``, ``Outer.run$1$1`` (javac
  names it ``lambda$run$0``; a method whose own name is ``run$1`` would share the key): its calls
  and parameters are its own, and the method has a Reference ``lambda:<qualname>`` to it.
  Code in a field initializer or an initializer block belongs to the class.
- **Types** are written as the source does (``List``, ``Map.Entry``, ``java.util.List``), type
  arguments dropped; a type parameter is its first bound (``T extends Shape`` is ``Shape``; an
  unbounded one is ``Object``); arrays, primitives and ``var`` are no type.
- ``Definition.bases``: a class's superclass, then ``implements:I`` per interface; an interface's
  superinterfaces. ``returns``: a method's return type. ``decorators``: the annotations as written
  (``Test``, ``org.junit.jupiter.api.Test``), then markers that are Java keywords, so no annotation
  can be one: ``abstract`` (a method with no body, or an abstract class), ``static``, and
  ``static main`` for ``public static void main(String[])``. ``exported``: public or protected, or
  a member of an interface.
- Imports: ``package a.b;`` is ``Import(kind="package", module="a.b")``; ``import a.b.C`` is
  ``(module="a.b", name="C", kind="import")``, ``a.b.*`` is ``star``; ``import static a.B.m`` is
  ``(module="a.B", name="m", kind="static")``.
- Assignments: a field is ``(scope=Class, target="this.name", value="type:T")`` (enum constants
  and record components too); a local, a loop, catch or resource variable, a pattern binding or a
  typed lambda parameter is ``type:T``; a ``var`` takes its initializer: ``type:T`` for ``new T()``
  or a cast, else ``name:<chain>``. A declared local whose initializer is a lambda, a method
  reference or ``new T()`` also binds ``holds:lambda:<qualname>`` / ``holds:ref:Owner::m`` /
  ``holds:type:T`` on the same line: what flows into its declared type; ``x = ..`` of a plain
  name binds ``reassigned:`` (the holds are then not all it holds). Each ``return`` of a value binds
  ``return`` (a keyword: no local has that name) in the method: ``lambda:<q>``, ``ref:Owner::m``,
  or ``other:`` for any other value (``null`` gives nothing).
- Calls: ``recv.m()`` has the receiver chain, whose segments are names, ``name()`` for a call
  result, ``(T)`` for an instance of ``T`` (``new T()``, a cast, a literal); ``super.m()`` and
  ``I.super.m()`` are ``super_call``. ``new T()`` is a call with ``new`` and callee ``T``;
  ``this(..)`` and ``super(..)`` in a constructor have callee ``this``/``super`` and name ``<init>``.
- References: method references as written (``Foo::bar``, ``this::run``, ``Foo::new``).
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
    FileIndex,
    Import,
    Param,
    Reference,
)
from projectgraph.languages.base import folder_matches, short_text

_KINDS = (
    "def.class",
    "def.interface",
    "def.enum",
    "def.record",
    "def.annotation",
    "def.method",
    "def.constructor",
    "call",
    "new",
    "ctor",
    "ref.method",
    "package",
    "import",
    "field",
    "enum.constant",
    "local",
    "for",
    "catch",
    "resource",
    "instanceof",
    "lambda.param",
    "def.lambda",
    "return",
    "reassign",
    "error",
)
_TYPES = {
    "def.class": "class",
    "def.interface": "interface",
    "def.enum": "enum",
    "def.record": "record",
    "def.annotation": "annotation",
}
_ANONYMOUS_BODY_PARENTS = frozenset(("object_creation_expression", "enum_constant"))
_CHAIN_MAX = 240
_SIGNATURE_MAX = 200


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed Java file."""
    return _Extractor(source).run(tree.root_node, path, file_hash)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


class _Scope:
    """One scope entry: a type or a method/constructor."""

    __slots__ = ("end", "generics", "interface", "kind", "parent", "qualname", "start")

    def __init__(
        self,
        start: int,
        end: int,
        parent: int,
        qualname: str,
        kind: str,
        generics: dict[str, str | None],
        interface: bool = False,
    ) -> None:
        self.start = start
        self.end = end
        self.parent = parent
        self.qualname = qualname
        self.kind = kind  # type | method
        self.generics = generics
        self.interface = interface  # a type whose members are public (an interface, an annotation)


_Captures = dict[str, list[Node]]


class _Extractor:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.imports: list[Import] = []
        self.definitions: list[Definition] = []
        self.calls: list[Call] = []
        self.references: list[Reference] = []
        self.assignments: list[Assignment] = []
        self.scopes: list[_Scope] = [_Scope(-1, 1 << 62, 0, "", "file", {})]
        self.starts: list[int] = [-1]
        self.lambdas: dict[int, str] = {}  # a lambda's start byte -> its qualname
        self.lambda_counts: dict[str, int] = {}

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def entry(self, start: int) -> _Scope:
        j = bisect_right(self.starts, start) - 1
        scopes = self.scopes
        while scopes[j].end <= start and j:
            j = scopes[j].parent
        return scopes[j]

    # main loop -------------------------------------------------------------------------------
    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        groups = folder_matches(__file__, "java", _KINDS, root)
        self._members(groups)
        handlers = (
            ("call", self._call),
            ("new", self._new),
            ("ctor", self._ctor),
            ("ref.method", self._method_reference),
            ("package", self._package),
            ("import", self._import),
            ("field", self._field),
            ("enum.constant", self._enum_constant),
            ("local", self._local),
            ("for", self._for),
            ("catch", self._catch),
            ("resource", self._resource),
            ("instanceof", self._instanceof),
            ("lambda.param", self._lambda_param),
            ("return", self._return),
            ("reassign", self._reassign),
        )
        for kind, handler in handlers:
            for captures in groups[kind]:
                node = captures[kind][0]
                handler(node, self.entry(node.start_byte))
        errors = len(groups["error"])
        return FileIndex(
            path=path,
            language="java",
            hash=file_hash,
            imports=tuple(sorted(set(self.imports), key=_import_order)),
            definitions=tuple(sorted(self.definitions)),
            calls=tuple(sorted(set(self.calls))),
            references=tuple(sorted(set(self.references))),
            assignments=tuple(sorted(set(self.assignments))),
            syntax_errors=errors,
            flags=("syntax-error",) if errors else (),
        )

    # types and members -----------------------------------------------------------------------
    def _members(self, groups: dict[str, list[_Captures]]) -> None:
        events: list[tuple[int, int, str, Node]] = []
        for kind in (*_TYPES, "def.method", "def.constructor", "def.lambda"):
            for captures in groups[kind]:
                node = captures[kind][0]
                events.append((node.start_byte, -node.end_byte, kind, node))
        events.sort(key=lambda e: (e[0], e[1]))
        stack = [0]
        for start, _neg_end, kind, node in events:
            while self.scopes[stack[-1]].end <= start:
                stack.pop()
            parent_index = stack[-1]
            made = self._member(kind, node, self.scopes[parent_index], parent_index)
            if made is not None:
                self.scopes.append(made)
                self.starts.append(made.start)
                stack.append(len(self.scopes) - 1)

    def _member(self, kind: str, node: Node, parent: _Scope, parent_index: int) -> _Scope | None:
        if kind == "def.lambda":
            return self._lambda(node, parent, parent_index)
        body_parent = node.parent.parent if node.parent is not None else None
        if kind in ("def.method", "def.constructor") and (
            body_parent is not None and body_parent.type in _ANONYMOUS_BODY_PARENTS
        ):
            # a member of an anonymous class: its code is the enclosing method's, and so are the
            # types of its parameters
            line = node.start_point[0] + 1
            for param in self._params(node.child_by_field_name("parameters"), parent.generics):
                if param.type:
                    self.assignments.append(
                        Assignment(line, parent.qualname, param.name, f"type:{param.type}")
                    )
            return None
        if (
            kind in _TYPES
            and parent.kind == "method"
            and body_parent is not None
            and (body_parent.type in _ANONYMOUS_BODY_PARENTS)
        ):
            return None
        if parent.kind == "file" and parent.qualname == "" and kind in ("def.method", "def.constructor"):
            return None  # a member outside any type (a broken file)
        name = "<init>" if kind == "def.constructor" else self.text(node.child_by_field_name("name"))
        if not name:
            return None
        qualname = _join(parent.qualname, name)
        generics = dict(parent.generics)
        self._generics(node.child_by_field_name("type_parameters"), generics)
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        words, annotations = self._modifiers(modifiers)
        line, column = node.start_point[0] + 1, node.start_point[1]
        end_line = node.end_point[0] + 1
        body = node.child_by_field_name("body")
        exported = "public" in words or "protected" in words or parent.interface
        doc = self._doc(node)
        signature = self._signature(node, body)
        decorators = list(annotations)
        if kind in _TYPES:
            type_kind = _TYPES[kind]
            if "abstract" in words:
                decorators.append("abstract")
            if "static" in words:
                decorators.append("static")
            bases = self._bases(node, kind, generics)
            params: tuple[Param, ...] = ()
            if kind == "def.record":
                params = self._params(node.child_by_field_name("parameters"), generics)
                for param in params:
                    if param.type:
                        self.assignments.append(
                            Assignment(line, qualname, f"this.{param.name}", f"type:{param.type}")
                        )
            self.definitions.append(
                Definition(line, end_line, type_kind, name, qualname, column, signature, doc, bases,
                           tuple(decorators), params, (), exported)
            )  # fmt: skip
            interface = kind in ("def.interface", "def.annotation")
            return _Scope(node.start_byte, node.end_byte, parent_index, qualname, "type", generics, interface)
        # a method or a constructor
        params = self._params(node.child_by_field_name("parameters"), generics)
        returns: tuple[str, ...] = ()
        if kind == "def.method":
            declared = self._type(node.child_by_field_name("type"), generics)
            returns = (declared,) if declared else ()
            no_body = body is None
            if no_body and "native" not in words and "default" not in words:
                decorators.append("abstract")
            if "static" in words:
                decorators.append("static")
                if (
                    name == "main"
                    and "public" in words
                    and self.text(node.child_by_field_name("type")) == "void"
                    and self._string_array_parameter(node.child_by_field_name("parameters"))
                ):
                    decorators.append("static main")
        self.definitions.append(
            Definition(line, end_line, "method" if kind == "def.method" else "constructor", name, qualname,
                       column, signature, doc, (), tuple(decorators), params, returns, exported)
        )  # fmt: skip
        return _Scope(node.start_byte, node.end_byte, parent_index, qualname, "method", generics)

    def _lambda(self, node: Node, parent: _Scope, parent_index: int) -> _Scope | None:
        """A lambda in a method or constructor: a definition of kind function named after the
        method and its position among the method's lambdas (``Main.run$1``, ``Main.run$1$1``), the
        scope of its own calls and parameters; the method refers to it (a Reference
        ``lambda:<qualname>``: whoever gets it may call it). A lambda in a field initializer stays
        part of the class."""
        if parent.kind != "method":
            return None
        count = self.lambda_counts.get(parent.qualname, 0) + 1
        self.lambda_counts[parent.qualname] = count
        qualname = f"{parent.qualname}${count}"
        parameters = node.child_by_field_name("parameters")
        params: tuple[Param, ...] = ()
        if parameters is not None and parameters.type == "identifier":
            params = (Param(self.text(parameters)),)
        elif parameters is not None and parameters.type == "formal_parameters":
            params = self._params(parameters, parent.generics)
        elif parameters is not None:  # inferred parameters `(a, b)`
            params = tuple(Param(self.text(c)) for c in parameters.named_children if c.type == "identifier")
        body = node.child_by_field_name("body")
        line, column = node.start_point[0] + 1, node.start_point[1]
        header = short_text(self.source[node.start_byte : body.start_byte if body else node.end_byte], 200)
        self.definitions.append(
            Definition(line, node.end_point[0] + 1, "function", qualname.rpartition(".")[2], qualname, column,
                       header.strip(), "", (), (), params, (), False)
        )  # fmt: skip
        self.lambdas[node.start_byte] = qualname
        self.references.append(Reference(line, column, parent.qualname, f"lambda:{qualname}"))
        return _Scope(node.start_byte, node.end_byte, parent_index, qualname, "method", dict(parent.generics))

    def _modifiers(self, modifiers: Node | None) -> tuple[set[str], list[str]]:
        words: set[str] = set()
        annotations: list[str] = []
        if modifiers is None:
            return words, annotations
        for child in modifiers.children:
            if child.type in ("marker_annotation", "annotation"):
                name = child.child_by_field_name("name")
                if name is not None:
                    annotations.append(self.text(name))
            elif not child.is_named or child.type in ("public", "static", "abstract", "default"):
                words.add(self.text(child))
        return words, annotations

    def _string_array_parameter(self, parameters: Node | None) -> bool:
        if parameters is None or parameters.named_child_count != 1:
            return False
        param = parameters.named_children[0]
        text = "".join(self.text(param).split())
        return bool(re.fullmatch(r"(final)?(java\.lang\.)?String(\[\]\w+|\.\.\.\w+|\w+\[\])", text))

    def _doc(self, node: Node) -> str:
        sibling = node.prev_sibling
        if sibling is None or sibling.type != "block_comment":
            modifiers = next((c for c in node.children if c.type == "modifiers"), None)
            sibling = None
            if modifiers is not None and modifiers.children and modifiers.children[0].type == "block_comment":
                sibling = modifiers.children[0]
        if sibling is None:
            return ""
        text = self.text(sibling)
        if not text.startswith("/**"):
            return ""
        for raw in text[3:].splitlines():
            line = raw.strip().lstrip("*").strip().removesuffix("*/").strip()
            if line and not line.startswith("@"):
                return line[:200]
        return ""

    def _signature(self, node: Node, body: Node | None) -> str:
        end = body.start_byte if body is not None else node.end_byte
        raw = self.source[node.start_byte : min(end, node.start_byte + _SIGNATURE_MAX * 4)]
        text = " ".join(raw.decode("utf-8", "replace").split()).rstrip(" {;")
        return text if len(text) <= _SIGNATURE_MAX else text[: _SIGNATURE_MAX - 1] + "…"

    def _generics(self, node: Node | None, generics: dict[str, str | None]) -> None:
        if node is None:
            return
        for child in node.named_children:
            if child.type != "type_parameter":
                continue
            name_node = next(
                (c for c in child.named_children if c.type in ("type_identifier", "identifier")), None
            )
            name = self.text(name_node)
            if not name:
                continue
            generics[name] = "Object"  # an unbounded parameter has Object's methods only
            bound = next((c for c in child.named_children if c.type == "type_bound"), None)
            if bound is not None and bound.named_children:
                generics[name] = self._type(bound.named_children[0], generics)

    def _bases(self, node: Node, kind: str, generics: dict[str, str | None]) -> tuple[str, ...]:
        bases: list[str] = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None and superclass.named_children:
            written = self._type(superclass.named_children[0], generics)
            if written:
                bases.append(written)
        interfaces = node.child_by_field_name("interfaces")
        if interfaces is None:
            interfaces = next((c for c in node.named_children if c.type == "extends_interfaces"), None)
        if interfaces is not None:
            listing = next((c for c in interfaces.named_children if c.type == "type_list"), interfaces)
            prefix = "" if kind == "def.interface" else "implements:"
            for child in listing.named_children:
                written = self._type(child, generics)
                if written:
                    bases.append(prefix + written)
        return tuple(bases)

    def _type(self, node: Node | None, generics: dict[str, str | None]) -> str | None:
        """A type as written, type arguments dropped; a type parameter as its bound."""
        if node is None:
            return None
        kind = node.type
        if kind == "type_identifier" or kind == "identifier":
            name = self.text(node)
            if name in generics:
                return generics[name]
            return None if name == "var" else name
        if kind == "scoped_type_identifier" or kind == "scoped_identifier":
            parts = []
            for child in node.named_children:
                if child.type in ("type_identifier", "identifier"):
                    parts.append(self.text(child))
                elif child.type in ("scoped_type_identifier", "generic_type", "scoped_identifier"):
                    inner = self._type(child, {})
                    if inner is None:
                        return None
                    parts.append(inner)
            return ".".join(parts) or None
        if kind == "generic_type":
            head = node.named_children[0] if node.named_children else None
            return self._type(head, generics)
        if kind == "annotated_type":
            annotated = next(
                (c for c in node.named_children if c.type not in ("marker_annotation", "annotation")), None
            )
            return self._type(annotated, generics)
        return None

    def _params(self, node: Node | None, generics: dict[str, str | None]) -> tuple[Param, ...]:
        if node is None:
            return ()
        params = []
        for child in node.named_children:
            if child.type == "formal_parameter":
                name = self.text(child.child_by_field_name("name"))
                array = child.child_by_field_name("dimensions") is not None
                declared = None if array else self._type(child.child_by_field_name("type"), generics)
                params.append(Param(name, declared))
            elif child.type == "spread_parameter":
                declarator = next((c for c in child.named_children if c.type == "variable_declarator"), None)
                name = self.text(declarator.child_by_field_name("name")) if declarator is not None else ""
                params.append(Param(name, None, variadic="..."))
        return tuple(params)

    # calls -----------------------------------------------------------------------------------
    def chain(self, node: Node | None, depth: int = 0) -> str | None:
        """An expression as a receiver chain (``a.b().c``, ``(T)`` for an instance of T), or None."""
        if node is None or depth > 40:
            return None
        kind = node.type
        if kind in ("identifier", "this", "super"):
            return self.text(node)
        if kind == "field_access":
            obj = self.chain(node.child_by_field_name("object"), depth + 1)
            field = node.child_by_field_name("field")
            if obj is None or field is None:
                return None
            return f"{obj}.{self.text(field)}"
        if kind == "method_invocation":
            name = self.text(node.child_by_field_name("name"))
            obj_node = node.child_by_field_name("object")
            if obj_node is None:
                return f"{name}()"
            obj = self.chain(obj_node, depth + 1)
            if obj is None:
                return None
            if _qualified_super(node, obj_node):
                obj = f"{obj}.super"
            return f"{obj}.{name}()"
        if kind == "object_creation_expression":
            declared = self._type(node.child_by_field_name("type"), {})
            return f"({declared})" if declared else None
        if kind == "cast_expression":
            declared = self._type(node.child_by_field_name("type"), {})
            return f"({declared})" if declared else None
        if kind == "parenthesized_expression":
            return self.chain(node.named_children[0] if node.named_children else None, depth + 1)
        if kind == "string_literal":
            return "(String)"
        if kind == "class_literal":
            return "(Class)"
        return None

    def _call_text(self, node: Node) -> str:
        start = node.start_byte
        raw = self.source[start : min(node.end_byte, start + CALL_TEXT_MAX * 4)]
        if len(raw) <= CALL_TEXT_MAX and raw.isascii() and b"  " not in raw:
            text = raw.decode("ascii")
            if text.isprintable():
                return text
        return short_text(raw, CALL_TEXT_MAX)

    def _count(self, args: Node | None) -> int:
        return args.named_child_count if args is not None else 0

    def _call(self, node: Node, scope: _Scope) -> None:
        args = node.child_by_field_name("arguments")
        receiver: str | None = None
        super_call = False
        head = self.source[node.start_byte : args.start_byte] if args is not None else b""
        if _FAST_CALLEE.fullmatch(head) and b"super" not in head:  # `a.b.m`, `m`: no node asked
            callee = head.decode("ascii")
            receiver, _, name = callee.rpartition(".")
            receiver = receiver or None
        else:
            name = self.text(node.child_by_field_name("name"))
            obj = node.child_by_field_name("object")
            if obj is not None:
                receiver = self.chain(obj)
                if _qualified_super(node, obj):  # I.super.m()
                    receiver = f"{receiver}.super" if receiver else "super"
                if receiver is None or len(receiver) > _CHAIN_MAX:
                    receiver = "<expr>"
                super_call = receiver == "super" or receiver.endswith(".super")
            callee = f"{receiver}.{name}" if receiver else name
        line, column = node.start_point
        self.calls.append(
            _new(Call, (line + 1, column, scope.qualname, callee, name, receiver, self._count(args),
                        self._call_text(node), False, super_call))
        )  # fmt: skip

    def _new(self, node: Node, scope: _Scope) -> None:
        declared = self._type(node.child_by_field_name("type"), scope.generics)
        if not declared:
            return
        line, column = node.start_point
        self.calls.append(
            Call(line + 1, column, scope.qualname, declared, declared.rsplit(".", 1)[-1], None,
                 self._count(node.child_by_field_name("arguments")), self._call_text(node), True)
        )  # fmt: skip

    def _ctor(self, node: Node, scope: _Scope) -> None:
        target = node.child_by_field_name("constructor")
        word = self.text(target)
        if word not in ("this", "super"):
            return
        line, column = node.start_point
        self.calls.append(
            Call(line + 1, column, scope.qualname, word, "<init>", None,
                 self._count(node.child_by_field_name("arguments")), self._call_text(node), False,
                 word == "super")
        )  # fmt: skip

    def _method_reference(self, node: Node, scope: _Scope) -> None:
        written = self._method_reference_text(node, scope)
        if written:
            line, column = node.start_point
            self.references.append(Reference(line + 1, column, scope.qualname, written))

    def _method_reference_text(self, node: Node, scope: _Scope) -> str | None:
        """``Owner::member`` as the records write a method reference (``Foo::new``), or None."""
        named = node.named_children
        if not named:
            return None
        head = named[0]
        if head.type in ("type_identifier", "scoped_type_identifier", "generic_type"):
            owner = self._type(head, scope.generics)
        else:
            owner = self.chain(head)
        if not owner:
            return None
        member = self.text(named[1]) if len(named) > 1 and named[1].type == "identifier" else "new"
        return f"{owner}::{member}"

    # imports ---------------------------------------------------------------------------------
    def _package(self, node: Node, scope: _Scope) -> None:
        name = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        if name is not None:
            self.imports.append(Import(line=node.start_point[0] + 1, module=self.text(name), kind="package"))

    def _import(self, node: Node, scope: _Scope) -> None:
        text = "".join(self.text(node).split())
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text).removeprefix("import").rstrip(";")
        static = text.startswith("static") and not text.startswith("static.")
        if static:
            text = text.removeprefix("static")
        line = node.start_point[0] + 1
        kind = "static" if static else "import"
        if text.endswith(".*"):
            self.imports.append(Import(line=line, module=text[:-2], star=True, kind=kind))
            return
        module, _, name = text.rpartition(".")
        if name:
            self.imports.append(Import(line=line, module=module, name=name, kind=kind))

    # declared types --------------------------------------------------------------------------
    def _declarators(self, node: Node) -> list[Node]:
        return [c for c in node.named_children if c.type == "variable_declarator"]

    def _field(self, node: Node, scope: _Scope) -> None:
        if scope.kind != "type":
            return  # a field of an anonymous class: nothing linking reads
        declared = self._type(node.child_by_field_name("type"), scope.generics)
        if not declared:
            return
        for declarator in self._declarators(node):
            if declarator.child_by_field_name("dimensions") is not None:
                continue
            name = self.text(declarator.child_by_field_name("name"))
            self.assignments.append(
                Assignment(declarator.start_point[0] + 1, scope.qualname, f"this.{name}", f"type:{declared}")
            )

    def _enum_constant(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name and scope.kind == "type":
            enum = scope.qualname.rsplit(".", 1)[-1]
            self.assignments.append(
                Assignment(node.start_point[0] + 1, scope.qualname, f"this.{name}", f"type:{enum}")
            )

    def _local(self, node: Node, scope: _Scope) -> None:
        declared = self._type(node.child_by_field_name("type"), scope.generics)
        for declarator in self._declarators(node):
            if declarator.child_by_field_name("dimensions") is not None:
                continue
            name = self.text(declarator.child_by_field_name("name"))
            self._bind(
                declarator.start_point[0] + 1, scope, name, declared, declarator.child_by_field_name("value")
            )

    def _bind(self, line: int, scope: _Scope, name: str, declared: str | None, value: Node | None) -> None:
        if not name:
            return
        if declared:
            self.assignments.append(Assignment(line, scope.qualname, name, f"type:{declared}"))
            held = self._function_value(value, scope)
            if held is not None:  # `Runnable r = () -> ..`, `= this::work`: what the interface holds
                self.assignments.append(Assignment(line, scope.qualname, name, f"holds:{held}"))
            return
        chain = self.chain(value) if value is not None else None
        if chain is None or len(chain) > _CHAIN_MAX:
            return
        if chain.startswith("(") and chain.endswith(")") and chain.count("(") == 1:
            self.assignments.append(Assignment(line, scope.qualname, name, f"type:{chain[1:-1]}"))
        else:
            self.assignments.append(Assignment(line, scope.qualname, name, f"name:{chain}"))

    def _return(self, node: Node, scope: _Scope) -> None:
        """``return () -> ..`` / ``return this::m``: the binding ``return`` of the method (a
        keyword: no name is bound so) to the function it hands out; ``other:`` for a value of
        another kind (``null`` gives nothing), so the returns are all known or not."""
        value = next(
            (c for c in node.named_children if c.type not in ("line_comment", "block_comment")), None
        )
        if scope.kind != "method" or value is None or value.type == "null_literal":
            return
        held = self._function_value(value, scope)
        if held is None or held.startswith("type:"):
            held = "other:"
        self.assignments.append(Assignment(node.start_point[0] + 1, scope.qualname, "return", held))

    def _reassign(self, node: Node, scope: _Scope) -> None:
        """``x = ..`` of a plain name: ``reassigned:`` (what its declaration holds is not all)."""
        name = self.text(node.child_by_field_name("left"))
        if name:
            self.assignments.append(Assignment(node.start_point[0] + 1, scope.qualname, name, "reassigned:"))

    def _function_value(self, value: Node | None, scope: _Scope) -> str | None:
        """A lambda (``lambda:<qualname>``), a method reference (``ref:Owner::m``) or a new object
        of a named class (``type:T``), or None."""
        while value is not None and value.type == "parenthesized_expression" and value.named_child_count == 1:
            value = value.named_children[0]
        if value is None:
            return None
        if value.type == "lambda_expression":
            named = self.lambdas.get(value.start_byte)
            return f"lambda:{named}" if named else None
        if value.type == "method_reference":
            written = self._method_reference_text(value, scope)
            return f"ref:{written}" if written else None
        if value.type == "object_creation_expression":  # `Shape s = new Circle()`: a Circle flows in
            made = self._type(value.child_by_field_name("type"), scope.generics)
            return f"type:{made}" if made and value.child_by_field_name("body") is None else None
        return None

    def _for(self, node: Node, scope: _Scope) -> None:
        declared = self._type(node.child_by_field_name("type"), scope.generics)
        name = self.text(node.child_by_field_name("name"))
        if declared and node.child_by_field_name("dimensions") is None:
            self._bind(node.start_point[0] + 1, scope, name, declared, None)

    def _catch(self, node: Node, scope: _Scope) -> None:
        types = next((c for c in node.named_children if c.type == "catch_type"), None)
        name = self.text(node.child_by_field_name("name"))
        if types is not None and types.named_children:
            self._bind(
                node.start_point[0] + 1,
                scope,
                name,
                self._type(types.named_children[0], scope.generics),
                None,
            )

    def _resource(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            declared = self._type(node.child_by_field_name("type"), scope.generics)
            self._bind(node.start_point[0] + 1, scope, name, declared, node.child_by_field_name("value"))

    def _instanceof(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        declared = self._type(node.child_by_field_name("right"), scope.generics)
        if name and declared:
            self._bind(node.start_point[0] + 1, scope, name, declared, None)

    def _lambda_param(self, node: Node, scope: _Scope) -> None:
        name = self.text(node.child_by_field_name("name"))
        declared = self._type(node.child_by_field_name("type"), scope.generics)
        if name and declared:
            self._bind(node.start_point[0] + 1, scope, name, declared, None)


_new = tuple.__new__
_FAST_CALLEE = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")


def _qualified_super(invocation: Node, obj: Node) -> bool:
    """``I.super.m()``: a ``super`` child beside the object ``I``."""
    return any(c.type == "super" and c.start_byte != obj.start_byte for c in invocation.children)


def _import_order(record: Any) -> tuple[Any, ...]:
    """Records in field order, None before any text."""
    return tuple((False, "") if value is None else (True, value) for value in record)
