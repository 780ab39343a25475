"""Python extractor: one tree-sitter query, definitions sorted by byte offset, scopes by bisection.

Scope rule: a call's scope is the nearest enclosing *function*; class bodies are transparent, since
a class body runs when the code around it runs (at import for a top-level class). Decorators and
default values run in the enclosing scope too, which falls out of the byte order: they precede the
function node's body.

How it stays fast (extraction costs about half of tree-sitter's parse): the query's ``matches()``
hands each record its fields as captures, so Python asks the tree little (a node attribute costs
as much as a dozen Python operations); callees and names are read from the source bytes between
node offsets and accepted when they are plain ASCII name chains, and the node-walking readers
(``_dotted``, ``_call_from_nodes``) handle every other form. Definitions are processed first, in
byte order, with a stack; every other record finds its scope by bisecting their start offsets.
"""

from __future__ import annotations

import keyword
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

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
    word_filter,
)
from projectgraph.languages.base import folder_matches, short_text

_DYNAMIC_CALLS = {"eval": "eval", "exec": "exec", "__import__": "__import__"}


def extract(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """Build the FileIndex of one parsed Python file."""
    return _Extractor(source).run(tree.root_node, path, file_hash)


_KINDS = (
    "def.function",
    "def.class",
    "def.lambda",
    "decorated",
    "call",
    "decorator",
    "import",
    "import.from",
    "assign",
    "assign.augmented",
    "guard",
    "ref",
    "ref.chain",
    "return",
    "error",
    "with",
    "for",
    "raise",
    "read",
    "operator.binary",
    "subscript",
    "interpolation",
    "format.call",
)


# The fast readers accept ASCII name chains; anything else goes to the node readers, which are exact.
# A keyword is not a name: ``None.x`` is an attribute of a ``none`` node. In a file without a syntax
# error, a name chain that is a call's callee or a reference can only start with the atoms ``None``,
# ``True`` and ``False`` (``await``, ``not``, ``yield`` and ``lambda`` need a space or an operand,
# which the readers refuse, and the parser reads any other word after a dot as a name), so only
# those are checked there; a file with an error gets every keyword checked on every link.
_ATOM = r"(?!(?:None|True|False)(?!\w))[A-Za-z_]\w*"
_NAME = r"(?!(?:{})(?!\w))[A-Za-z_]\w*".format("|".join(keyword.kwlist))
_LINK = r"[A-Za-z_]\w*"


@dataclass(frozen=True)
class _Readers:
    chain: re.Pattern[str]  # what ``_dotted`` returns for a name chain: ``a.b().c``
    callee: re.Pattern[str]  # a chain ending with a name


def _readers(first: str, link: str) -> _Readers:
    return _Readers(
        chain=re.compile(rf"{first}(?:\(\))?(?:\.{link}(?:\(\))?)*", re.ASCII),
        callee=re.compile(rf"{first}(?:(?:\(\))?\.{link})*", re.ASCII),
    )


_LENIENT = _readers(_ATOM, _LINK)
_STRICT = _readers(_NAME, _NAME)
_DYNAMIC_CALLEES = frozenset(
    ("eval", "exec", "__import__", "importlib.import_module", "import_module", "getattr")
)
# a parameter or base list the text reader cannot split on commas
_NOT_SIMPLE_LIST = re.compile(r"[()\[\]{}'\"#\\@]")


_ATOMS = frozenset(("None", "True", "False"))


def _plain_chain(text: str) -> bool:
    """Names joined by dots, ASCII, not opening with an atom (``None.x``): a quick yes for the
    readers' regular expressions, valid in a file without syntax error (``a..b`` would be one)."""
    return (
        text.isascii()
        and text.replace(".", "_").isidentifier()
        and (text[:1] not in "NTF" or text.partition(".")[0] not in _ATOMS)
    )


def _is_name(text: str) -> bool:
    return text.isidentifier() and text.isascii() and not keyword.iskeyword(text)


def _short(text: str) -> str:
    """``short_text`` of text already cut to the bytes it reads."""
    text = " ".join(text.split())
    return text if len(text) <= CALL_TEXT_MAX else text[: CALL_TEXT_MAX - 1] + "…"


def _is_simple_list(text: str) -> bool:
    """``(a, b=1, *c)`` with no nesting, string, comment or lambda: commas split it."""
    return (
        text[:1] == "("
        and text[-1:] == ")"
        and not _NOT_SIMPLE_LIST.search(text, 1, len(text) - 1)
        and "lambda" not in text
    )


_STRING_START = re.compile(rb"[rRbBuUfF]{0,2}['\"]")
_new = tuple.__new__


class _NodeReader:
    """The exact readers: they walk the tree, for what the fast readers of _Extractor do not accept.
    Texts are sliced from the source (cheaper than ``node.text``)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        # An ASCII file's byte offsets are its text's offsets: slice the text, decode nothing more.
        self.ascii = source.decode("ascii") if source.isascii() else None

    def _text(self, node: Node | None) -> str:
        if node is None:
            return ""
        if self.ascii is not None:
            return self.ascii[node.start_byte : node.end_byte]
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _dotted(self, node: Node | None) -> str | None:
        """Text of a name chain (`a.b.c`, with `()` for a call link), or None for other expressions."""
        if node is None:
            return None
        kind = node.type
        if kind == "identifier":
            return self._text(node)
        if kind == "attribute":
            obj = self._dotted(node.child_by_field_name("object"))
            attr = node.child_by_field_name("attribute")
            if obj is None or attr is None:
                return None
            return f"{obj}.{self._text(attr)}"
        if kind == "call":
            fn = self._dotted(node.child_by_field_name("function"))
            return None if fn is None else f"{fn}()"
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._dotted(node.named_children[0])
        return None

    def _string_value(self, node: Node) -> str | None:
        """The value of a plain string literal, or None when it is computed (f-string, concat)."""
        if node.type != "string":
            return None
        parts = []
        for child in node.named_children:
            if child.type == "interpolation":
                return None
            if child.type == "string_content":
                parts.append(self._text(child))
        return "".join(parts)

    def _static_prefix(self, node: Node) -> str | None:
        """A static prefix of a computed string: `"pkg." + x` or `f"pkg.{x}"`."""
        if node.type == "binary_operator":
            left = node.child_by_field_name("left")
            if left is not None:
                value = self._string_value(left)
                return value if value is not None else self._static_prefix(left)
        if node.type == "string":
            parts: list[str] = []
            for child in node.named_children:
                if child.type == "interpolation":
                    return "".join(parts) or None
                if child.type == "string_content":
                    parts.append(self._text(child))
        return None

    def _first_doc_line(self, body: Node | None) -> str:
        first = body.named_child(0) if body is not None else None  # not named_children: every statement
        if first is None:
            return ""
        if first.type == "expression_statement" and first.named_child_count == 1:
            first = first.named_children[0]
        value = self._string_value(first)
        if not value:
            return ""
        for line in value.strip().splitlines():
            if line.strip():
                return line.strip()[:200]
        return ""

    def _type_name(self, node: Node | None) -> str | None:
        """A type annotation as a dotted name, unwrapping `Optional[X]` (`t.Optional`, `typing.Optional`
        too), `Union[X, None]`, `X | None`, `Annotated[X, ...]` and string forms. A union of two or
        more types names no one class of the value: None (the linker then knows nothing of it,
        rather than the first member only, which would leave the others' calls silent)."""
        if node is None:
            return None
        if node.type == "type" and node.named_child_count == 1:
            return self._type_name(node.named_children[0])
        if node.type == "string":
            value = self._string_value(node)
            return value.strip() if value and value.replace(".", "").replace("_", "").isalnum() else None
        if node.type == "binary_operator":  # X | None
            return self._one_type([node.child_by_field_name("left"), node.child_by_field_name("right")])
        if node.type in ("generic_type", "subscript"):
            head = node.named_children[0] if node.named_children else None
            head_name = self._dotted(head) if head is not None else None
            last = head_name.rpartition(".")[2] if head_name else ""
            if last in ("Optional", "Union", "Annotated") and node.named_child_count > 1:
                members: list[Node | None] = []
                for inner in node.named_children[1:]:
                    if inner.type == "type_parameter":
                        members.extend(inner.named_children)
                    else:
                        members.append(inner)
                if last == "Annotated":
                    members = members[:1]
                return self._one_type(members)
            return head_name
        return self._dotted(node)

    def _one_type(self, members: list[Node | None]) -> str | None:
        """The one type of a union's members that is not None, else None."""
        kept = [
            self._type_name(member)
            for member in members
            if member is not None and self._text(member).strip() not in ("None", "'None'", '"None"')
        ]
        return kept[0] if len(kept) == 1 else None

    def _params_from_nodes(self, node: Node) -> tuple[Param, ...]:
        params = []
        for child in node.named_children:
            kind = child.type
            if kind == "identifier":
                params.append(Param(self._text(child)))
            elif kind == "typed_parameter":
                inner = child.named_children[0] if child.named_children else None
                variadic = ""
                if inner is not None and inner.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                    variadic = "*" if inner.type == "list_splat_pattern" else "**"
                    inner = inner.named_children[0] if inner.named_children else None
                params.append(
                    Param(
                        self._text(inner),
                        self._type_name(child.child_by_field_name("type")),
                        variadic=variadic,
                    )
                )
            elif kind in ("default_parameter", "typed_default_parameter"):
                params.append(
                    Param(
                        self._text(child.child_by_field_name("name")),
                        self._type_name(child.child_by_field_name("type")),
                        default=True,
                    )
                )
            elif kind in ("list_splat_pattern", "dictionary_splat_pattern"):
                inner = child.named_children[0] if child.named_children else None
                params.append(
                    Param(self._text(inner), variadic="*" if kind == "list_splat_pattern" else "**")
                )
        return tuple(params)

    def _bases_from_nodes(self, supers: Node) -> tuple[str, ...]:
        bases: list[str] = []
        for child in supers.named_children:
            if child.type == "keyword_argument":
                continue
            base = self._dotted(child)
            if base is None and child.type in ("subscript", "generic_type") and child.named_children:
                base = self._dotted(child.named_children[0])
            if base is not None:
                bases.append(base)
        return tuple(bases)


_SENTINEL_END = 1 << 62
_Captures = dict[str, list[Node]]


class _Extractor(_NodeReader):
    def __init__(self, source: bytes) -> None:
        super().__init__(source)
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
        self.strict = False  # the parser found an error: fast readers check more, some step aside
        self.fast = True  # no error: _plain_chain may answer for the regular expressions
        self.read = _LENIENT
        self.decorated: set[int] = set()
        self.callees: dict[int, str] = {}  # by end byte: the callee of each call the fast reader read
        self.callee_spans: set[tuple[int, int]] = set()  # (start, end) bytes of each call's callee
        self.reads: list[Reference] = []
        # The scope entries, one per definition pushed, in byte order; entry 0 is the module. A record
        # at byte ``p`` lies in the last entry starting at or before ``p``, or in the nearest of that
        # entry's parents that has not ended at ``p``.
        self.starts: list[int] = [-1]
        self.ends: list[int] = [_SENTINEL_END]  # where the entry stops being a scope
        self.ties: list[tuple[int, int]] = [(0, 0)]  # (-end, order) of the entry's node, for ties
        self.parents: list[int] = [0]
        self.containers: list[str] = [""]  # the entry's qualified name
        self.scopes: list[str] = [""]  # the nearest function's qualified name
        self.function_lines: list[int | None] = [None]  # the nearest function's line
        self.in_class: list[bool] = [False]
        self.branch = ""  # "?" while the assignment being read is one of a branch (_in_branch)

    def chain(self, node: Node) -> str | None:
        """``_dotted(node)``, read from the source when it is a plain name chain."""
        if self.ascii is not None:
            text = self.ascii[node.start_byte : node.end_byte]
        else:
            text = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if (self.fast and _plain_chain(text)) or self.read.chain.fullmatch(text):
            return text
        return self._dotted(node)

    def entry(self, start: int, node: Node, order: int) -> int:
        """The scope entry of a record at ``start``; ``order`` breaks a tie with a definition."""
        j = bisect_right(self.starts, start) - 1
        if self.starts[j] == start and (-node.end_byte, order) <= self.ties[j]:
            j -= 1  # the record sorts before the definition starting at the same byte
        ends = self.ends
        while ends[j] <= start:
            j = self.parents[j]
        return j

    # main loop -------------------------------------------------------------------------------
    def run(self, root: Node, path: str, file_hash: str) -> FileIndex:
        if root.has_error:
            self.strict, self.fast, self.read = True, False, _STRICT
        groups = folder_matches(__file__, "python", _KINDS, root)
        self.decorated = {c["decorated"][0].start_byte for c in groups["decorated"]}
        self._definitions(groups)
        self._calls(groups["call"])
        self._references(groups["ref"], groups["ref.chain"])
        starts, ends = self.starts, self.ends
        for captures in groups["assign"]:
            node = captures["assign"][0]
            right = captures.get("right")
            type_node = captures.get("type")
            start = node.start_byte
            j = bisect_right(starts, start) - 1
            if ends[j] <= start or starts[j] == start:
                j = self.entry(start, node, 2)
            self._assign(
                node,
                captures["left"][0],
                type_node[0] if type_node else None,
                right[0] if right else None,
                j,
            )
        for captures in groups["assign.augmented"]:
            node = captures["assign.augmented"][0]
            self._augmented(node, self.entry(node.start_byte, node, 2))
        for captures in groups["decorator"]:
            node = captures["decorator"][0]
            self._decorator(node, self.entry(node.start_byte, node, 9))
        for captures in groups["import"]:
            node = captures["import"][0]
            self._import(node, self.scopes[self.entry(node.start_byte, node, 9)])
        for captures in groups["import.from"]:
            node = captures["import.from"][0]
            self._import_from(node, self.scopes[self.entry(node.start_byte, node, 9)])
        for captures in groups["guard"]:
            node = captures["guard"][0]
            if self.entry(node.start_byte, node, 1) == 0:
                self._guard(captures["condition"][0])
        # facts of one function in source order
        returns = sorted((c["return"][0] for c in groups["return"]), key=lambda n: n.start_byte)
        for node in returns:
            self._return(node, self.function_lines[self.entry(node.start_byte, node, 9)])
        self._implicit(groups)
        self._operators(groups["operator.binary"])
        self._formats(groups["interpolation"], groups["format.call"], groups["operator.binary"])
        self._subscripts(groups["subscript"], groups["assign"])
        self._reads(groups["read"], groups["assign"])
        self.errors = len(groups["error"])
        definitions = [
            d if d.line not in self.returns or d.kind == "class" else _with_returns(d, self.returns[d.line])
            for d in self.definitions
        ]
        flags = ("syntax-error",) if self.errors else ()
        words = _words(self.source, self.ascii is not None, self.definitions)
        return FileIndex(
            path=path,
            language="python",
            hash=file_hash,
            imports=tuple(sorted(self.imports, key=_import_order)),
            exports=tuple(sorted(dict.fromkeys(self.exports))),
            definitions=tuple(sorted(definitions)),
            calls=tuple(sorted(dict.fromkeys(self.calls))),
            references=tuple(sorted(dict.fromkeys(self.references))),
            assignments=tuple(sorted(dict.fromkeys(self.assignments))),
            dynamic=tuple(sorted(dict.fromkeys(self.dynamic))),
            main_guard=self.main_guard,
            syntax_errors=self.errors,
            flags=flags,
            reads=tuple(sorted(dict.fromkeys(self.reads))),
            words=words,
        )

    # definitions -----------------------------------------------------------------------------
    def _definitions(self, groups: dict[str, list[_Captures]]) -> None:
        """Functions, classes and module-level lambdas in byte order, each pushed as a scope entry."""
        events: list[tuple[int, int, int, int, str, _Captures]] = []
        for kind, order in (("def.function", 0), ("def.class", 0), ("def.lambda", 2)):
            for captures in groups[kind]:
                node = captures[kind][0]
                events.append((node.start_byte, -node.end_byte, order, len(events), kind, captures))
        events.sort()
        stack = [0]
        previous = (-1, 0, 0)
        for start, neg_end, order, _, kind, captures in events:
            if (start, neg_end, order) == previous:
                continue  # one node matched twice (optional fields of a node the parser broke)
            previous = (start, neg_end, order)
            while self.ends[stack[-1]] <= start:
                stack.pop()
            top = stack[-1]
            node = captures[kind][0]
            if kind == "def.function":
                qualname = self._function(node, captures, top)
                end, is_function = -neg_end, True
            elif kind == "def.class":
                qualname = self._class(node, captures, top)
                end, is_function = -neg_end, False
            else:
                lambda_name = self._lambda(node, captures["left"][0], top)
                if lambda_name is None:
                    continue
                qualname = lambda_name
                end, is_function = captures["right"][0].end_byte, True
            line = node.start_point[0] + 1
            self.starts.append(start)
            self.ends.append(end)
            self.ties.append((neg_end, order))
            self.parents.append(top)
            self.containers.append(qualname)
            self.scopes.append(qualname if is_function else self.scopes[top])
            self.function_lines.append(line if is_function else self.function_lines[top])
            self.in_class.append(not is_function)
            stack.append(len(self.starts) - 1)

    def _field(self, node: Node, captures: _Captures, name: str) -> Node | None:
        """A field of a definition: from the captures, or from the tree when the parser broke it."""
        if self.strict:
            return node.child_by_field_name(name)
        found = captures.get(name)
        return found[0] if found else None

    def _decorators(self, node: Node) -> tuple[str, ...]:
        if node.start_byte not in self.decorated:
            return ()
        parent = node.parent
        if parent is None or parent.type != "decorated_definition":
            return ()
        names = []
        for child in parent.named_children:
            if child.type == "decorator" and child.named_child_count:
                expr = child.named_children[0]
                text = self._dotted(expr.child_by_field_name("function") if expr.type == "call" else expr)
                names.append(text or "<expr>")
        return tuple(names)

    def _qualify(self, name: str, top: int) -> str:
        container = self.containers[top]
        return f"{container}.{name}" if container else name

    def _header(self, start: int, body: Node | None, node: Node) -> str:
        end = body.start_byte if body is not None else node.end_byte
        if self.ascii is not None:
            header = self.ascii[start:end]
        else:
            header = self.source[start:end].decode("utf-8", "replace")
        return " ".join(header.split()).rstrip(":")[:200]

    def _doc(self, body: Node | None) -> str:
        if body is None or not _STRING_START.match(self.source, body.start_byte):
            return ""  # the body does not open with a string
        return self._first_doc_line(body)

    def _names(self, node: Node, captures: _Captures, top: int) -> tuple[str, str]:
        """The name a function or class definition binds and its qualified name."""
        name_node = self._field(node, captures, "name")
        name = self._text(name_node) if name_node is not None else ""
        return name, self._qualify(name, top)

    def _function(self, node: Node, captures: _Captures, top: int) -> str:
        name, qualname = self._names(node, captures, top)
        parameters = self._field(node, captures, "parameters")
        params = self._params(parameters) if parameters is not None else ()
        return_type = self._type_name(self._field(node, captures, "return_type"))
        body = self._field(node, captures, "body")
        start = node.start_byte
        kind = "function"
        if self.in_class[top]:
            kind = "constructor" if name == "__init__" else "method"
        if self.strict:
            is_async = any(child.type == "async" for child in node.children[:2])
        else:
            is_async = self.source.startswith(b"async", start)
        line, column = node.start_point
        definition: Definition = _new(
            Definition,
            (
                line + 1,
                node.end_point[0] + 1,
                kind,
                name,
                qualname,
                column,
                self._header(start, body, node),
                self._doc(body),
                (),
                self._decorators(node),
                params,
                (return_type,) if return_type else (),
                not name.startswith("_") or (name.startswith("__") and name.endswith("__")),
                is_async,
            ),
        )
        self.definitions.append(definition)
        return qualname

    def _params(self, node: Node) -> tuple[Param, ...]:
        """The parameters, split from the source text when every one is a plain form."""
        text = self._text(node)
        if self.strict or not _is_simple_list(text):
            return self._params_from_nodes(node)
        params = []  # (the text readers run only in a file without error: see _plain_chain)
        for piece in text[1:-1].split(","):
            piece = piece.strip()
            if not piece or piece == "*" or piece == "/":
                continue
            variadic = ""
            if piece[0] == "*":
                variadic = "**" if piece[:2] == "**" else "*"
                piece = piece[len(variadic) :].lstrip()
            head, equals, _ = piece.partition("=")
            name, colon, annotation = head.partition(":")
            name = name.strip()
            annotation = annotation.strip()
            if not _is_name(name) or (colon and not _plain_chain(annotation)) or (equals and variadic):
                return self._params_from_nodes(node)
            params.append(_new(Param, (name, annotation if colon else None, bool(equals), variadic)))
        return tuple(params)

    def _class(self, node: Node, captures: _Captures, top: int) -> str:
        name, qualname = self._names(node, captures, top)
        supers = self._field(node, captures, "superclasses")
        bases = self._bases(supers) if supers is not None else ()
        body = self._field(node, captures, "body")
        line, column = node.start_point
        definition: Definition = _new(
            Definition,
            (
                line + 1,
                node.end_point[0] + 1,
                "class",
                name,
                qualname,
                column,
                self._header(node.start_byte, body, node),
                self._doc(body),
                bases,
                self._decorators(node),
                (),
                (),
                not name.startswith("_"),
                False,
            ),
        )
        self.definitions.append(definition)
        return qualname

    def _bases(self, supers: Node) -> tuple[str, ...]:
        """The base classes, split from the source text when every one is a plain name chain."""
        text = self._text(supers)
        if self.strict or not _is_simple_list(text) or "*" in text:
            return self._bases_from_nodes(supers)
        bases = []
        for piece in text[1:-1].split(","):
            piece = piece.strip()
            if not piece:
                continue
            keyword_name, equals, value = piece.partition("=")
            if equals and _is_name(keyword_name.strip()) and value[:1] != "=":
                continue  # metaclass=...
            if equals or not _plain_chain(piece):
                return self._bases_from_nodes(supers)
            bases.append(piece)
        return tuple(bases)

    def _lambda(self, node: Node, left: Node, top: int) -> str | None:
        """A module- or class-level ``name = lambda: ...``: its qualified name, or None."""
        if self.scopes[top]:
            return None
        target = self.chain(left)
        if target is None:
            return None
        qualname = self._qualify(target, top)
        self.definitions.append(
            Definition(
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                kind="function",
                name=target.rpartition(".")[2],
                qualname=qualname,
                column=node.start_point[1],
                signature=" ".join(self._text(node).split())[:200],
            )
        )
        return qualname

    # calls -----------------------------------------------------------------------------------
    def _calls(self, matches: list[_Captures]) -> None:
        source, ascii_text = self.source, self.ascii
        starts, ends, scopes = self.starts, self.ends, self.scopes
        append = self.calls.append
        callees = self.callees
        is_callee = self.read.callee.fullmatch
        fast = self.fast
        limit = CALL_TEXT_MAX * 4
        for captures in matches:
            node = captures["call"][0]
            start = node.start_byte
            j = bisect_right(starts, start) - 1
            if ends[j] <= start or starts[j] == start:
                j = self.entry(start, node, 3)
            scope = scopes[j]
            args = captures.get("args")
            if args is not None:
                arguments = args[0]
                args_start = arguments.start_byte
                end = arguments.end_byte
            else:
                gen = captures.get("gen")
                if gen is None:
                    self._call_from_nodes(node, scope)
                    continue
                args_start = gen[0].start_byte
                end = gen[0].end_byte
            cut = end if end - start <= limit else start + limit  # what short_text reads
            if ascii_text is not None:
                callee = ascii_text[start:args_start]
                text = ascii_text[start:cut]
                comment = ascii_text.find("#", args_start, end) >= 0
            else:
                callee = source[start:args_start].decode("utf-8", "replace")
                text = source[start:cut].decode("utf-8", "replace")
                comment = source.find(b"#", args_start, end) >= 0
            # _plain_chain, inline: a name chain the regular expression would accept
            if not (
                (
                    fast
                    and callee.isascii()
                    and callee.replace(".", "_").isidentifier()
                    and (callee[:1] not in "NTF" or callee.partition(".")[0] not in _ATOMS)
                )
                or is_callee(callee)
            ):
                self._call_from_nodes(node, scope)
                continue
            receiver, _, name = callee.rpartition(".")
            callees[end] = callee
            self.callee_spans.add((start, args_start))
            if args is None:
                nargs = 1
            elif comment:
                nargs = len([a for a in args[0].named_children if a.type != "comment"])
            else:
                nargs = args[0].named_child_count
            # short_text's own result when the text is one line of single spaces and short enough
            if len(text) > CALL_TEXT_MAX or "  " in text or text[-1:] == " " or not text.isprintable():
                text = _short(text)
            line, column = node.start_point
            append(
                _new(
                    Call,
                    (
                        line + 1,
                        column,
                        scope,
                        callee,
                        name,
                        receiver or None,
                        nargs,
                        text,
                        False,
                        receiver == "super()",
                    ),
                )
            )
            if callee in _DYNAMIC_CALLEES:
                arg_nodes = args[0].named_children if args is not None else []
                self._dynamic(callee, arg_nodes, line + 1, column, scope)

    def _call_from_nodes(self, node: Node, scope: str) -> None:
        """A call whose callee the fast reader does not accept, read from the tree."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        arg_nodes = args.named_children if args is not None and args.type == "argument_list" else []
        nargs = len([a for a in arg_nodes if a.type != "comment"]) if args is not None else 0
        if args is not None and args.type == "generator_expression":
            nargs = 1
        line, column = node.start_point[0] + 1, node.start_point[1]
        text = short_text(self.source[node.start_byte : node.end_byte], CALL_TEXT_MAX)
        receiver: str | None = None
        super_call = False
        if fn is None:
            return
        self.callee_spans.add((fn.start_byte, fn.end_byte))
        if fn.type == "identifier":
            name = self._text(fn)
            callee = name
        elif fn.type == "attribute":
            name = self._text(fn.child_by_field_name("attribute"))
            obj = fn.child_by_field_name("object")
            receiver = self._dotted(obj)
            if (
                obj is not None
                and obj.type == "call"
                and self._dotted(obj.child_by_field_name("function")) == "super"
            ):
                receiver = "super()"
                super_call = True
            if receiver is None:
                receiver = "<expr>"
            callee = f"{receiver}.{name}"
        elif fn.type == "call":  # a()(): the callee is what a call returned
            name = ""
            callee = self._returned_callee(fn)
            if callee.endswith(".__class__"):  # type(x)(): a call of x.__class__
                receiver, _, name = callee.rpartition(".")
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

    def _returned_callee(self, fn: Node) -> str:
        """The callee text of a call of a call's result: ``a()``, ``x.f()``, ``self.__class__`` for
        ``type(self)`` (a call of it makes an instance of the object's class); else ``<expr>``."""
        inner = fn.child_by_field_name("function")
        args = fn.child_by_field_name("arguments")
        if (
            inner is not None
            and inner.type == "identifier"
            and self._text(inner) == "type"
            and args is not None
            and args.type == "argument_list"
            and args.named_child_count == 1
        ):
            obj = self._dotted(args.named_children[0])
            return f"{obj}.__class__" if obj is not None and "()" not in obj else "<expr>"
        return self._dotted(fn) or "<expr>"

    # what Python calls with no call written ---------------------------------------------------
    def _implicit(self, groups: dict[str, list[_Captures]]) -> None:
        """Calls the interpreter makes for a statement, as call records whose text opens with the
        statement's keyword (``with x``, ``for x``, ``raise X``, no call text can): ``with`` calls
        the value's ``__enter__`` and ``__exit__`` (``__aenter__``/``__aexit__`` in ``async with``),
        ``for`` its ``__iter__`` (``__aiter__``), ``raise Error`` the class, as ``Error()`` would."""
        protocols: tuple[tuple[str, str, tuple[str, ...]], ...] = (
            ("with", "value", ("__enter__", "__exit__")),
            ("for", "right", ("__iter__",)),
        )
        for kind, field, names in protocols:
            for captures in groups[kind]:
                node = captures[kind][0]
                value = captures[field][0]
                target = None
                if value.type == "as_pattern" and value.named_child_count:
                    target = value.named_children[-1]
                    value = value.named_children[0]
                if kind == "for" and value.type in ("tuple", "list"):
                    self._loop_over(captures["left"][0], value)
                    continue
                receiver = self.chain(value)
                if receiver is None:
                    continue
                if kind == "for":
                    self._loop_over(captures["left"][0], value, receiver)
                statement = node.parent if kind == "with" else node
                if statement is not None and kind == "with":
                    statement = statement.parent
                called = names
                if statement is not None and self.source.startswith(b"async", statement.start_byte):
                    called = tuple(n.replace("__", "__a", 1) for n in names)
                line, column = value.start_point
                scope = self.scopes[self.entry(value.start_byte, value, 9)]
                text = _short(f"{kind} {receiver}")
                if target is not None and target.type == "as_pattern_target" and target.named_child_count:
                    bound = self._dotted(target.named_children[0])
                    if bound is not None:  # with x() as y: y is what __enter__ returns
                        self.assignments.append(
                            _new(Assignment, (line + 1, scope, bound, f"call:{receiver}.{called[0]}"))
                        )
                for name in called:
                    self._unwritten_call(line, column, scope, receiver, name, text)
        for captures in groups["raise"]:
            raised = captures["raised"][0]
            callee = self.chain(raised)
            if callee is None:
                continue
            receiver, _, name = callee.rpartition(".")
            line, column = raised.start_point
            scope = self.scopes[self.entry(raised.start_byte, raised, 9)]
            text = _short(f"raise {callee}")
            self.calls.append(
                _new(Call, (line + 1, column, scope, callee, name, receiver or None, 0, text, False, False))
            )

    def _unwritten_call(
        self, line: int, column: int, scope: str, receiver: str, name: str, text: str
    ) -> None:
        """A call of ``receiver.name`` that code runs with none written (a ``with`` or ``for``
        protocol, an operator, formatting, a subscript): no arguments, at the 0-based ``line``."""
        self.calls.append(
            _new(Call, (line + 1, column, scope, f"{receiver}.{name}", name, receiver, 0, text, False, False))
        )

    def _loop_over(self, left: Node, items: Node, iterated: str | None = None) -> None:
        """``for fn in (a, b):``: fn is bound to each item, an assignment ``each:a,b`` (when every
        item is a name chain); ``for fn in steps:``, to each item of what ``steps`` holds
        (``iter:steps``)."""
        if left.type != "identifier":
            return
        value = f"iter:{iterated}" if iterated is not None else self._items(items) or ""
        if value:
            line = left.start_point[0] + 1
            scope = self.scopes[self.entry(left.start_byte, left, 9)]
            self.assignments.append(_new(Assignment, (line, scope, self._text(left), value)))

    def _items(self, items: Node) -> str | None:
        """``each:a,b`` for a tuple or list literal of name chains, else None."""
        if not items.named_child_count:
            return None
        names = [self.chain(item) for item in items.named_children]
        if any(name is None or "," in name for name in names):
            return None
        return "each:" + ",".join(name for name in names if name is not None)

    def _operators(self, matches: list[_Captures]) -> None:
        """``a + b``: a call of ``a.__add__`` and one of ``b.__radd__`` (text ``<op> a + b``),
        for the operands that are name chains; the linker keeps the reflected one only when the
        left operand has no method of its own."""
        for captures in matches:
            node = captures["operator.binary"][0]
            symbol = self._text(captures["operator"][0])
            method = _OPERATORS.get(symbol)
            if method is None:
                continue
            left = self.chain(captures["left"][0])
            right = self.chain(captures["right"][0])
            if left is None and right is None:
                continue
            line, column = node.start_point
            scope = self.scopes[self.entry(node.start_byte, node, 9)]
            text = _short(f"<op> {left or '…'} {symbol} {right or '…'}")
            for receiver, name in ((left, f"__{method}__"), (right, f"__r{method}__")):
                if receiver is not None:
                    self._unwritten_call(line, column, scope, receiver, name, text)

    def _formats(self, fields: list[_Captures], methods: list[_Captures], operators: list[_Captures]) -> None:
        """Formatting, which runs a conversion method of each value it formats with no call
        written: ``f"{x}"`` and ``"{}".format(x)`` run ``type(x).__format__`` (``__str__`` after
        ``!s``, ``__repr__`` after ``!r`` or ``!a``), ``"%s" % x`` runs ``__str__`` (``%r``:
        ``__repr__``): a call record of ``x.<method>`` (text ``<fmt> {x}``) for each value that is
        a name chain; the linker follows object's defaults (``__format__`` to ``__str__`` to
        ``__repr__``)."""
        for captures in fields:
            node = captures["interpolation"][0]
            expression = node.named_children[0] if node.named_child_count else None
            if expression is None:
                continue
            conversion = next((c for c in node.named_children if c.type == "type_conversion"), None)
            flag = self._text(conversion)[1:] if conversion is not None else ""
            self._format_record(node, self.chain(expression), _FORMAT_CONVERSIONS.get(flag, "__format__"))
        for captures in methods:
            if self._text(captures["method"][0]) != "format":
                continue
            template = self._string_value(captures["template"][0])
            if template is None:
                continue
            positional: list[str | None] = []
            named: dict[str, str | None] = {}
            for argument in captures["args"][0].named_children:
                if argument.type == "keyword_argument":
                    name, given = argument.child_by_field_name("name"), argument.child_by_field_name("value")
                    if name is not None and given is not None:
                        named[self._text(name)] = self.chain(given)
                elif argument.type in ("list_splat", "dictionary_splat"):
                    break  # the fields after it are not read
                else:
                    positional.append(self.chain(argument))
            auto = 0
            node = captures["format.call"][0]
            for field, flag in _FORMAT_FIELDS.findall(template.replace("{{", "").replace("}}", "")):
                key = field.split(".", 1)[0].split("[", 1)[0]
                if key.isdigit() or not key:
                    index = int(key) if key else auto
                    auto += not key
                    value = positional[index] if index < len(positional) else None
                else:
                    value = named.get(key)
                if field == key:  # {0.attr} and {0[k]} format another value
                    self._format_record(node, value, _FORMAT_CONVERSIONS.get(flag, "__format__"))
        for captures in operators:
            node = captures["operator.binary"][0]
            if self._text(captures["operator"][0]) != "%":
                continue
            template = self._string_value(captures["left"][0])
            if template is None or self._text(captures["left"][0])[:1] in "bB":
                continue  # bytes formatting converts with __bytes__ and the buffer protocol
            specs = [spec for spec in _PRINTF_SPECS.findall(template) if spec != "%"]
            right = captures["right"][0]
            if right.type == "tuple":
                values = [self.chain(item) for item in right.named_children]
            elif right.type in ("dictionary", "parenthesized_expression"):
                continue
            elif len(specs) == 1 and "%(" not in template:
                values = [self.chain(right)]
            else:
                continue  # a tuple or a mapping the text does not show
            for value, spec in zip(values, specs, strict=False):
                method = _PRINTF_CONVERSIONS.get(spec[-1])
                if method is not None:
                    self._format_record(node, value, method)

    def _format_record(self, node: Node, value: str | None, method: str) -> None:
        if value is None:
            return
        line, column = node.start_point
        scope = self.scopes[self.entry(node.start_byte, node, 9)]
        flag = {"__str__": "!s", "__repr__": "!r"}.get(method, "")
        self._unwritten_call(line, column, scope, value, method, _short(f"<fmt> {{{value}{flag}}}"))

    def _subscripts(self, matches: list[_Captures], assigns: list[_Captures]) -> None:
        """``a[k]``: a call of ``a.__getitem__``, of ``a.__setitem__`` where it is an assignment's
        target (text ``<op> a[…]``), for a subscripted name chain."""
        stores = {captures["left"][0].start_byte for captures in assigns}
        for captures in matches:
            node = captures["subscript"][0]
            receiver = self.chain(captures["value"][0])
            if receiver is None:
                continue
            name = "__setitem__" if node.start_byte in stores else "__getitem__"
            line, column = node.start_point
            scope = self.scopes[self.entry(node.start_byte, node, 9)]
            self._unwritten_call(line, column, scope, receiver, name, _short(f"<op> {receiver}[…]"))

    def _reads(self, matches: list[_Captures], assigns: list[_Captures]) -> None:
        """Attribute reads: every attribute that is no call's callee and no assignment's target."""
        skip = self.callee_spans
        for captures in assigns:
            left = captures["left"][0]
            skip.add((left.start_byte, left.end_byte))
        starts, ends, scopes = self.starts, self.ends, self.scopes
        seen: set[tuple[int, str, str]] = set()
        for captures in matches:
            node = captures["read"][0]
            start, end = node.start_byte, node.end_byte
            if (start, end) in skip:
                continue
            name = self.chain(node)
            if name is None:
                continue
            j = bisect_right(starts, start) - 1
            if ends[j] <= start or starts[j] == start:
                j = self.entry(start, node, 9)
            line, column = node.start_point
            slot = (line, scopes[j], name)
            if slot not in seen:  # one record per line, scope and text: the linker reads no more
                seen.add(slot)
                self.reads.append(_new(Reference, (line + 1, column, scopes[j], name)))

    def _dynamic(self, callee: str, args: list[Node], line: int, column: int, scope: str) -> None:
        kind = _DYNAMIC_CALLS.get(callee)
        if callee in ("importlib.import_module", "import_module"):
            kind = "import_module"
        elif callee == "getattr" and len(args) >= 2:
            if self._string_value(args[1]) is not None:
                return
            kind = "getattr"
        if kind is None:
            return
        prefix = None
        if kind in ("import_module", "__import__"):
            if not args:
                return
            if self._string_value(args[0]) is not None:
                # a literal import: an import, not a dynamic feature
                module = self._string_value(args[0]) or ""
                self.imports.append(Import(line=line, module=module, kind="dynamic", scope=scope))
                return
            prefix = self._static_prefix(args[0])
        self.dynamic.append(DynamicFlag(line=line, column=column, scope=scope, kind=kind, prefix=prefix))

    def _decorator(self, node: Node, entry: int) -> None:
        # `@deco` calls deco at definition time; `@deco(...)` is already a call node.
        name = self.chain(node)
        if name is None:
            return
        receiver, _, last = name.rpartition(".")
        self.calls.append(
            Call(
                line=node.start_point[0] + 1,
                column=node.start_point[1],
                scope=self.scopes[entry],
                callee=name,
                name=last,
                receiver=receiver or None,
                args=1,
                text="@" + name[:CALL_TEXT_MAX],
            )
        )

    # references ------------------------------------------------------------------------------
    def _references(self, names: list[_Captures], chains: list[_Captures]) -> None:
        source, ascii_text = self.source, self.ascii
        starts, ends, scopes = self.starts, self.ends, self.scopes
        append = self.references.append
        is_chain = self.read.chain.fullmatch
        fast = self.fast
        for kind, matches in (("ref", names), ("ref.chain", chains)):
            for captures in matches:
                node = captures[kind][0]
                start = node.start_byte
                end = node.end_byte
                text = (
                    ascii_text[start:end]
                    if ascii_text is not None
                    else source[start:end].decode("utf-8", "replace")
                )
                name: str | None = text
                if kind == "ref.chain" and not ((fast and _plain_chain(text)) or is_chain(text)):
                    name = self._dotted(node)
                if name is None or name in _NOT_REFERENCES:
                    continue
                j = bisect_right(starts, start) - 1
                if ends[j] <= start or starts[j] == start:
                    j = self.entry(start, node, 9)
                line, column = node.start_point
                append(_new(Reference, (line + 1, column, scopes[j], name)))

    # imports ---------------------------------------------------------------------------------
    def _import(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = self._text(child.child_by_field_name("name"))
                alias = self._text(child.child_by_field_name("alias"))
                self.imports.append(Import(line=line, module=module, alias=alias, scope=scope))
            else:
                self.imports.append(Import(line=line, module=self._text(child), scope=scope))

    def _import_from(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        module_node = node.child_by_field_name("module_name")
        level = 0
        module = ""
        if module_node is not None:
            if module_node.type == "relative_import":
                for child in module_node.children:
                    if child.type == "import_prefix":
                        level = len(self._text(child).strip())
                    elif child.type == "dotted_name":
                        module = self._text(child)
            else:
                module = self._text(module_node)
        if any(child.type == "wildcard_import" for child in node.children):
            self.imports.append(
                Import(line=line, module=module, level=level, star=True, kind="from", scope=scope)
            )
            return
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = self._text(child.child_by_field_name("name"))
                alias = self._text(child.child_by_field_name("alias"))
            else:
                name, alias = self._text(child), None
            self.imports.append(
                Import(
                    line=line, module=module, name=name, alias=alias, level=level, kind="from", scope=scope
                )
            )

    # assignments -----------------------------------------------------------------------------
    def _assign(self, node: Node, left: Node, type_node: Node | None, right: Node | None, entry: int) -> None:
        if self.strict:
            left_field = node.child_by_field_name("left")
            if left_field is None:
                return
            left = left_field
            type_node = node.child_by_field_name("type")
            right = node.child_by_field_name("right")
        line = node.start_point[0] + 1
        scope = self.scopes[entry]
        self.branch = "?" if _in_branch(node) else ""
        target = self.chain(left)
        if target is None:
            if self._unpacks(left, right):  # a, b = f(), g()
                for lhs, rhs in zip(left.named_children, right.named_children, strict=False):  # type: ignore[union-attr]
                    self._bind(self._dotted(lhs), rhs, line, scope)
            return
        if type_node is not None:
            declared = self._type_name(type_node)
            if declared:
                self.assignments.append(
                    _new(Assignment, (line, scope, target, self.branch + f"type:{declared}"))
                )
        if right is not None:
            if target == "__all__" and not scope:
                self._all(right, line)
            # a lambda is a definition (see _lambda) or, in a function, nothing linking reads
            self._bind(target, right, line, scope)

    def _augmented(self, node: Node, entry: int) -> None:
        # `x += y` binds nothing linking reads, except in what error recovery makes of `a, b += ...`
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is not None and self._dotted(left) is None and self._unpacks(left, right):
            line, scope = node.start_point[0] + 1, self.scopes[entry]
            self.branch = "?" if _in_branch(node) else ""
            for lhs, rhs in zip(left.named_children, right.named_children, strict=False):  # type: ignore[union-attr]
                self._bind(self._dotted(lhs), rhs, line, scope)

    @staticmethod
    def _unpacks(left: Node, right: Node | None) -> bool:
        """``a, b = x, y``: names bound pairwise."""
        return (
            left.type in ("pattern_list", "tuple_pattern")
            and right is not None
            and right.type in ("expression_list", "tuple")
        )

    def _bind(self, target: str | None, right: Node, line: int, scope: str) -> None:
        if target is None:
            return
        kind = right.type
        if kind == "call":
            # the call's own match read its callee (the end byte is the call's alone)
            fn = self.callees.get(right.end_byte)
            if fn is None:
                function = right.child_by_field_name("function")
                fn = self.chain(function) if function is not None else None
            if fn is not None:
                self.assignments.append(_new(Assignment, (line, scope, target, self.branch + f"call:{fn}")))
        elif kind in ("identifier", "attribute"):
            name = self.chain(right)
            if name is not None:
                self.assignments.append(_new(Assignment, (line, scope, target, self.branch + f"name:{name}")))
                self.references.append(_new(Reference, (line, right.start_point[1], scope, name)))
        elif kind == "await" and right.named_child_count:
            self._bind(target, right.named_children[0], line, scope)
        elif kind in ("list", "tuple"):  # steps = [a, b]: a container of those values
            items = self._items(right)
            if items is not None:
                self.assignments.append(_new(Assignment, (line, scope, target, self.branch + items)))
        elif kind == "binary_operator":  # total = price + tax: what price.__add__ returns
            left, symbol = right.child_by_field_name("left"), right.child_by_field_name("operator")
            method = _OPERATORS.get(self._text(symbol)) if symbol is not None else None
            operand = self.chain(left) if left is not None and method is not None else None
            if operand is not None:
                self.assignments.append(
                    _new(Assignment, (line, scope, target, self.branch + f"call:{operand}.__{method}__"))
                )

    def _all(self, right: Node, line: int) -> None:
        if right.type not in ("list", "tuple"):
            return
        for child in right.named_children:
            value = self._string_value(child)
            if value:
                self.exports.append(Export(line=line, name=value, local=value))

    def _guard(self, condition: Node) -> None:
        text = self._text(condition).replace("'", '"').replace(" ", "")
        if text in ('__name__=="__main__"', '"__main__"==__name__'):
            self.main_guard = True

    def _return(self, node: Node, start: int | None) -> None:
        if start is None or not node.named_child_count:
            return
        value = node.named_children[0]
        fact = None
        if value.type == "call":
            fn = self._dotted(value.child_by_field_name("function"))
            fact = f"call:{fn}" if fn else None
        elif value.type in ("identifier", "attribute"):
            name = self._dotted(value)
            fact = f"name:{name}" if name else None
        if fact is None:
            return
        facts = self.returns.setdefault(start, [])
        if fact not in facts:
            facts.append(fact)


# a binary operator's method, without its underscores (``__add__``; reflected: ``__radd__``)
_OPERATORS = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "@": "matmul",
    "/": "truediv",
    "//": "floordiv",
    "%": "mod",
    "**": "pow",
    "<<": "lshift",
    ">>": "rshift",
    "&": "and",
    "|": "or",
    "^": "xor",
}
# what a formatted value's conversion runs: ``{x!r}``, ``%r`` (``!a`` and ``%a`` call repr)
_FORMAT_CONVERSIONS = {"s": "__str__", "r": "__repr__", "a": "__repr__"}
_PRINTF_CONVERSIONS = {"s": "__str__", "r": "__repr__", "a": "__repr__"}
# a replacement field of str.format (its name, its conversion) and a printf conversion specifier
_FORMAT_FIELDS = re.compile(r"\{([^{}!:]*)(?:!([rsa]))?(?::[^{}]*)?\}")
_PRINTF_SPECS = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")
_NOT_REFERENCES = frozenset(("self", "cls", "None", "True", "False"))


# statements whose body runs on some paths only: an assignment in one may not happen before a use
_BRANCHES = frozenset(
    (
        "if_statement",
        "elif_clause",
        "else_clause",
        "for_statement",
        "while_statement",
        "except_clause",
        "except_group_clause",
        "case_clause",
        "conditional_expression",
    )
)
_SCOPE_NODES = frozenset(("function_definition", "class_definition", "lambda", "module"))


def _in_branch(node: Node) -> bool:
    """Whether an assignment runs on some paths through its scope only (under an ``if``, a loop,
    an ``except``, a ``case``; a ``with`` or a ``try`` body runs whenever the code around it)."""
    parent = node.parent
    while parent is not None:
        kind = parent.type
        if kind in _BRANCHES:
            return True
        if kind in _SCOPE_NODES:
            return False
        parent = parent.parent
    return False


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_UNICODE_WORD = re.compile(r"[^\W\d]\w*")


def _words(source: bytes, ascii_only: bool, definitions: list[Definition]) -> int:
    """The file's word filter: every word of its text (code, strings, comments: a name a string
    holds may be looked up) but one occurrence of each name a definition binds, unless the
    definition is decorated (its decorators receive it without its name)."""
    if ascii_only:
        counts = Counter(_WORD.findall(source))
        found = {word.decode(): count for word, count in counts.items()}
    else:
        found = dict(Counter(_UNICODE_WORD.findall(source.decode("utf-8", "replace"))))
    for definition in definitions:
        if not definition.decorators and definition.name in found:
            found[definition.name] -= 1
    return word_filter(word for word, count in found.items() if count > 0)


def _import_order(record: Import) -> tuple[Any, ...]:
    """Imports in field order, None before any text (``import a as b; import a`` on one line)."""
    return tuple((False, "") if value is None else (True, value) for value in record)


def _with_returns(definition: Definition, facts: list[str]) -> Definition:
    return definition._replace(returns=tuple(dict.fromkeys((*definition.returns, *facts))))
