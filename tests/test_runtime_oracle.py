"""The runtime oracle of bench/python_runtime_oracle.py: a package's test suite under the profiler,
its executed first-party call edges classified against the graph (edge, unresolved site, silent).

The fast test runs it on a small package written here, whose three calls are one of each class; the
slow one on a real sdist (markupsafe, from PyPI by pip; skipped when pip cannot fetch it).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph

BENCH = Path(__file__).resolve().parent.parent / "bench" / "python_runtime_oracle.py"


def _oracle() -> object:
    spec = importlib.util.spec_from_file_location("python_runtime_oracle", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PACKAGE = {
    "src/tiny/__init__.py": "",
    "src/tiny/core.py": (
        "class Money:\n"
        "    def __init__(self, cents):\n"
        "        self.cents = cents\n"
        "\n"
        "    def __add__(self, other):\n"
        "        return Money(self.cents + other.cents)\n"
        "\n"
        "\n"
        "def double(money):\n"
        "    return money + money\n"
        "\n"
        "\n"
        "def apply(fn, value):\n"
        "    return fn(value)\n"
        "\n"
        "\n"
        "class Proxy:\n"
        "    def __getattr__(self, name):\n"
        "        return name\n"
        "\n"
        "\n"
        "def peek(proxy):\n"
        "    return proxy.anything\n"
        "\n"
        "\n"
        "class Bag:\n"
        "    def items(self):\n"
        "        yield 1\n"
        "\n"
        "    def __iter__(self):\n"
        "        return self.items()\n"
        "\n"
        "\n"
        "def first(bag: Bag):\n"
        "    for x in bag:\n"
        "        return x\n"
    ),
    "tests/test_core.py": (
        "from tiny.core import Bag, Money, Proxy, apply, double, first, peek\n"
        "\n"
        "\n"
        "def test_double():\n"
        "    assert double(Money(2)).cents == 4\n"
        "\n"
        "\n"
        "def test_apply():\n"
        "    assert apply(double, Money(1)).cents == 2\n"
        "\n"
        "\n"
        "def test_peek():\n"
        "    assert peek(Proxy()) == 'anything'\n"
        "\n"
        "\n"
        "def test_first():\n"
        "    assert first(Bag()) == 1\n"
    ),
}


def test_a_small_package_is_classified(tmp_path: Path) -> None:
    oracle = _oracle()
    root = tmp_path / "tiny-1.0"
    for name, text in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    out = tmp_path / "edges.json"
    oracle.run_tests(root, out)  # type: ignore[attr-defined]
    raw = json.loads(out.read_text(encoding="utf-8"))
    graph = build_graph(root, IndexOptions(workers=1)).graph
    generators = json.loads(Path(f"{out}.generators").read_text(encoding="utf-8"))
    result = oracle.classify(graph, raw, generators)  # type: ignore[attr-defined]
    pairs = result["pairs"]
    core = "src/tiny/core.py"
    edge = ("tests/test_core.py//test_double", f"{core}//double")
    site = (f"{core}//apply", f"{core}//double")  # fn(value): a parameter the graph binds to double
    # an operator on a parameter: the instance the test passes binds it
    operator = (f"{core}//double", f"{core}//Money//__add__")
    silent = (f"{core}//peek", f"{core}//Proxy//__getattr__")  # a plain attribute read: no site
    assert edge in pairs["edge"]
    assert operator in pairs["edge"]
    assert silent in pairs["silent"]
    assert site in pairs["edge"] + pairs["site"]
    # a generator's body first runs in its consumer (first's for loop), which the tracer sees as its
    # caller; the graph's edge is from __iter__, which made it and which first called: resumed
    resumed = (f"{core}//first", f"{core}//Bag//items")
    assert resumed in result["resumed"] and resumed in pairs["edge"]
    assert (f"{core}//Bag//__iter__", f"{core}//Bag//items") not in pairs["edge"]  # never its caller
    # the thread-free run records the constructor from both tests
    assert ("tests/test_core.py//test_apply", f"{core}//Money//__init__") in pairs["edge"]


@pytest.mark.slow
def test_markupsafe_runtime_oracle(tmp_path: Path) -> None:
    """markupsafe's own tests: the share of executed edges that are graph edges stays above the
    share measured when the oracle landed, and silent misses stay below."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--json", str(tmp_path / "r.json"), "markupsafe==3.0.2"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0 and "pip" in done.stderr:
        pytest.skip(f"the sdist could not be fetched: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    [counts] = [entry["counts"] for entry in report.values()]
    executed = sum(counts.values())
    assert executed >= 80
    assert counts["edge"] / executed >= 0.64
    assert counts["silent"] / executed <= 0.34
