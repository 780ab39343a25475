"""Viewer benchmark: `projectgraph ui` on Django 5.1 in a real browser (never run as a timed test).

    python bench/ui_bench.py [--corpus PATH] [--runs 5] [--no-units] [--keep] [--json OUT]

It copies the corpus (``bench/.corpus/Django-5.1``, fetched by ``bench/index_bench.py``) to a
scratch folder outside the repository, gives the copy a virtual environment with Django's own
dependencies (asgiref, sqlparse from PyPI: units of dependency code, as a real checkout has them;
``--no-units`` leaves them out), indexes it with ``projectgraph index`` and serves it with a real
``projectgraph ui --port 0`` process. Then Playwright drives Debian's chromium (headless, fresh
profile) and, for each of ``--runs`` fresh pages, measures what a person waits for:

- first paint: navigation to the first contentful paint, and to the page ready (status read and the
  view drawn), for the home page and for a deep link to a symbol page;
- a symbol page opened from the app (its three API calls and the drawing);
- expand: a click on a node's callers handle until the new nodes are drawn (the page's own timing,
  fetch + layout + SVG), two levels deep from symbols with many callers;
- impact at depth 3 and 6; reach of a target, first (the stored graph is read) and again (kept).

It prints the medians (and the max of the expands) and writes them with ``--json``. The targets of
issue 16: first paint < 1 s, expand < 200 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
SCRATCH = Path(tempfile.gettempdir()) / "projectgraph-ui-bench"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# symbols with many callers (the expand that costs most) and the reach target
SYMBOLS = (
    "django/utils/translation/__init__.py//gettext",
    "django/urls/base.py//reverse",
    "django/db/models/base.py//Model//save",
    "django/utils/functional.py//cached_property",
)
REACH_TARGET = "pickle//loads"
UNIT_PACKAGES = ("asgiref>=3.8.1,<4", "sqlparse>=0.3.1")


def _cli() -> str:
    return str(Path(sys.executable).with_name("projectgraph"))


def prepare(corpus: Path, units: bool, keep: bool) -> Path:
    """The indexed copy of the corpus (reused across runs of this script with ``--keep``)."""
    root = SCRATCH / (corpus.name + ("" if units else "-nounits"))
    if root.exists() and not (keep and (root / ".projectgraph" / "graph.db").is_file()):
        shutil.rmtree(root)
    if not root.exists():
        shutil.copytree(corpus, root, ignore=shutil.ignore_patterns(".projectgraph", "__pycache__"))
        if units:
            subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
            pip = [str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "--quiet"]
            subprocess.run([*pip, *UNIT_PACKAGES], check=True)
        started = time.monotonic()
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        done = subprocess.run([_cli(), "index", "--json"], cwd=root, capture_output=True, text=True, env=env)
        if done.returncode not in (0, 4):
            raise SystemExit(f"index failed ({done.returncode}): {done.stderr[-2000:]}")
        print(f"indexed {root} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return root


class Viewer:
    def __init__(self, root: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        self.process = subprocess.Popen(
            [_cli(), "ui", "--port", "0"], cwd=root, stderr=subprocess.PIPE, text=True, env=env
        )
        assert self.process.stderr is not None
        said = ""
        while "viewer of" not in said:
            line = self.process.stderr.readline()
            if not line:
                raise SystemExit(f"the viewer did not start: {said}")
            said += line
        found = re.search(r"http://127\.0\.0\.1:\d+/", said)
        assert found is not None, said
        self.url = found.group(0)

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        if self.process.stderr is not None:
            self.process.stderr.close()


def _ready(page: Any) -> None:
    page.wait_for_selector('body[data-ready="1"]', timeout=60_000)


def _paint(page: Any) -> dict[str, float]:
    return dict(
        page.evaluate(
            """() => {
              const paint = performance.getEntriesByName('first-contentful-paint')[0];
              return {fcp: paint ? paint.startTime : -1, ready: window.__pg.ready};
            }"""
        )
    )


def _last_view(page: Any, count: int) -> float:
    page.wait_for_function("n => window.__pg.views.length > n", arg=count, timeout=120_000)
    return float(page.evaluate("window.__pg.views[window.__pg.views.length - 1].ms"))


def _expand(page: Any, key: str) -> float | None:
    """Click the callers handle of the node ``key`` and wait until it is drawn: the page's timing."""
    handle = page.locator(f'#graph [data-node-key="{key}"] .handle[data-dir="in"]:not(.done)')
    if handle.count() == 0:
        return None
    before = int(page.evaluate("window.__pg.expands.length"))
    handle.first.click()
    page.wait_for_function("n => window.__pg.expands.length > n", arg=before, timeout=60_000)
    return float(page.evaluate("window.__pg.expands[window.__pg.expands.length - 1].ms"))


