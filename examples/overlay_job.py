"""A minimal outside job that writes an overlay file: projectgraph never calls a model itself.

    projectgraph overlay sites --json > sites.json
    python examples/overlay_job.py sites.json > overlay.json [--choose PATH:LINE:COLUMN=CALLEE]...
    projectgraph overlay check overlay.json
    projectgraph reach yaml//load --overlay overlay.json

It reads the unresolved sites and answers each one it can, the way a model job would, but from a
rule and a person's choices instead of a model:

- the rule ``single-candidate``: a site whose name has exactly one candidate definition in the
  project (a first-party key: no ``//`` before the file's name ends in ``.py``, ``.js``, ...) calls it;
- ``--choose app/main.py:10:11=app/tools.py//Job//run``: a person's choice for one site, which wins.

Each edge records what decided it (``model``: ``rule:single-candidate`` or ``human``), the version of
the rule (``prompt_version``), the hash of the site record it read (``input_hash``, what a model job
would hash its prompt input with) and the decision as text (``raw_output``). A reviewer removes an
edge by deleting it from the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

PROMPT_VERSION = "rule-1"


def input_hash(site: dict[str, Any]) -> str:
    """The hash of the prompt input: the site record as canonical JSON."""
    text = json.dumps(site, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def first_party(key: str) -> bool:
    return not key.split("//", 1)[0].count(":") and "." in key.split("//", 1)[0]


def decide(site: dict[str, Any], chosen: dict[str, str]) -> tuple[str, str, str] | None:
    """(callee, model, raw output) for a site, or None when neither a person nor the rule answers."""
    where = site["site"]
    place = f"{where['path']}:{where['line']}:{where['column']}"
    if place in chosen:
        return chosen[place], "human", f"chosen for {place}: {chosen[place]}"
    own = [key for key in site["candidates"] if first_party(key)]
    if len(own) == 1 and site["candidates_total"] == len(site["candidates"]):
        return own[0], "rule:single-candidate", f"{site['name']}: the one definition of the name, {own[0]}"
    return None


def overlay(sites: list[dict[str, Any]], chosen: dict[str, str]) -> dict[str, Any]:
    edges = []
    for site in sites:
        decision = decide(site, chosen)
        if decision is None:
            continue
        callee, model, raw = decision
        edges.append(
            {
                "caller": site["caller"],
                "site": site["site"],
                "callee": callee,
                "kind": "llm",
                "confidence": "low",
                "model": model,
                "prompt_version": PROMPT_VERSION,
                "input_hash": input_hash(site),
                "raw_output": raw,
            }
        )
    return {"version": 1, "edges": edges}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="overlay_job", description=__doc__.split("\n")[0])
    parser.add_argument("sites", help="the output of `projectgraph overlay sites --json` (- for stdin)")
    parser.add_argument("--choose", action="append", default=[], metavar="PATH:LINE:COLUMN=CALLEE")
    args = parser.parse_args(argv)
    text = sys.stdin.read() if args.sites == "-" else Path(args.sites).read_text(encoding="utf-8")
    chosen: dict[str, str] = {}
    for choice in args.choose:
        place, sep, callee = choice.partition("=")
        if not sep or not callee or place.count(":") < 2:
            print(f"overlay_job: --choose wants PATH:LINE:COLUMN=CALLEE, not {choice!r}", file=sys.stderr)
            return 2
        chosen[place] = callee
    written = overlay(json.loads(text)["sites"], chosen)
    print(json.dumps(written, indent=1, sort_keys=True))
    print(f"overlay_job: {len(written['edges'])} edges", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
