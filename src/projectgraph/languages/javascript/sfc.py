"""Single-file components (Vue ``.vue``, Svelte ``.svelte``): their scripts by the JS/TS rules, and
the calls and component uses of their templates.

The file is parsed with its own grammar (``vue``, ``svelte``), which shows where the scripts and the
template are. The scripts' text is kept in place and every other byte blanked (line ends kept), so
the JavaScript or TypeScript extractor (``lang="ts"`` picks TypeScript) reads them at their own
lines and columns, a Vue ``<script>`` with its ``<script setup>``, a Svelte instance script with its
``<script context="module">``/``<script module>``, as one module. Then the template adds records of
its own, at the module scope, since what a template names is the script's top-level binding:

- an event handler (Vue ``@click="save"``, ``v-on:click="save(item)"``, Svelte ``on:click={save}``,
  ``onclick={save}``): a call of the name it gives, or of each call it writes;
- an expression (Vue ``{{ format(x) }}``, ``:label="label(x)"``, ``v-if``; Svelte ``{format(x)}``,
  ``attr={f(x)}``): each call it writes (``name(`` or ``a.b(``);
- a component element (``<MyButton>``, Vue's ``<my-button>`` as ``MyButton``): a call of the
  component, as a JSX element is (its script runs).

The index is of the component's language (``vue``, ``svelte``), linked by the JavaScript linker.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tree_sitter import Node, Parser

from projectgraph.fileindex import CALL_TEXT_MAX, Call, FileIndex
from projectgraph.languages.base import grammar_language
from projectgraph.languages.javascript.extract import extract as extract_script

_BLANK = re.compile(rb"[^\r\n]")
# a call written in an expression: a name chain followed by "(", not a member of a call's result
_CALL = re.compile(r"(?<![\w$.\])])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(")
_NAME = re.compile(r"\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\Z")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "typeof", "new", "function", "await"})
_HTML_TAGS = frozenset({"template", "slot", "component", "transition", "keep-alive", "teleport", "suspense"})


def extract_vue(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """The index of a ``.vue`` file."""
    return _extract(tree, source, path, file_hash, "vue")


def extract_svelte(tree: Any, source: bytes, path: str, file_hash: str) -> FileIndex:
    """The index of a ``.svelte`` file."""
    return _extract(tree, source, path, file_hash, "svelte")


def _extract(tree: Any, source: bytes, path: str, file_hash: str, language: str) -> FileIndex:
    root = tree.root_node
    scripts: list[Node] = []
    typed = False
    for child in root.children:
        if child.type == "script_element":
            body = next((c for c in child.children if c.type == "raw_text"), None)
            if body is not None:
                scripts.append(body)
                typed = typed or _script_lang(child, source) in ("ts", "typescript", "tsx")
    blanked = bytearray(_BLANK.sub(b" ", source))
    for body in scripts:
        blanked[body.start_byte : body.end_byte] = source[body.start_byte : body.end_byte]
    grammar = "typescript" if typed else "javascript"
    script_tree = Parser(grammar_language(grammar)).parse(bytes(blanked))
    index = extract_script(script_tree, bytes(blanked), path, file_hash)
    calls = [*index.calls, *_template_calls(root, source, language)]
    calls.sort(key=lambda c: (c.line, c.column, c.callee))
    return replace(index, language=language, calls=tuple(calls))


def _script_lang(element: Node, source: bytes) -> str:
    start = next((c for c in element.children if c.type == "start_tag"), None)
    if start is None:
        return ""
    for attribute in start.children:
        if attribute.type != "attribute":
            continue
        name = next((c for c in attribute.children if c.type == "attribute_name"), None)
        if name is None or _text(name, source) != "lang":
            continue
        value = next((c for c in attribute.children if c.type == "quoted_attribute_value"), None)
        if value is not None:
            return _text(value, source).strip("'\"").lower()
    return ""


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _template_calls(root: Node, source: bytes, language: str) -> list[Call]:
    """The calls of the template: every node outside the scripts and styles."""
    found: list[Call] = []
    stack = [c for c in root.children if c.type not in ("script_element", "style_element")]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("start_tag", "self_closing_tag"):
            _component(node, source, found)
            for attribute in node.children:
                if attribute.type in ("attribute", "directive_attribute"):
                    _attribute(attribute, source, language, found)
            continue
        if kind in ("interpolation", "expression", "raw_text_expr"):
            _expression(node, source, found, handler=False)
            continue
        stack.extend(reversed(node.children))
    return found


def _component(tag: Node, source: bytes, found: list[Call]) -> None:
    name_node = next((c for c in tag.children if c.type == "tag_name"), None)
    if name_node is None:
        return
    name = _text(name_node, source)
    if name.lower() in _HTML_TAGS:
        return
    if "-" in name and name.islower():
        name = "".join(part.capitalize() for part in name.split("-"))
    head = name.split(".")[0]
    if not head[:1].isupper() or not all(p.isidentifier() for p in name.split(".")):
        return
    line, column = name_node.start_point
    found.append(_call(line, column, name, 1, f"<{name}>"))


def _attribute(attribute: Node, source: bytes, language: str, found: list[Call]) -> None:
    """A handler or an expression of an attribute (Vue directives, Svelte ``{...}`` values)."""
    text = _text(attribute, source)
    name, _, _rest = text.partition("=")
    name = name.strip()
    handler = name.startswith(("@", "v-on:", "on:")) or (language == "svelte" and name.startswith("on"))
    expression = name.startswith((":", "v-", "@", "#", "on")) or language == "svelte"
    if not expression:
        return
    for value in _values(attribute):
        _expression(value, source, found, handler)


def _values(node: Node) -> list[Node]:
    """The value nodes of an attribute: a quoted value's text, a ``{...}`` expression."""
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.type in ("attribute_value", "raw_text_expr", "attribute_js_expr"):
            out.append(child)
        elif child.type not in ("attribute_name", "directive_name"):
            stack.extend(child.children)
    return out


def _expression(node: Node, source: bytes, found: list[Call], handler: bool) -> None:
    text = _text(node, source)
    line0, column0 = node.start_point
    if handler:
        bare = _NAME.match(text)
        if bare is not None:  # @click="save": the handler is called with the event
            offset = bare.start(1)
            found.append(_call(line0, column0 + offset, bare.group(1), 1, text.strip()))
            return
    for match in _CALL.finditer(text):
        callee = match.group(1)
        if callee.split(".")[0] in _KEYWORDS:
            continue
        before = text[: match.start(1)]
        line = line0 + before.count("\n")
        column = (column0 if "\n" not in before else 0) + len(before.rpartition("\n")[2])
        found.append(_call(line, column, callee, 0, text[match.start(1) :].strip().removesuffix("}}")))


def _call(line: int, column: int, callee: str, args: int, text: str) -> Call:
    receiver, _, name = callee.rpartition(".")
    text = " ".join(text.split())
    if len(text) > CALL_TEXT_MAX:
        text = text[: CALL_TEXT_MAX - 1] + "…"
    return Call(line + 1, column, "", callee, name, receiver or None, args, text)
