"""The Go runtime oracle on a real module (slow): golang.org/x/net/html's own tests, traced.

``bench/go_runtime_oracle.py`` runs the tests of Debian's ``golang-golang-x-net-dev`` copy of
``golang.org/x/net/html`` with every body recording its caller frame, and classifies each executed
first-party call edge as a graph edge, an unresolved site of its caller at the call's line, or a
silent miss. The module and the Go toolchain (``golang-1.19-go``) are Debian packages: without them
the test is skipped, and says which is missing.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from go_runtime_oracle import DEFAULT_MODULE, DEFAULT_PACKAGES, DEFAULT_SKIP, oracle

GO = shutil.which("go") or "/usr/lib/go-1.19/bin/go"


@pytest.mark.slow
def test_every_edge_x_net_html_executes_is_in_the_graph_or_uncertain() -> None:
    if not Path(GO).is_file():
        pytest.skip("no Go toolchain (apt-get install golang-1.19-go)")
    if not (DEFAULT_MODULE / "html").is_dir():
        pytest.skip("no golang.org/x/net sources (apt-get install golang-golang-x-net-dev)")
    report = oracle(DEFAULT_MODULE, list(DEFAULT_PACKAGES), list(DEFAULT_SKIP), GO)
    total = len(report["edge"]) + len(report["site"]) + len(report["silent"])
    assert total > 300, report["tested"]  # the tests ran and the trace holds their calls
    assert report["silent"] == []
    assert len(report["edge"]) / total > 0.85
    # a function literal's edges are its own: the deferred literal of readScript runs from it
    assert any(callee.startswith("html/token.go//Tokenizer//readScript$") for _, callee, _ in report["edge"])
