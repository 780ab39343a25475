"""A function that is never called is not-found, not uncertain, where the tool knows nothing can
call it: its name occurs nowhere else (``reach.unmentioned``). Each program of
``tests/never_called/`` runs under a profile first, so the answer is checked against what runs:
the never-called function never runs, the one named only by a subscript store does (and stays
uncertain: a call of an unknown value may be a call of it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

CASES = Path(__file__).parent / "never_called"
# case folder -> (the function asked about, whether the program calls it)
ASKED = {
    "never_called_registry": ("legacy_rounding", False),
    "never_called_dispatch": ("cmd_old_migrate", False),
    "never_called_events": ("dump_listener_table", False),
    "never_called_retry": ("format_backoff", False),
    "never_called_pipeline": ("deprecated_normalize", False),
    "mentioned_by_subscript": ("hidden_handler", True),
}

PROFILE = r"""
import json, runpy, sys
called = set()
def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_filename == sys.argv[1]:
        called.add(frame.f_code.co_name)
sys.setprofile(profile)
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
finally:
    sys.setprofile(None)
print(json.dumps(sorted(called)))
"""


def run_program(main: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROFILE, str(main)], capture_output=True, text=True, timeout=120, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("case", sorted(ASKED))
def test_reach_of_the_function_matches_what_runs(case: str, tmp_path: Path) -> None:
    project = tmp_path / case
    shutil.copytree(CASES / case, project)
    name, runs = ASKED[case]
    assert (name in run_program(project / "main.py")) is runs
    graph = build_graph(project, IndexOptions(workers=1)).graph
    [result] = reach(graph, Query(targets=(Target.by_key(f"main.py//{name}"),)))
    # the program makes calls the linker cannot resolve: without the completeness check every
    # target would be uncertain
    assert any(u.reason.startswith("computed-name") for u in graph.unresolved), case
    assert result.status == ("uncertain" if runs else "not-found"), (case, result)


def test_a_word_that_takes_values_by_a_computed_name_keeps_it_uncertain(tmp_path: Path) -> None:
    """``globals()`` can hand out any function of the module: no claim then."""
    project = tmp_path / "p"
    shutil.copytree(CASES / "never_called_dispatch", project)
    main = project / "main.py"
    main.write_text(main.read_text() + "\n\ndef lookup(name):\n    return globals()[name]\n")
    graph = build_graph(project, IndexOptions(workers=1)).graph
    [result] = reach(graph, Query(targets=(Target.by_key("main.py//cmd_old_migrate"),)))
    assert result.status == "uncertain"


def test_a_name_in_a_string_or_a_decorated_function_is_not_claimed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(CASES / "never_called_registry", project)
    main = project / "main.py"
    text = main.read_text()
    # another module names the function in a string (a settings file a framework imports from)
    (project / "settings.py").write_text('ROUNDING = "main.legacy_rounding"\n')
    graph = build_graph(project, IndexOptions(workers=1)).graph
    [named] = reach(graph, Query(targets=(Target.by_key("main.py//legacy_rounding"),)))
    assert named.status == "uncertain"
    (project / "settings.py").unlink()
    main.write_text(text.replace("def legacy_rounding", "@staticmethod\ndef legacy_rounding"))
    graph = build_graph(project, IndexOptions(workers=1)).graph
    [decorated] = reach(graph, Query(targets=(Target.by_key("main.py//legacy_rounding"),)))
    assert decorated.status == "uncertain"
