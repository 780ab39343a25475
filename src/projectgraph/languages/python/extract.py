"""Python extractor: one tree-sitter query, captures sorted by byte offset, scopes from a stack.

Scope rule: a call's scope is the nearest enclosing *function*; class bodies are transparent, since
a class body runs when the code around it runs (at import for a top-level class). Decorators and
default values run in the enclosing scope too, which falls out of the byte order: they precede the
function node's body.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node, QueryCursor

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
from projectgraph.languages.base import compiled_query, short_text

_DYNAMIC_CALLS = {"eval": "eval", "exec": "exec", "__import__": "__import__"}


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed Python file."""
    return _Extractor(source).run(tree.root_node, path, file_hash)


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def _dotted(node: Node | None) -> str | None:
    """Text of a name chain (`a.b.c`, with `()` for a call link), or None for other expressions."""
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return _text(node)
    if kind == "attribute":
        obj = _dotted(node.child_by_field_name("object"))
        attr = node.child_by_field_name("attribute")
        if obj is None or attr is None:
            return None
        return f"{obj}.{_text(attr)}"
    if kind == "call":
        fn = _dotted(node.child_by_field_name("function"))
        return None if fn is None else f"{fn}()"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(node.named_children[0])
    return None


def _string_value(node: Node) -> str | None:
    """The value of a plain string literal, or None when it is computed (f-string, concat)."""
    if node.type != "string":
        return None
    parts = []
    for child in node.named_children:
        if child.type == "interpolation":
            return None
        if child.type == "string_content":
            parts.append(_text(child))
    return "".join(parts)


def _static_prefix(node: Node) -> str | None:
    """A static prefix of a computed string: `"pkg." + x` or `f"pkg.{x}"`."""
    if node.type == "binary_operator":
        left = node.child_by_field_name("left")
        if left is not None:
            value = _string_value(left)
            return value if value is not None else _static_prefix(left)
    if node.type == "string":
        parts = []
        for child in node.named_children:
            if child.type == "interpolation":
                return "".join(parts) or None
            if child.type == "string_content":
                parts.append(_text(child))
    return None


def _first_doc_line(body: Node | None) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count == 1:
        first = first.named_children[0]
    value = _string_value(first)
    if not value:
        return ""
    for line in value.strip().splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def _type_name(node: Node | None) -> str | None:
    """A type annotation as a dotted name, unwrapping `Optional[X]`, `X | None` and string forms."""
    if node is None:
        return None
    if node.type == "type" and node.named_child_count == 1:
        return _type_name(node.named_children[0])
    if node.type == "string":
        value = _string_value(node)
        return value.strip() if value and value.replace(".", "").replace("_", "").isalnum() else None
    if node.type == "binary_operator":  # X | None
        for side in ("left", "right"):
            part = node.child_by_field_name(side)
            name = _type_name(part)
            if name and name != "None":
                return name
        return None
    if node.type in ("generic_type", "subscript"):
        head = node.named_children[0] if node.named_children else None
        head_name = _dotted(head) if head is not None else None
        if head_name in ("Optional", "typing.Optional") and node.named_child_count > 1:
            inner = node.named_children[1]
            if inner.type == "type_parameter" and inner.named_child_count:
                inner = inner.named_children[0]
            return _type_name(inner)
        return head_name
    return _dotted(node)


