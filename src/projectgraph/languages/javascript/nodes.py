"""Readers of JavaScript / TypeScript syntax nodes: names, strings, types, modules.

Pure functions of one node (and its children) that the extractor composes; none keeps state. They
read the node types the three grammars share, plus TypeScript's type nodes, which simply never
occur in a JavaScript tree.
"""

from __future__ import annotations

import re

from tree_sitter import Node

FUNCTIONS = frozenset({"function_expression", "arrow_function", "generator_function"})
WRAPPERS = frozenset(
    {"parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression"}
)
SKIP_REFS = frozenset({"undefined", "NaN", "Infinity", "arguments", "require", "module", "exports"})
INTEROP = frozenset(
    {"__importDefault", "__importStar", "_interopRequireDefault", "_interopRequireWildcard", "__toESM"}
)
NULL_TYPES = frozenset({"null", "undefined", "void", "never"})
NO_TYPES = frozenset({"any", "unknown", "void", "never", "undefined", "null", "object"})
IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
SIMPLE_NAME = re.compile(rb"[A-Za-z_$][\w$]*")  # an ASCII identifier (or `super`, `import`)
SIMPLE_CHAIN = re.compile(rb"[\w$#]+(?:\??\.[\w$#]+)+")  # `a.b`, `this.#c`, `a?.b`: ASCII, no spaces


def text(node: Node | None) -> str:
    raw = None if node is None else node.text
    return "" if raw is None else raw.decode("utf-8", "replace")


def dotted(node: Node | None) -> str | None:
    """Text of a name chain (`a.b.c`, `this.x`, with `()` for a call or `new` link), else None."""
    if node is None:
        return None
    kind = node.type
    if kind in ("identifier", "this", "super", "property_identifier", "type_identifier"):
        return text(node)
    if kind == "member_expression":
        raw = node.text
        if raw is not None and SIMPLE_CHAIN.fullmatch(raw):  # most chains: one read, no child walk
            return raw.decode().replace("?.", ".")
        obj = dotted(node.child_by_field_name("object"))
        prop = node.child_by_field_name("property")
        if obj is None or prop is None:
            return None
        return f"{obj}.{text(prop)}"
    if kind == "subscript_expression":
        index = node.child_by_field_name("index")
        key = string_value(index) if index is not None else None
        if index is not None and index.type == "number" and text(index).isdigit():
            key = text(index)  # an array element: `steps[0]` reads `steps.0`
        elif key is None or not IDENTIFIER.match(key):
            return None
        obj = dotted(node.child_by_field_name("object"))
        return None if obj is None else f"{obj}.{key}"
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None or fn.type == "import":
            return None
        name = dotted(fn)
        return None if name is None else f"{name}()"
    if kind == "new_expression":
        name = dotted(node.child_by_field_name("constructor"))
        return None if name is None else f"{name}()"
    if kind in ("parenthesized_expression", "non_null_expression") and node.named_child_count == 1:
        return dotted(node.named_children[0])
    if kind == "meta_property":
        return "import.meta"
    if kind in ("nested_identifier", "nested_type_identifier"):
        return "".join(text(node).split())
    return None


def unwrap(node: Node) -> Node:
    """The expression inside parentheses, `x!`, `x as T` and `x satisfies T`."""
    while node.type in WRAPPERS and node.named_child_count:
        node = node.named_children[0]
    return node