def _callers_drawn(page: Any, key: str, count: int) -> list[str]:
    """The first ``count`` callers of ``key`` the graph draws."""
    found = page.evaluate(
        "([key, count]) => [...document.querySelectorAll('#graph .edge')]"
        ".filter(e => e.dataset.to === key).map(e => e.dataset.from).slice(0, count)",
        [key, count],
    )
    return [str(k) for k in found]


def _go(page: Any, into: list[float], route: str) -> None:
    """Go to ``route`` in the app and record how long its view took to draw."""
    count = int(page.evaluate("window.__pg.views.length"))
    page.evaluate(f"location.hash = {json.dumps(route)}")
    into.append(_last_view(page, count))


def measure(viewer: Viewer, runs: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {
        k: []
        for k in (
            "home_fcp",
            "home_ready",
            "deep_fcp",
            "deep_ready",
            "symbol_view",
            "expand_level2",
            "expand_level3",
            "impact3",
            "impact6",
            "reach_first",
            "reach_again",
        )
    }
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1360, "height": 900},
        )
        try:
            for run in range(runs):
                page = context.new_page()
                page.goto(viewer.url)
                _ready(page)
                paint = _paint(page)
                out["home_fcp"].append(paint["fcp"])
                out["home_ready"].append(paint["ready"])
                page.close()

                key = SYMBOLS[run % len(SYMBOLS)]
                page = context.new_page()
                page.goto(viewer.url + "#/symbol/" + quote(key, safe=""))
                _ready(page)
                page.wait_for_selector("#graph svg", timeout=60_000)
                paint = _paint(page)
                out["deep_fcp"].append(paint["fcp"])
                out["deep_ready"].append(paint["ready"])

                for other in SYMBOLS:
                    if other == key:
                        continue
                    _go(page, out["symbol_view"], "#/symbol/" + quote(other, safe=""))
                    page.wait_for_selector("#graph svg")
                    # two levels: the callers of three callers, then of two of the first one's
                    level2 = _callers_drawn(page, other, 3)
                    for caller in level2:
                        ms = _expand(page, caller)
                        if ms is not None:
                            out["expand_level2"].append(ms)
                    for caller in _callers_drawn(page, level2[0], 2) if level2 else []:
                        ms = _expand(page, caller)
                        if ms is not None:
                            out["expand_level3"].append(ms)

                for depth, name in ((3, "impact3"), (6, "impact6")):
                    _go(page, out[name], f"#/impact/{quote(key, safe='')}?depth={depth}")
                for name in ("reach_first", "reach_again"):
                    if name == "reach_first" and run > 0:
                        continue  # the viewer keeps the graph it read for its first reach
                    _go(page, out[name], f"#/reach?target={quote(REACH_TARGET, safe='')}&n={run}-{name}")
                page.close()
        finally:
            context.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", help="a folder to serve instead of the Django sdist")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-units", action="store_true", help="no virtual environment, so no units")
    parser.add_argument("--keep", action="store_true", help="reuse the indexed copy of an earlier run")
    parser.add_argument("--json", dest="json_out", help="write the figures here")
    args = parser.parse_args()
    if args.corpus:
        corpus = Path(args.corpus).resolve()
    else:
        sys.path.insert(0, str(HERE))
        from index_bench import fetch_corpus

        corpus = fetch_corpus()
    root = prepare(corpus, units=not args.no_units, keep=args.keep)
    status = subprocess.run(
        [_cli(), "status", "--json"], cwd=root, capture_output=True, text=True, check=True
    )
    stats = json.loads(status.stdout)["last_run"]["stats"]
    viewer = Viewer(root)
    try:
        figures = measure(viewer, args.runs)
    finally:
        viewer.close()
    load = os.getloadavg()[0]
    print(
        f"{corpus.name}: {stats.get('files')} files, {stats.get('nodes')} nodes, {stats.get('edges')} edges, "
        f"{len(stats.get('units') or {})} units; {args.runs} runs; load {load:.1f}"
    )
    summary: dict[str, Any] = {
        "corpus": corpus.name,
        "stats": {k: stats.get(k) for k in ("files", "nodes", "edges")},
    }
    summary["units"] = sorted(stats.get("units") or {})
    summary["load"] = round(load, 2)
    for name, values in figures.items():
        if not values:
            continue
        median = statistics.median(values)
        summary[name] = {"median_ms": round(median, 1), "max_ms": round(max(values), 1), "n": len(values)}
        print(f"  {name:14} median {median:8.1f} ms   max {max(values):8.1f} ms   (n={len(values)})")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
