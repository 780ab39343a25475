"""Entry points in the configuration (the seed's vet paragraph): ``sources`` and ``sources_only`` in
``[tool.projectgraph]`` of pyproject.toml or in projectgraph.toml, the repeatable ``--source`` and
``--sources-only``; an unknown source or sources-only with none is a configuration error (exit 2,
named) before any query runs. Real subprocesses on a small library whose rules find no root."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

CLI = Path(sys.executable).with_name("projectgraph")

LIBRARY = {
    "lib/__init__.py": "",
    "lib/core.py": (
        "\n\n\n\n"
        "def entry(cmd):\n    return helper(cmd)\n\n\n"
        "def helper(cmd):\n    return print(cmd)\n\n\n"
        "def unused(data):\n    return sorted(data)\n"
    ),
}


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args, "--project", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=120,
    )


def test_configured_sources_replace_the_root_fallback(make_project: Callable[..., Path]) -> None:
    root = make_project(LIBRARY)
    fallback = run(root, "reach", "builtins//sorted")
    # no root rule matches: every exported definition is a root, unused too
    assert (fallback.returncode, fallback.stdout) == (
        0,
        "builtins//sorted: found\n  lib/core.py:14 -> builtins//sorted\n",
    )
    config = '[tool.projectgraph]\nsources = ["lib/core.py:entry"]\nsources_only = true\n'
    (root / "pyproject.toml").write_text('[project]\nname = "lib"\n\n' + config, encoding="utf-8")
    done = run(root, "reach", "builtins//print", "builtins//sorted")
    assert done.returncode == 1, done.stderr
    assert done.stdout == (
        "builtins//print: found\n"
        "  lib/core.py//entry (query) -> lib/core.py:6 -> lib/core.py:10 -> builtins//print\n"
        "builtins//sorted: not-found\n"
    )
    # a flag adds a source to the configuration's
    both = run(root, "reach", "builtins//sorted", "--source", "lib/core.py:unused")
    assert both.returncode == 0 and both.stdout.startswith("builtins//sorted: found\n")


def test_projectgraph_toml_and_flags_agree(make_project: Callable[..., Path]) -> None:
    root = make_project({**LIBRARY, "projectgraph.toml": 'sources = ["lib/core.py//helper"]\n'})
    done = run(root, "reach", "builtins//print", "--sources-only")
    assert (done.returncode, done.stdout) == (
        0,
        "builtins//print: found\n  lib/core.py//helper (query) -> lib/core.py:10 -> builtins//print\n",
    )
    flag = run(root, "reach", "builtins//print", "--source", "lib/core.py:helper", "--sources-only")
    assert flag.stdout == done.stdout


def test_an_unknown_source_is_a_configuration_error_before_the_query(
    make_project: Callable[..., Path],
) -> None:
    root = make_project(
        {**LIBRARY, "projectgraph.toml": 'sources = ["lib/core.py:entry", "lib/core.py:entyr"]\n'}
    )
    done = run(root, "reach", "builtins//print")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"projectgraph: unknown source(s): lib/core.py//entyr (from {root / 'projectgraph.toml'}: sources: "
        "'lib/core.py:entyr'): a source must name a first-party definition or module\n"
    )
    flag = run(root, "reach", "builtins//print", "--source", "builtins//print")  # an external key
    assert flag.returncode == 2 and "builtins//print (from --source 'builtins//print')" in flag.stderr


def test_sources_only_with_no_source_exits_2(make_project: Callable[..., Path]) -> None:
    root = make_project(LIBRARY)
    done = run(root, "reach", "builtins//print", "--sources-only")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "projectgraph: --sources-only needs at least one source (--source, or sources in the configuration)\n"
    )
    (root / "projectgraph.toml").write_text("sources_only = true\n", encoding="utf-8")
    done = run(root, "reach", "builtins//print")
    assert done.returncode == 2
    assert f"{root / 'projectgraph.toml'}: sources_only = true needs at least one source" in done.stderr
    (root / "projectgraph.toml").write_text('sources_only = "yes"\n', encoding="utf-8")
    done = run(root, "reach", "builtins//print")
    assert done.returncode == 2 and "'sources_only' must be true or false" in done.stderr
