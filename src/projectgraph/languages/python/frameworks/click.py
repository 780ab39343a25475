"""click and Typer: a group runs the subcommands registered on it.

``@cli.command()`` / ``@cli.group()`` where ``cli`` is a first-party function decorated as a click
group (``@click.group()``, or a group of a group), and ``cli.add_command(cmd)``: a
``click-command`` edge from the group to the command. ``@app.command()`` on a ``typer.Typer()``
instance: a ``typer-command`` edge from the scope the decorator runs in. The commands themselves
are roots (rules.yaml ``click-commands``, ``typer-commands``).
"""

from __future__ import annotations

from projectgraph.graph import Site
from projectgraph.languages.python.frameworks import (
    FileContext,
    arguments,
    decorated,
    dotted,
    ext_key,
    under,
)

_MAX_NESTING = 5


def resolve(ctx: FileContext) -> None:
    for info, d, call in decorated(ctx):
        if call.name not in ("command", "group", "callback") or not call.receiver:
            continue
        if call.receiver.startswith("<"):
            continue
        scope = ctx.definition_scope(d)
        receiver = ctx.value(scope, call.receiver, call.line)
        site = Site(ctx.path, call.line, call.column)
        if under(ext_key(receiver), "typer"):
            ctx.edge(ctx.caller(scope), info.key, "typer-command", site)
        elif receiver is not None and receiver.kind == "def" and is_group(ctx, receiver.key, 0):
            ctx.edge(receiver.key, info.key, "click-command", site)
    for call in ctx.pyfile.index.calls:
        if call.name != "add_command" or not call.receiver or call.receiver.startswith("<"):
            continue
        group = ctx.value(call.scope, call.receiver, call.line)
        if group is None or group.kind != "def" or not is_group(ctx, group.key, 0):
            continue
        args = arguments(call)
        node, shown = args.get(0, "cmd") if args is not None else (None, False)
        name = dotted(node)
        command = ctx.value(call.scope, name, call.line) if name else None
        site = Site(ctx.path, call.line, call.column)
        if command is not None and command.kind == "def":
            ctx.edge(group.key, command.key, "click-command", site)
        elif not (command is not None and command.kind == "ext"):
            ctx.unresolved(group.key, site, "computed-name" if shown else "limit", call.text)


def is_group(ctx: FileContext, key: str, depth: int) -> bool:
    """Whether a first-party function is a click group: decorated ``@click.group()`` (resolved in
    its own file to click's API), or ``@g.group()`` of such a group."""
    if depth > _MAX_NESTING:
        return False
    found = ctx.defined_in(key)
    if found is None or not found[0].is_callable:
        return False
    info, pyfile, scope = found
    d = info.definition
    for text in d.decorators:
        if text.rpartition(".")[2] != "group" or not all(p.isidentifier() for p in text.split(".")):
            continue
        if under(ext_key(ctx.linker._resolve_dotted(pyfile, scope, text, d.line)), "click"):
            return True
        receiver = text.rpartition(".")[0]
        if receiver:
            outer = ctx.linker._resolve_dotted(pyfile, scope, receiver, d.line)
            if outer is not None and outer.kind == "def" and is_group(ctx, outer.key, depth + 1):
                return True
    return False