def string_value(node: Node | None) -> str | None:
    """The value of a plain string literal (or template without substitutions), else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(
            text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence")
        )
    if node.type == "template_string":
        parts = []
        for child in node.named_children:
            if child.type == "template_substitution":
                return None
            if child.type in ("string_fragment", "escape_sequence"):
                parts.append(text(child))
        return "".join(parts)
    return None


def static_prefix(node: Node) -> str | None:
    """A static prefix of a computed string: `"./plugins/" + name` or `` `./plugins/${name}` ``."""
    node = unwrap(node)
    if node.type == "binary_expression":
        left = node.child_by_field_name("left")
        if left is not None:
            value = string_value(left)
            return (value or None) if value is not None else static_prefix(left)
    if node.type == "template_string":
        parts = []
        for child in node.named_children:
            if child.type == "template_substitution":
                break
            if child.type in ("string_fragment", "escape_sequence"):
                parts.append(text(child))
        return "".join(parts) or None
    return None


def key_name(node: Node | None) -> str | None:
    """A property or method name as written; None for computed and numeric keys."""
    if node is None:
        return None
    if node.type in ("property_identifier", "private_property_identifier", "identifier", "type_identifier"):
        return text(node)
    if node.type == "string":
        return string_value(node) or None
    if node.type == "computed_property_name" and node.named_child_count == 1:
        # a well-known symbol as the spec writes it: `[Symbol.iterator]` is `@@iterator`
        inner = node.named_children[0]
        if inner.type == "member_expression" and text(inner.child_by_field_name("object")) == "Symbol":
            return "@@" + text(inner.child_by_field_name("property"))
    return None


def first_arg(args: Node | None) -> Node | None:
    if args is None or args.type != "arguments":
        return None
    for child in args.named_children:
        if child.type != "comment":
            return child
    return None


def arg_nodes(args: Node | None) -> list[Node]:
    if args is None or args.type != "arguments":
        return []
    return [child for child in args.named_children if child.type != "comment"]


def require_module(node: Node) -> tuple[str, str | None] | None:
    """`require("m")` -> ("m", None); `require("m").x` -> ("m", "x"); else None."""
    member = None
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        member = text(prop)
        node = unwrap(node.child_by_field_name("object") or node)
    if node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or text(fn) != "require":
        return None
    module = string_value(first_arg(node.child_by_field_name("arguments")))
    return None if module is None else (module, member)


def is_import_value(node: Node) -> bool:
    """`require(..)`, `require(..).x`, `await import(..)`, `__importDefault(require(..))`."""
    if node.type == "await_expression" and node.named_child_count:
        node = unwrap(node.named_children[0])
    if node.type == "member_expression":
        node = unwrap(node.child_by_field_name("object") or node)
    if node.type != "call_expression":
        return False
    fn = node.child_by_field_name("function")
    if fn is None:
        return False
    if fn.type == "import" or (fn.type == "identifier" and text(fn) == "require"):
        return True
    wrapper = dotted(fn) or ""
    first = first_arg(node.child_by_field_name("arguments"))
    return wrapper.rpartition(".")[2] in INTEROP and first is not None and is_import_value(unwrap(first))


def is_void(node: Node) -> bool:
    return node.type == "undefined" or (node.type == "unary_expression" and text(node).startswith("void"))


def type_name(node: Node | None) -> str | None:
    """A type annotation as a name linking can use (see the module docstring), or None."""
    if node is None:
        return None
    kind = node.type
    if kind in (
        "type_annotation",
        "parenthesized_type",
        "opting_type_annotation",
        "omitting_type_annotation",
    ):
        inner = node.named_children
        return type_name(inner[0]) if inner else None
    if kind in ("type_identifier", "identifier", "this_type"):
        return text(node)
    if kind == "predefined_type":
        predefined = text(node)
        return None if predefined in NO_TYPES else predefined
    if kind == "nested_type_identifier":
        return "".join(text(node).split())
    if kind == "generic_type":
        head = type_name(node.child_by_field_name("name"))
        args = node.child_by_field_name("type_arguments")
        if head in ("Promise", "PromiseLike") and args is not None and args.named_child_count == 1:
            return type_name(args.named_children[0])
        return head
    if kind in ("array_type", "tuple_type", "readonly_type"):
        return "Array"
    if kind == "union_type":
        members: list[Node] = []
        stack = [node]
        while stack:
            current = stack.pop()
            for child in current.named_children:
                (stack if child.type == "union_type" else members).append(child)
        kept = [m for m in members if text(m) not in NULL_TYPES]
        return type_name(kept[0]) if len(kept) == 1 else None
    return None


def one_line(raw: bytes) -> str:
    return " ".join(raw[:800].decode("utf-8", "replace").split())[:200]


def pattern_name(node: Node | None) -> str:
    if node is None:
        return ""
    kind = node.type
    if kind in ("identifier", "this"):
        return text(node)
    if kind == "rest_pattern":
        return pattern_name(node.named_children[0]) if node.named_children else ""
    if kind in ("assignment_pattern", "object_assignment_pattern"):
        return pattern_name(node.child_by_field_name("left"))
    if kind == "object_pattern":
        return "{}"
    if kind == "array_pattern":
        return "[]"
    return text(node)[:40]


def decorator_name(node: Node) -> str:
    expr = node.named_children[0] if node.named_children else None
    if expr is not None and expr.type == "call_expression":
        expr = expr.child_by_field_name("function")
    return dotted(expr) or "<expr>"


def is_private(node: Node) -> bool:
    for child in node.children:
        if child.type == "accessibility_modifier":
            return text(child) in ("private", "protected")
    return False


def declared_names(node: Node) -> list[str]:
    """Names a declaration binds: `function f`, `class C`, `const a = 1, b = 2`, `namespace N`."""
    kind = node.type
    if kind in ("lexical_declaration", "variable_declaration"):
        names = []
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            target = declarator.child_by_field_name("name")
            if target is None:
                continue
            if target.type == "identifier":
                names.append(text(target))
            elif target.type == "object_pattern":
                for part in target.named_children:
                    if part.type == "shorthand_property_identifier_pattern":
                        names.append(text(part))
                    elif part.type == "pair_pattern":
                        value = part.child_by_field_name("value")
                        if value is not None and value.type == "identifier":
                            names.append(text(value))
        return names
    if kind in ("ambient_declaration", "expression_statement"):
        return [name for child in node.named_children for name in declared_names(child)]
    if kind in ("internal_module", "module"):
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type == "string":
            return []
        return [text(name_node).split(".")[0].strip()]
    name_node = node.child_by_field_name("name")
    return [text(name_node)] if name_node is not None else []


def spec_name(node: Node | None) -> str:
    if node is None:
        return ""
    if node.type == "string":
        return string_value(node) or ""
    return text(node)


def is_main_guard(node: Node, needle: bytes) -> bool:
    if needle == b"import.meta.main":
        return True
    parent = node.parent
    for _ in range(4 if needle == b"import.meta.url" else 1):
        if parent is None:
            return False
        if parent.type == "binary_expression":
            operator = parent.child_by_field_name("operator")
            if operator is None or operator.type not in ("===", "=="):
                return False
            if needle == b"import.meta.url":
                return b"process.argv" in (parent.text or b"")
            left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
            other = right if left == node else left
            return other is not None and other.type == "identifier" and text(other) == "module"
        parent = parent.parent
    return False


def value_fact(value: Node) -> str | None:
    """What a returned expression tells linking: `call:F`, `name:x`, or a type from `as T`."""
    if value.type in ("as_expression", "satisfies_expression") and value.named_child_count >= 2:
        declared = type_name(value.named_children[1])
        if declared and declared != "const":
            return declared
    value = unwrap(value)
    if value.type == "await_expression" and value.named_child_count:
        value = unwrap(value.named_children[0])
    kind = value.type
    if kind in ("call_expression", "new_expression"):
        fn = value.child_by_field_name("function" if kind == "call_expression" else "constructor")
        if fn is None or fn.type == "import":
            return None
        name = dotted(fn)
        return f"call:{name}" if name and name != "require" else None
    if kind in ("identifier", "member_expression", "this", "subscript_expression"):
        name = dotted(value)
        return f"name:{name}" if name and name not in SKIP_REFS else None
    return None


def element_source(node: Node) -> tuple[str, str] | None:
    """What iterating ``node`` yields the elements of: ``(base, "values")`` for an array or object
    ``base`` (``xs``, ``Object.values(o)``, ``colors()``), ``(base, "entries")`` for
    ``Object.entries(o)`` (pairs whose second element is a value of ``o``); None when unknown."""
    node = unwrap(node)
    if node.type == "call_expression":
        fn = dotted(node.child_by_field_name("function"))
        if fn in ("Object.values", "Object.entries"):
            arg = first_arg(node.child_by_field_name("arguments"))
            base = dotted(unwrap(arg)) if arg is not None else None
            if base is None:
                return None
            return base, "values" if fn == "Object.values" else "entries"
    base = dotted(node)
    return (base, "values") if base is not None and base not in SKIP_REFS else None


def element_names(pattern: Node | None, mode: str) -> list[str]:
    """The names a loop variable or callback parameter binds to an element of a source of
    ``element_source``: ``x`` of a values source, ``[k, v]``'s ``v`` of an entries source."""
    if pattern is None:
        return []
    pattern = pattern.child_by_field_name("left") if pattern.type == "assignment_pattern" else pattern
    if pattern is None:
        return []
    if mode == "values" and pattern.type == "identifier":
        return [text(pattern)]
    if mode == "entries" and pattern.type == "array_pattern":
        parts = [c for c in pattern.named_children if c.type != "comment"]
        if len(parts) >= 2 and parts[1].type == "identifier":
            return [text(parts[1])]
    return []
