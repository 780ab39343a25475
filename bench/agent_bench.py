"""Agent benchmark: 20 questions an agent asks about Django 5.1, each answered through the MCP
server by the official SDK's stdio client, as an agent client would: the characters each answer
returns (what the agent pays for) and its latency, first call and median of the repeats.

    python bench/agent_bench.py [--project PATH] [--repeat 3] [--json OUT]

``--project`` is an indexed Django checkout (``projectgraph index PATH``); without it the corpus of
``bench/query_bench.py`` (bench/.corpus/Django-5.1, /tmp/corpus/Django-5.1 or PyPI) is indexed in
place when it has no index. One server serves every call, so the store and the caches it keeps
(the graph for reach, the unresolved sites for the uncertain callers) are loaded by the first
calls that need them: the median of the repeats is the open-store latency.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
CLI = Path(sys.executable).with_name("projectgraph")

QUESTIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("where is the URL resolver", "search_code", {"query": "url resolver"}),
    ("which symbol is get_resolver", "code_symbol", {"name": "get_resolver"}),
    ("who calls get_resolver", "code_callers", {"symbol_id": "django/urls/resolvers.py//get_resolver"}),
    (
        "what does get_response call",
        "code_callees",
        {"symbol_id": "django/core/handlers/base.py//BaseHandler//get_response"},
    ),
    (
        "what breaks if I change get_resolver",
        "code_impact",
        {"symbol_id": "django/urls/resolvers.py//get_resolver", "depth": 3},
    ),
    (
        "what breaks if I change QuerySet.filter (summary)",
        "code_impact",
        {"symbol_id": "django/db/models/query.py//QuerySet//filter", "detail": "summary"},
    ),
    ("does code that runs reach pickle.loads", "code_reach", {"targets": ["pickle//loads"]}),
    ("does code that runs reach subprocess.run", "code_reach", {"targets": ["subprocess//run"]}),
    (
        "how does a request get to the resolver",
        "code_path",
        {
            "from": "django/core/handlers/base.py//BaseHandler//get_response",
            "to": "django/urls/resolvers.py//get_resolver",
        },
    ),
    ("how are templates rendered", "explore", {"query": "template render"}),
    (
        "who calls QuerySet.filter",
        "code_callers",
        {"symbol_id": "django/db/models/query.py//QuerySet//filter"},
    ),
    (
        "what depends on cached_property",
        "code_impact",
        {"symbol_id": "django/utils/functional.py//cached_property"},
    ),
    ("where is timezone.now tested", "code_callers", {"symbol_id": "django/utils/timezone.py//now"}),
    ("where are passwords hashed", "search_code", {"query": "password hasher"}),
    ("how is the CSRF token checked", "explore", {"query": "csrf token check"}),
    (
        "what does Template.render call",
        "code_callees",
        {"symbol_id": "django/template/base.py//Template//render"},
    ),
    (
        "what breaks if I change HttpResponse",
        "code_impact",
        {"symbol_id": "django/http/response.py//HttpResponse"},
    ),
    ("does code that runs reach os.system", "code_reach", {"targets": ["os//system"]}),
    (
        "who calls make_password",
        "code_callers",
        {"symbol_id": "django/contrib/auth/hashers.py//make_password"},
    ),
    ("is the index current", "index_status", {}),
]


def project_path(given: str | None) -> Path:
    if given:
        return Path(given).resolve()
    sys.path.insert(0, str(HERE))
    from query_bench import corpus_path

    root = corpus_path(None)
    if not (root / ".projectgraph" / "graph.db").is_file():
        subprocess.run([str(CLI), "index", str(root)], check=True)
    return root


async def ask(root: Path, repeat: int) -> list[dict[str, Any]]:
    params = StdioServerParameters(command=str(CLI), args=["serve", "--mcp", str(root)], cwd=str(root))
    rows = []
    with open("/dev/null", "w") as log:
        async with Client(stdio_client(params, errlog=log), read_timeout_seconds=600) as client:
            for question, tool, arguments in QUESTIONS:
                times, size, error = [], 0, ""
                for _ in range(repeat):
                    started = time.perf_counter()
                    result = await client.call_tool(tool, arguments)
                    times.append((time.perf_counter() - started) * 1000)
                    text = "".join(getattr(c, "text", "") for c in result.content)
                    size, error = len(text), text[:80] if result.is_error else ""
                rows.append(
                    {
                        "question": question,
                        "tool": tool,
                        "chars": size,
                        "first_ms": round(times[0], 1),
                        "median_ms": round(statistics.median(times[1:] or times), 1),
                        "error": error,
                    }
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    options = parser.parse_args()
    root = project_path(options.project)
    rows = anyio.run(ask, root, max(options.repeat, 1))
    for row in rows:
        flag = f"  ERROR {row['error']}" if row["error"] else ""
        print(
            f"{row['chars']:>7} chars {row['first_ms']:>9.1f} ms first {row['median_ms']:>8.1f} ms median"
            f"  {row['tool']:<13} {row['question']}{flag}"
        )
    sizes = [r["chars"] for r in rows]
    medians = [r["median_ms"] for r in rows]
    print(
        f"median answer {statistics.median(sizes):.0f} chars, largest {max(sizes)}; "
        f"median latency {statistics.median(medians):.1f} ms, slowest {max(medians):.1f} ms"
    )
    if options.json:
        Path(options.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
