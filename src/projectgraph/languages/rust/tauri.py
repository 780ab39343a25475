"""Tauri: the JavaScript front end calls the Rust back end's commands by name.

A Rust function marked ``#[tauri::command]`` (or ``#[command]`` with ``use tauri::command``) runs
when the front end calls ``invoke("name", args)`` (``@tauri-apps/api/core``'s, v1's
``@tauri-apps/api/tauri``, or the global ``window.__TAURI__.core.invoke``), but only if the app
registered it: ``tauri::Builder::default().invoke_handler(tauri::generate_handler![a, m::b])``.
The command's name is the function's (the last segment of its path in the handler list).

This pass is Rust's ``link_pass``: it runs after every language's linker, over the index records
of both languages, so its edges cross from one language to the other:

- ``tauri-handler``: from the Rust scope that calls ``generate_handler!`` to each command it lists
  that resolves to one marked function (the app runs it on an invoke: what reaches the builder
  reaches the commands). An entry naming no marked function is an unresolved ``no-definition``
  site there.
- ``tauri-invoke``: from the JavaScript/TypeScript scope of an ``invoke("name")`` with a literal
  name to the one registered command of that name. A computed name (``invoke(cmd)``) is an
  unresolved ``computed-name`` site; a literal name no handler list registers is
  ``no-definition`` (Tauri answers "command not found"), or ``limit`` when a handler list's text
  was cut short before its end (the name may be in the part not seen); two registered commands of
  one name are ``ambiguous``. A plugin's command (``plugin:fs|read``) is the plugin's code: no edge
  and no site.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from projectgraph import keys
from projectgraph.fileindex import Call, FileIndex
from projectgraph.graph import Site, Unresolved
from projectgraph.link.core import GraphBuilder

# the edge kinds this pass makes, with what the framework does (the README's table)
EDGE_KINDS: dict[str, str] = {
    "tauri-handler": "generate_handler! registers a #[tauri::command] function: the app runs it on an invoke",
    "tauri-invoke": "a front-end invoke('name') runs the one registered Rust command of that name",
}
_INVOKE_MODULES = ("@tauri-apps/api/core", "@tauri-apps/api/tauri", "@tauri-apps/api/primitives")
_JS = ("javascript", "typescript", "tsx", "vue", "svelte")
_HANDLER = re.compile(r"generate_handler!\s*\[(.*?)(\]|\Z)", re.DOTALL)
_GLOBAL_INVOKE = ("window.__TAURI__.core.invoke", "window.__TAURI__.invoke", "window.__TAURI__.tauri.invoke")


def link(indexes: Sequence[FileIndex], builder: GraphBuilder) -> None:
    """Add the Tauri edges and sites of a project (nothing when it has no marked command)."""
    commands = _commands(indexes)
    if not commands:
        return
    registered: dict[str, list[str]] = {}  # command name -> keys of the registered functions
    cut = False
    for index in indexes:
        if index.language != "rust":
            continue
        for call in index.calls:
            if call.name != "generate_handler" or "generate_handler!" not in call.text:
                continue
            match = _HANDLER.search(call.text)
            if match is None:
                continue
            complete = match.group(2) == "]"
            cut = cut or not complete
            site = Site(index.path, call.line, call.column)
            caller = _caller(index, call.scope)
            entries = [e.strip() for e in match.group(1).split(",")]
            if not complete and entries:
                entries.pop()  # the last entry runs into the cut
            for entry in entries:
                entry = entry.rstrip("…").strip()
                if not entry:
                    continue
                key = _command_for(entry, index.path, commands)
                if key is None:
                    builder.unresolved_site(Unresolved(caller, site, "no-definition", entry, call.text))
                    continue
                builder.edge(caller, key, "calls", "tauri-handler", site)
                name = entry.rpartition("::")[2]
                if key not in registered.setdefault(name, []):
                    registered[name].append(key)
    for index in indexes:
        if index.language not in _JS:
            continue
        locals_ = _invoke_names(index)
        if not locals_:
            continue
        for call in index.calls:
            name = _invoked(call, locals_)
            if name is None:
                continue
            caller = _caller(index, call.scope)
            site = Site(index.path, call.line, call.column)
            if name == "":
                builder.unresolved_site(Unresolved(caller, site, "computed-name", "invoke", call.text))
                continue
            if name.startswith("plugin:"):
                continue
            found = registered.get(name, [])
            if len(found) == 1:
                builder.edge(caller, found[0], "calls", "tauri-invoke", site)
            elif found:
                builder.unresolved_site(Unresolved(caller, site, "ambiguous", name, call.text))
            else:
                reason = "limit" if cut else "no-definition"
                builder.unresolved_site(Unresolved(caller, site, reason, name, call.text))


def _commands(indexes: Sequence[FileIndex]) -> dict[str, list[tuple[str, str]]]:
    """Function name -> (path, key) of each Rust function marked as a Tauri command."""
    found: dict[str, list[tuple[str, str]]] = {}
    for index in indexes:
        if index.language != "rust":
            continue
        bare = any(i.module == "tauri" and i.name == "command" for i in index.imports)
        for d in index.definitions:
            if d.kind != "function" or "." in d.qualname:
                continue
            marked = any(text == "tauri::command" or (bare and text == "command") for text in d.decorators)
            if marked:
                found.setdefault(d.name, []).append((index.path, keys.first_party(index.path, d.qualname)))
    return found


def _command_for(entry: str, path: str, commands: dict[str, list[tuple[str, str]]]) -> str | None:
    """The key of the marked function a handler-list entry (``greet``, ``notes::save``) names:
    the one of that name in the module the path gives (the registering file for a bare name), or
    the only one of that name."""
    head, _, name = entry.rpartition("::")
    candidates = commands.get(name, [])
    if not candidates:
        return None
    module = head.rpartition("::")[2] if head and head not in ("crate", "self", "super") else ""
    if module:
        exact = [key for where, key in candidates if _module_name(where) == module]
    else:
        exact = [key for where, key in candidates if where == path]
    if len(exact) == 1:
        return exact[0]
    return candidates[0][1] if len(candidates) == 1 else None


def _module_name(path: str) -> str:
    p = PurePosixPath(path)
    return p.parent.name if p.stem == "mod" else p.stem


def _caller(index: FileIndex, scope: str) -> str:
    """The key of the innermost definition of a file that holds ``scope`` (the file's own when none)."""
    scopes = {d.qualname for d in index.definitions}
    current = scope
    while current:
        if current in scopes:
            return keys.first_party(index.path, current)
        current = current.rpartition(".")[0]
    return index.path


def _invoke_names(index: FileIndex) -> tuple[str, ...]:
    """The local names (or ``ns.invoke`` texts) that are Tauri's invoke in a JS file."""
    found = list(_GLOBAL_INVOKE)
    tauri = False
    for imp in index.imports:
        if imp.module not in _INVOKE_MODULES:
            continue
        tauri = True
        if imp.name == "invoke" and imp.bound:
            found.append(imp.bound)
        elif imp.name is None and imp.bound:  # import * as core
            found.append(f"{imp.bound}.invoke")
    if not tauri and "__TAURI__" not in "".join(c.text for c in index.calls):
        return ()
    return tuple(found)


_LITERAL = re.compile(r"""\s*(?:<[^()]*>)?\s*\(\s*(?:(['"])([^'"\\]*)\1|`([^`$\\]*)`)?""")


def _invoked(call: Call, names: tuple[str, ...]) -> str | None:
    """The command name an invoke call passes ("" when it is not a literal), or None when the call
    is no Tauri invoke."""
    text = call.text
    if text.startswith("await "):
        text = text[6:].lstrip()
    for name in names:
        if call.callee != name and not (call.callee.startswith("<") and text.startswith(name)):
            continue
        if not text.startswith(name):
            return None
        match = _LITERAL.match(text, len(name))
        if match is None:
            return None
        literal = match.group(2) if match.group(1) else match.group(3)
        return literal if literal is not None else ""
    return None