class _Extractor:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.definitions: list[Definition] = []
        self.calls: list[Call] = []
        self.references: list[Reference] = []
        self.assignments: list[Assignment] = []
        self.dynamic: list[DynamicFlag] = []
        self.returns: dict[int, list[str]] = {}
        self.main_guard = False
        self.errors = 0
        # (end_byte, qualname, is_function, line of the definition)
        self.stack: list[tuple[int, str, bool, int]] = []

    # scope helpers -------------------------------------------------------------------------
    def _enter(self, node: Node) -> None:
        start = node.start_byte
        while self.stack and self.stack[-1][0] <= start:
            self.stack.pop()

    def _container(self) -> str:
        return self.stack[-1][1] if self.stack else ""

    def _scope(self) -> str:
        for _end, qualname, is_function, _line in reversed(self.stack):
            if is_function:
                return qualname
        return ""

    def _function_line(self) -> int | None:
        for _end, _qualname, is_function, line in reversed(self.stack):
            if is_function:
                return line
        return None

    def _in_class_body(self) -> bool:
        return bool(self.stack) and not self.stack[-1][2]

    # main loop -------------------------------------------------------------------------------
    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        cursor = QueryCursor(compiled_query("python", __file__))
        items: list[tuple[int, int, str, Node]] = []
        for name, nodes in cursor.captures(root).items():
            for node in nodes:
                # outer nodes first at one offset: longer spans sort first
                items.append((node.start_byte, -node.end_byte, name, node))
        items.sort(key=lambda item: (item[0], item[1], _ORDER.get(item[2], 9)))
        handlers = {
            "def.function": self._function,
            "def.class": self._class,
            "call": self._call,
            "decorator.name": self._decorator,
            "import": self._import,
            "import.from": self._import_from,
            "assign": self._assign,
            "guard": self._guard,
            "ref": self._ref,
            "return": self._return,
            "error": self._error,
        }
        for _start, _neg_end, name, node in items:
            handler = handlers.get(name)
            if handler is None:
                continue
            self._enter(node)
            handler(node)
        definitions = [
            d if d.line not in self.returns or d.kind == "class" else _with_returns(d, self.returns[d.line])
            for d in self.definitions
        ]
        flags = ("syntax-error",) if self.errors else ()
        return FileIndex(
            path=path,
            language="python",
            hash=file_hash,
            imports=tuple(sorted(self.imports)),
            exports=tuple(sorted(set(self.exports))),
            definitions=tuple(sorted(definitions)),
            calls=tuple(sorted(set(self.calls))),
            references=tuple(sorted(set(self.references))),
            assignments=tuple(sorted(set(self.assignments))),
            dynamic=tuple(sorted(set(self.dynamic))),
            main_guard=self.main_guard,
            syntax_errors=self.errors,
            flags=flags,
        )

    # definitions -----------------------------------------------------------------------------
    def _decorators(self, node: Node) -> tuple[str, ...]:
        parent = node.parent
        if parent is None or parent.type != "decorated_definition":
            return ()
        names = []
        for child in parent.named_children:
            if child.type == "decorator" and child.named_child_count:
                expr = child.named_children[0]
                text = _dotted(expr.child_by_field_name("function") if expr.type == "call" else expr)
                names.append(text or "<expr>")
        return tuple(names)

    def _qualify(self, name: str) -> str:
        container = self._container()
        return f"{container}.{name}" if container else name

    def _function(self, node: Node) -> None:
        name = _text(node.child_by_field_name("name"))
        in_class = self._in_class_body()
        qualname = self._qualify(name)
        params = self._params(node.child_by_field_name("parameters"))
        return_type = _type_name(node.child_by_field_name("return_type"))
        body = node.child_by_field_name("body")
        header_end = body.start_byte if body is not None else node.end_byte
        header_start = node.start_byte
        signature = " ".join(
            self.source[header_start:header_end].decode("utf-8", "replace").split()
        ).rstrip(":")
        kind = "function"
        if in_class:
            kind = "constructor" if name == "__init__" else "method"
        is_async = any(child.type == "async" for child in node.children[:2])
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind=kind,
                name=name,
                qualname=qualname,
                column=node.start_point[1],
                signature=signature[:200],
                doc=_first_doc_line(body),
                decorators=self._decorators(node),
                params=params,
                returns=(return_type,) if return_type else (),
                exported=not name.startswith("_") or name.startswith("__") and name.endswith("__"),
                is_async=is_async,
            )
        )
        self.stack.append((node.end_byte, qualname, True, node.start_point[0] + 1))

    def _params(self, node: Node | None) -> tuple[Param, ...]:
        if node is None:
            return ()
        params = []
        for child in node.named_children:
            kind = child.type
            if kind == "identifier":
                params.append(Param(_text(child)))
            elif kind == "typed_parameter":
                inner = child.named_children[0] if child.named_children else None
                variadic = ""
                if inner is not None and inner.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                    variadic = "*" if inner.type == "list_splat_pattern" else "**"
                    inner = inner.named_children[0] if inner.named_children else None
                params.append(
                    Param(_text(inner), _type_name(child.child_by_field_name("type")), variadic=variadic)
                )
            elif kind in ("default_parameter", "typed_default_parameter"):
                params.append(
                    Param(
                        _text(child.child_by_field_name("name")),
                        _type_name(child.child_by_field_name("type")),
                        default=True,
                    )
                )
            elif kind in ("list_splat_pattern", "dictionary_splat_pattern"):
                inner = child.named_children[0] if child.named_children else None
                params.append(Param(_text(inner), variadic="*" if kind == "list_splat_pattern" else "**"))
        return tuple(params)

    def _class(self, node: Node) -> None:
        name = _text(node.child_by_field_name("name"))
        qualname = self._qualify(name)
        bases: list[str] = []
        supers = node.child_by_field_name("superclasses")
        if supers is not None:
            for child in supers.named_children:
                if child.type == "keyword_argument":
                    continue
                base = _dotted(child)
                if base is None and child.type in ("subscript", "generic_type") and child.named_children:
                    base = _dotted(child.named_children[0])
                if base is not None:
                    bases.append(base)
        body = node.child_by_field_name("body")
        header_end = body.start_byte if body is not None else node.end_byte
        signature = " ".join(
            self.source[node.start_byte : header_end].decode("utf-8", "replace").split()
        ).rstrip(":")
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind="class",
                name=name,
                qualname=qualname,
                column=node.start_point[1],
                signature=signature[:200],
                doc=_first_doc_line(body),
                bases=tuple(bases),
                decorators=self._decorators(node),
                exported=not name.startswith("_"),
            )
        )
        self.stack.append((node.end_byte, qualname, False, node.start_point[0] + 1))

    # calls -----------------------------------------------------------------------------------
    def _call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        arg_nodes = args.named_children if args is not None and args.type == "argument_list" else []
        nargs = len([a for a in arg_nodes if a.type != "comment"]) if args is not None else 0
        if args is not None and args.type == "generator_expression":
            nargs = 1
        line, column = node.start_point[0] + 1, node.start_point[1]
        scope = self._scope()
        text = short_text(node.text or b"", CALL_TEXT_MAX)
        receiver: str | None = None
        super_call = False
        if fn is None:
            return
        if fn.type == "identifier":
            name = _text(fn)
            callee = name
        elif fn.type == "attribute":
            name = _text(fn.child_by_field_name("attribute"))
            obj = fn.child_by_field_name("object")
            receiver = _dotted(obj)
            if obj is not None and obj.type == "call" and _dotted(obj.child_by_field_name("function")) == "super":
                receiver = "super()"
                super_call = True
            if receiver is None:
                receiver = "<expr>"
            callee = f"{receiver}.{name}"
        else:
            name = ""
            callee = "<expr>"
        self.calls.append(
            Call(
                line=line,
                column=column,
                scope=scope,
                callee=callee,
                name=name,
                receiver=receiver,
                args=nargs,
                text=text,
                super_call=super_call,
            )
        )
        self._dynamic(callee, arg_nodes, line, column, scope)

    def _dynamic(self, callee: str, args: list[Node], line: int, column: int, scope: str) -> None:
        kind = _DYNAMIC_CALLS.get(callee)
        if callee in ("importlib.import_module", "import_module"):
            kind = "import_module"
        elif callee == "getattr" and len(args) >= 2:
            if _string_value(args[1]) is not None:
                return
            kind = "getattr"
        if kind is None:
            return
        prefix = None
        if kind in ("import_module", "__import__"):
            if not args:
                return
            if _string_value(args[0]) is not None:
                # a literal import: an import, not a dynamic feature
                module = _string_value(args[0]) or ""
                self.imports.append(Import(line=line, module=module, kind="dynamic", scope=scope))
                return
            prefix = _static_prefix(args[0])
        self.dynamic.append(DynamicFlag(line=line, column=column, scope=scope, kind=kind, prefix=prefix))

    def _decorator(self, node: Node) -> None:
        # `@deco` calls deco at definition time; `@deco(...)` is already a call node.
        name = _dotted(node)
        if name is None:
            return
        receiver, _, last = name.rpartition(".")
        self.calls.append(
            Call(
                line=node.start_point[0] + 1,
                column=node.start_point[1],
                scope=self._scope(),
                callee=name,
                name=last,
                receiver=receiver or None,
                args=1,
                text="@" + name[:CALL_TEXT_MAX],
            )
        )

    # imports ---------------------------------------------------------------------------------
    def _import(self, node: Node) -> None:
        line = node.start_point[0] + 1
        scope = self._scope()
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = _text(child.child_by_field_name("name"))
                alias = _text(child.child_by_field_name("alias"))
                self.imports.append(Import(line=line, module=module, alias=alias, scope=scope))
            else:
                self.imports.append(Import(line=line, module=_text(child), scope=scope))

    def _import_from(self, node: Node) -> None:
        line = node.start_point[0] + 1
        scope = self._scope()
        module_node = node.child_by_field_name("module_name")
        level = 0
        module = ""
        if module_node is not None:
            if module_node.type == "relative_import":
                for child in module_node.children:
                    if child.type == "import_prefix":
                        level = len(_text(child).strip())
                    elif child.type == "dotted_name":
                        module = _text(child)
            else:
                module = _text(module_node)
        if any(child.type == "wildcard_import" for child in node.children):
            self.imports.append(Import(line=line, module=module, level=level, star=True, kind="from", scope=scope))
            return
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = _text(child.child_by_field_name("name"))
                alias = _text(child.child_by_field_name("alias"))
            else:
                name, alias = _text(child), None
            self.imports.append(
                Import(line=line, module=module, name=name, alias=alias, level=level, kind="from", scope=scope)
            )

    # assignments -----------------------------------------------------------------------------
    def _assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        line = node.start_point[0] + 1
        scope = self._scope()
        target = _dotted(left)
        if target is None and left is not None and left.type in ("pattern_list", "tuple_pattern"):
            # a, b = f(), g()
            if right is not None and right.type in ("expression_list", "tuple"):
                for lhs, rhs in zip(left.named_children, right.named_children, strict=False):
                    self._bind(_dotted(lhs), rhs, line, scope)
            return
        if target is None:
            return
        declared = _type_name(node.child_by_field_name("type"))
        if declared:
            self.assignments.append(Assignment(line=line, scope=scope, target=target, value=f"type:{declared}"))
        if node.type == "assignment" and right is not None:
            if target == "__all__" and not scope:
                self._all(right, line)
            if right.type == "lambda" and not scope:
                self._lambda(target, node, right)
                return
            self._bind(target, right, line, scope)

    def _bind(self, target: str | None, right: Node, line: int, scope: str) -> None:
        if target is None:
            return
        if right.type == "call":
            fn = _dotted(right.child_by_field_name("function"))
            if fn is not None:
                self.assignments.append(Assignment(line=line, scope=scope, target=target, value=f"call:{fn}"))
        elif right.type in ("identifier", "attribute"):
            name = _dotted(right)
            if name is not None:
                self.assignments.append(Assignment(line=line, scope=scope, target=target, value=f"name:{name}"))
                self.references.append(
                    Reference(line=line, column=right.start_point[1], scope=scope, name=name)
                )
        elif right.type == "await" and right.named_child_count:
            self._bind(target, right.named_children[0], line, scope)

    def _lambda(self, target: str, node: Node, right: Node) -> None:
        qualname = self._qualify(target)
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind="function",
                name=target.rpartition(".")[2],
                qualname=qualname,
                column=node.start_point[1],
                signature=" ".join(_text(node).split())[:200],
            )
        )
        self.stack.append((right.end_byte, qualname, True, node.start_point[0] + 1))

    def _all(self, right: Node, line: int) -> None:
        if right.type not in ("list", "tuple"):
            return
        for child in right.named_children:
            value = _string_value(child)
            if value:
                self.exports.append(Export(line=line, name=value, local=value))

    def _guard(self, node: Node) -> None:
        condition = node.child_by_field_name("condition")
        if self.stack or condition is None:
            return
        text = _text(condition).replace("'", '"').replace(" ", "")
        if text in ('__name__=="__main__"', '"__main__"==__name__'):
            self.main_guard = True

    def _ref(self, node: Node) -> None:
        name = _dotted(node)
        if name is None or name in ("self", "cls", "None", "True", "False"):
            return
        self.references.append(
            Reference(line=node.start_point[0] + 1, column=node.start_point[1], scope=self._scope(), name=name)
        )

    def _return(self, node: Node) -> None:
        start = self._function_line()
        if start is None or not node.named_child_count:
            return
        value = node.named_children[0]
        fact = None
        if value.type == "call":
            fn = _dotted(value.child_by_field_name("function"))
            fact = f"call:{fn}" if fn else None
        elif value.type in ("identifier", "attribute"):
            name = _dotted(value)
            fact = f"name:{name}" if name else None
        if fact is None:
            return
        facts = self.returns.setdefault(start, [])
        if fact not in facts:
            facts.append(fact)

    def _error(self, node: Node) -> None:
        self.errors += 1


_ORDER = {"def.class": 0, "def.function": 0, "guard": 1, "assign": 2, "call": 3}


def _with_returns(definition: Definition, facts: list[str]) -> Definition:
    return definition._replace(returns=tuple(dict.fromkeys((*definition.returns, *facts))))
