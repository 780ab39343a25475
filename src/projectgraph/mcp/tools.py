"""The MCP tools: fixed names, their arguments, and each one's answer from the query engine.

Every tool is a thin call of ``QueryEngine`` (or ``reach``) on the stored graph, the same calls the
CLI makes, so an answer has the CLI's ``--json`` shape; the working-copy check then adds
``staleOmitted``, ``notes`` and per-item ``stale`` marks (``workingcopy.py``), and ``project`` says
which project answered. A symbol id is a node key as ``search_code`` and ``code_symbol`` return it
(``shop/catalog.py//load_catalog``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from projectgraph import summary
from projectgraph.keys import KeyError_
from projectgraph.mcp.arguments import BOOLEAN, INTEGER, STRING, STRINGS, Param, input_schema
from projectgraph.mcp.projects import ServedProject
from projectgraph.mcp.workingcopy import WorkingCopyCheck
from projectgraph.query import MAX_DEPTH, QueryError, answers
from projectgraph.query.search import MODES
from projectgraph.reach import SOURCES_AND_ROOTS, SOURCES_ONLY, Query, ReachError, Source, Target, reach

MAX_TARGETS = 200
"""Targets (and sources) per code_reach call: 20,000 targets held the server 37 s (issue 24)."""

PROJECT = Param(
    "project_path",
    STRING,
    "The root folder of another indexed project to read (absolute, or relative to the server's "
    "project). Default: the project the server was started on. A folder that was never indexed "
    "is refused.",
)
SYMBOL_ID = (
    "The symbol: its key as search_code or code_symbol return it (e.g. 'app/handlers.py//Parser//parse'); "
    "'path:Qualified.name', a qualified name or a bare name also work when they name exactly one "
    "symbol (else the error lists the candidates)."
)
LIMIT = "At most this many results (the answer says when more exist: total, truncated)."
PAGE_LIMIT = f"Entries per page (default {answers.PAGE} at detail normal, all at full)."
DETAIL = Param(
    "detail",
    STRING,
    "summary (counts, top entries), normal (and one page) or full (every entry).",
    default="normal",
    choices=answers.DETAILS,
)
CURSOR = Param("cursor", STRING, "nextCursor of the previous page.")
# a symbol's callers or callees, a page at a time
_NEIGHBOUR_PARAMS = (
    Param("symbol_id", STRING, SYMBOL_ID, True),
    Param("limit", INTEGER, PAGE_LIMIT, minimum=1, maximum=1000),
    CURSOR,
    DETAIL,
)


class ToolError(ValueError):
    """A call that cannot be answered as asked; its message goes back to the agent."""


Run = Callable[[ServedProject, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    run: Run

    @property
    def all_params(self) -> tuple[Param, ...]:
        return (*self.params, PROJECT)

    def schema(self) -> dict[str, Any]:
        return input_schema(self.all_params)


def _check(served: ServedProject) -> WorkingCopyCheck:
    return WorkingCopyCheck(served.root, served.stamps())


def _node_path(served: ServedProject, key: str) -> str | None:
    try:
        path = served.engine.resolve(key)[5]
    except QueryError:
        return None
    return path if isinstance(path, str) else None


# ---- the tools ----------------------------------------------------------------------------------
def search_code(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.search(args["query"], args["mode"], args["limit"])
    check = _check(served)
    return check.finish(answer | {"results": check.symbols(answer["results"])})


def code_symbol(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.symbol(args["name"])
    check = _check(served)
    return check.finish(answer | {"results": check.symbols(answer["results"])})


def _neighbours(direction: str) -> Run:
    def run(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
        engine = served.engine
        ask = engine.callers if direction == "in" else engine.callees
        # every neighbour first, so the pages are of the ones left after the check
        answer = ask(args["symbol_id"], sys.maxsize)
        check = _check(served)
        check.subject(answer["symbol"], _node_path(served, answer["symbol"]))
        answer = answer | {"results": check.symbols(answer["results"], "path", "site")}
        if "uncertain" in answer:
            answer["uncertain"] = _checked_uncertain(check, answer["uncertain"], sys.maxsize)
        try:
            shaped = answers.neighbours(answer, args["detail"], args["limit"], args["cursor"])
        except answers.CursorError as error:
            raise ToolError(f"code_{'callers' if direction == 'in' else 'callees'}: {error}") from error
        return check.finish(shaped)

    return run


def _checked_uncertain(check: WorkingCopyCheck, uncertain: dict[str, Any], limit: int) -> dict[str, Any]:
    """Uncertain callers without those in gone files, capped after the check (totals recounted)."""
    kept = check.symbols(uncertain["results"], "site")
    tally: dict[str, int] = {}
    for u in kept:
        tally[u["rule"]] = tally.get(u["rule"], 0) + 1
    counts = {rule: tally[rule] for rule in uncertain["counts"] if rule in tally}
    return {"total": len(kept), "truncated": len(kept) > limit, "counts": counts, "results": kept[:limit]}


def code_impact(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.impact(
        args["symbol_id"], args["depth"], include_uncertain=args["include_uncertain"], limit=sys.maxsize
    )
    check = _check(served)
    root, *rest = answer["impacted"]
    check.subject(answer["root"], root["path"], "the impact root")
    impacted = [check.mark(root, root["path"]), *check.symbols(rest)]
    uncertain = _checked_uncertain(check, answer["uncertain"], sys.maxsize)
    answer = answer | {"impacted": impacted, "uncertain": uncertain}
    try:
        shaped = answers.impact(
            served.engine.connection,
            answer,
            args["detail"],
            args["limit"],
            args["cursor"],
            args["uncertain_limit"],
        )
    except answers.CursorError as error:
        raise ToolError(f"code_impact: {error}") from error
    return check.finish(shaped)


def code_path(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.path(args["from"], args["to"])
    check = _check(served)
    hops = [
        check.mark(hop, _node_path(served, hop["key"]), hop["site"] and hop["site"]["path"])
        for hop in answer["path"]
    ]
    if not answer["found"]:
        check.subject(answer["from"], _node_path(served, answer["from"]), "the start")
        check.subject(answer["to"], _node_path(served, answer["to"]), "the end")
    return check.finish(answer | {"path": hops})


def code_reach(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    if args["sources_only"] and not args["sources"]:
        raise ToolError("code_reach: sources_only needs at least one source")
    try:
        targets = tuple(Target.by_key(t) for t in args["targets"])
    except KeyError_ as error:
        raise ToolError(f"code_reach: {error}") from error
    graph = served.graph()
    if args["summaries"]:  # as `projectgraph reach --summaries`
        connection = served.project.store.connection
        graph = summary.join(graph, summary.stored_for(connection, served.root, graph))
    query = Query(
        targets=targets,
        sources=tuple(Source.parse(s) for s in args["sources"]),
        mode=SOURCES_ONLY if args["sources_only"] else SOURCES_AND_ROOTS,
        max_depth=args["max_depth"],
    )
    try:
        results = reach(graph, query)
    except ReachError as error:
        raise ToolError(f"code_reach: {error}") from error
    nodes = graph.node_by_key  # kept by the graph: no per-call map of every node
    check = _check(served)
    answers = []
    for result in results:
        data = result.to_json()
        data["path"] = [
            check.mark(hop, (n := nodes.get(hop["key"])) and n.path, hop["site"] and hop["site"]["path"])
            for hop in data["path"]
        ]
        data["sites"] = check.symbols(data["sites"])
        data["uncertainties"] = [
            check.mark(u, u["site"] and u["site"]["path"]) for u in data["uncertainties"]
        ]
        answers.append(data)
    return check.finish({"results": answers})


def explore(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.explore(args["query"], served.root, args["limit"])
    check = _check(served)
    return check.finish(answer | {"symbols": check.symbols(answer["symbols"])})


def code_changes(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    answer = served.engine.changes(served.root, args["base"], args["staged"], args["depth"], args["limit"])
    check = _check(served)
    return check.finish(answer | {"symbols": [check.mark(s, s["path"]) for s in answer["symbols"]]})


def index_status(served: ServedProject, args: dict[str, Any]) -> dict[str, Any]:
    run = served.last_run()
    stamps = served.stamps()
    statuses: dict[str, int] = {}
    for _size, _mtime, status in stamps.values():
        statuses[status] = statuses.get(status, 0) + 1
    changes = served.project.file_changes()
    listed = args["list_limit"]
    staleness = {
        "stale": bool(changes),
        "added": len(changes.added),
        "removed": len(changes.removed),
        "changed": len(changes.changed),
        "paths": {
            "added": list(changes.added[:listed]),
            "removed": list(changes.removed[:listed]),
            "changed": list(changes.changed[:listed]),
        },
        "note": (
            "the stored graph is older than the working copy; answers leave out symbols of removed "
            "files (staleOmitted) and mark those of changed files stale; run `projectgraph index` "
            "to refresh it"
            if changes
            else "the stored graph matches the working copy"
        ),
    }
    stats = run["stats"] if run else {}
    return {
        "indexed": True,
        "files": len(stamps),
        "statuses": dict(sorted(statuses.items())),
        "graph": {k: stats.get(k) for k in ("nodes", "edges", "unresolved", "roots", "root_fallback")},
        "lastRun": {k: run[k] for k in ("id", "started", "finished", "versions", "error")} if run else None,
        "staleness": staleness,
    }


TOOLS: tuple[Tool, ...] = (
    Tool(
        "search_code",
        "Search symbols",
        "Find symbols (functions, methods, classes, modules) by words of their names, qualified "
        "names, signatures and doc comments (BM25; names are split on case and underscores). Each "
        "result has the symbol's key, name, qualname, kind, path, line, end_line and signature; pass "
        "the key as symbol_id to the other tools. Use code_symbol instead when you know the exact name.",
        (
            Param(
                "query",
                STRING,
                "Words to look for, e.g. 'load catalog' or 'authentication middleware'.",
                True,
            ),
            Param(
                "mode",
                STRING,
                "keyword (BM25), semantic (embeddings: needs the optional semantic extra, else the answer "
                "is empty and says so) or hybrid (both fused; keyword only without the extra, as the "
                "answer's 'semantic' field says).",
                default="hybrid",
                choices=MODES,
            ),
            Param("limit", INTEGER, LIMIT, default=10, minimum=1, maximum=500),
        ),
        search_code,
    ),
    Tool(
        "code_symbol",
        "Look a symbol up by name",
        "Every symbol whose name, qualified name ('Parser.parse') or key is exactly NAME, with its "
        "key, kind, path, lines and signature.",
        (Param("name", STRING, "The exact name, qualified name or key.", True),),
        code_symbol,
    ),
    Tool(
        "code_callers",
        "Callers of a symbol",
        "Symbols with an edge into this one, strongest first (relation, kind, confidence, line), "
        "counted by file; uncertain callers (unresolved calls of its name, uses as a value, dynamic "
        "code) with site, reason, rule; status callers|callers-unknown|entry-point|no-caller.",
        _NEIGHBOUR_PARAMS,
        _neighbours("in"),
    ),
    Tool(
        "code_callees",
        "Callees of a symbol",
        "Symbols this one has an edge to (calls, imports, extends, references), strongest first, "
        "with relation, kind, confidence and line; counted by file.",
        _NEIGHBOUR_PARAMS,
        _neighbours("out"),
    ),
    Tool(
        "code_impact",
        "What a change would break",
        "What depends on a symbol along calls, extends, implements (not imports): counts by depth, "
        "file and test file, top entries, then a page of impacted ranked by depth then fan-in "
        "(the root at depth 0); uncertain callers with site, reason, rule; status. Run it before "
        "a rename or a signature change.",
        (
            Param("symbol_id", STRING, SYMBOL_ID, True),
            Param(
                "depth",
                INTEGER,
                f"Hops to follow, 1 to {MAX_DEPTH}.",
                default=2,
                minimum=1,
                maximum=MAX_DEPTH,
            ),
            Param(
                "include_uncertain",
                BOOLEAN,
                "Walk the uncertain callers too (impacted items marked uncertain).",
                default=False,
            ),
            Param(
                "uncertain_limit",
                INTEGER,
                f"Uncertain callers listed (default {answers.UNCERTAIN_SHOWN}, 3 at summary, all at full).",
                minimum=0,
                maximum=1000,
            ),
            Param("limit", INTEGER, PAGE_LIMIT, minimum=1, maximum=1000),
            CURSOR,
            DETAIL,
        ),
        code_impact,
    ),
    Tool(
        "code_reach",
        "Does running code reach a symbol",
        "Does code that runs (entry points, or the sources) reach each target, e.g. 'yaml//load'? "
        "found (shortest path), not-found, uncertain (unresolved calls might: uncertainties, 3 per "
        "kind, with counts) or no-such-target; never not-found when unsure.",
        (
            Param(
                "targets",
                STRINGS,
                "Keys of the symbols to reach: external ones as the language writes the module, with // "
                "for its separator ('yaml//load', 'os//exec//Command'), '//*' for everything under a "
                "module ('pickle//*'), or first-party keys ('app/db.py//connect').",
                required=True,
                min_items=1,
                max_items=MAX_TARGETS,
            ),
            Param(
                "sources",
                STRINGS,
                "Entry points to search from as well as the roots: 'path:Qualified.name', a path (its "
                "module top level) or a key.",
                default=[],
                max_items=MAX_TARGETS,
            ),
            Param(
                "sources_only",
                BOOLEAN,
                "Search from the sources alone, not the project's roots (needs sources).",
                default=False,
            ),
            Param("max_depth", INTEGER, "Stop the search at this depth (0: no cap).", default=0, minimum=0),
            Param(
                "summaries",
                BOOLEAN,
                "Join calls into units the graph does not hold to their stored summaries.",
                default=False,
            ),
        ),
        code_reach,
    ),
    Tool(
        "code_path",
        "Shortest path between two symbols",
        "The shortest chain of calls, references and imports from one symbol to another, each hop "
        "with the edge kind, confidence and site; found is false when there is none in the graph.",
        (
            Param("from", STRING, "The start symbol. " + SYMBOL_ID, True),
            Param("to", STRING, "The end symbol, in the same forms.", True),
        ),
        code_path,
    ),
    Tool(
        "explore",
        "Explore a question",
        "The few symbols a question is about (search), each with signature, doc, a code excerpt, "
        "callers and callees (5 of each, with totals) and its class or bases: one call for a task.",
        (
            Param("query", STRING, "Words of the question, e.g. 'url resolver cache'.", True),
            Param("limit", INTEGER, "Symbols to show.", default=3, minimum=1, maximum=20),
        ),
        explore,
    ),
    Tool(
        "code_changes",
        "What a change touches",
        "The symbols the git diff changes (working tree or staged, against HEAD or base): added, "
        "removed, body-changed, signature-changed, moved, renamed (matched by body), each with its "
        "impact radius (impacted, byDepth, uncertain callers), the tests whose roots reach it, and "
        "for a removed or renamed one the calls of its old name still in the code.",
        (
            Param("base", STRING, "A git ref to compare with (default HEAD)."),
            Param("staged", BOOLEAN, "The staged changes instead of the working tree.", default=False),
            Param(
                "depth", INTEGER, f"Impact hops, 1 to {MAX_DEPTH}.", default=2, minimum=1, maximum=MAX_DEPTH
            ),
            Param("limit", INTEGER, LIMIT, default=20, minimum=1, maximum=1000),
        ),
        code_changes,
    ),
    Tool(
        "index_status",
        "Index status and staleness",
        "Files by index status, graph size, last run, and staleness against the working copy (files "
        "added, removed, changed). Answers come from the stored index, never refreshed here: when "
        "stale, symbols of removed files are left out (staleOmitted), of changed ones marked.",
        (
            Param(
                "list_limit",
                INTEGER,
                "At most this many paths listed for each of added, removed, changed.",
                default=20,
                minimum=0,
                maximum=1000,
            ),
        ),
        index_status,
    ),
)

BY_NAME = {tool.name: tool for tool in TOOLS}
