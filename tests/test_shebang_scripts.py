"""Scripts with no extension are project code when their shebang names a language (issue 28), and
every listed file that no language claims is counted, so a user sees what was not read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.discover import discover, interpreter_map, script_language, shebang_interpreter
from projectgraph.languages import all_languages

CLI = Path(sys.executable).with_name("projectgraph")

PY_TOOL = (
    "#!/usr/bin/env python3\nimport os\nfrom util import run\ndef main():\n    run()\n"
    '    os.system(input())\nif __name__ == "__main__":\n    main()\n'
)
UTIL = "def run():\n    pass\n"
NODE_DEPLOY = (
    '#!/usr/bin/env -S node --no-warnings\r\nconst cp = require("child_process")\r\n'
    'function go() { cp.execSync("ls") }\r\ngo()\r\n'
)


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [str(CLI), *args, "--project", str(root)], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize(
    ("line", "interpreter"),
    [
        (b"#!/usr/bin/env python3\n", "python3"),
        (b"#!/usr/bin/env -S node --flag\n", "node"),
        (b"#! /usr/bin/env -i PATH=/bin ruby -w\n", "ruby"),
        (b"#!/usr/bin/python3.11\r\nprint(1)\r\n", "python3.11"),
        (b"#!/usr/local/bin/node", "node"),
        (b"#!/bin/sh -e\n", "sh"),
        (b"# not a shebang\n", None),
        (b"#!\n", None),
        (b"#!/usr/bin/env\n", None),
        (b"\x7fELF\x02\x01", None),
    ],
)
def test_the_interpreter_a_shebang_names(line: bytes, interpreter: str | None) -> None:
    assert shebang_interpreter(line) == interpreter


def test_interpreters_map_to_the_languages_that_declare_them() -> None:
    interpreters = interpreter_map(all_languages().values())
    assert script_language("python3", interpreters) == "python"
    assert script_language("python3.11", interpreters) == "python"
    assert script_language("pypy3", interpreters) == "python"
    assert script_language("node", interpreters) == "javascript"
    assert script_language("bun", interpreters) == "javascript"
    assert script_language("ruby", interpreters) == "ruby"
    assert script_language("php8.2", interpreters) == "php"
    assert script_language("bash", interpreters) is None
    assert script_language("3", interpreters) is None


def test_scripts_are_indexed_and_what_no_language_claims_is_counted(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "bin/tool": PY_TOOL,
            "bin/old": "#!/usr/bin/python3.11\r\nimport subprocess\r\nsubprocess.run(['x'])\r\n",
            "util.py": UTIL,
            "scripts/deploy": NODE_DEPLOY,
            "scripts/hello": "#!/bin/bash\necho hi\n",
            "blob": b"\x00\x01\x02\x03binary",
            "LICENSE": "MIT\n",
            "README.md": "# p\n",
            "notes.txt": "#!/usr/bin/env python3\nnot read: an extension, not executable\n",
        },
    )
    os.mkfifo(root / "pipe")  # never opened: reading it would block for ever
    found = discover(root, all_languages().values())
    assert {(f.path, f.language, f.flags) for f in found.files} == {
        ("bin/old", "python", ("script",)),
        ("bin/tool", "python", ("script",)),
        ("scripts/deploy", "javascript", ("script",)),
        ("util.py", "python", ()),
    }
    reasons = {e.path: e.reason for e in found.excluded}
    assert reasons["blob"] == "binary (no language)"
    assert reasons["scripts/hello"] == "script for bash (no language parses it)"
    assert dict(found.unclaimed) == {"": 4, ".md": 1, ".txt": 1}  # blob, hello, LICENSE, pipe

    done = cli(root, "index", str(root), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["files"] == 4
    assert summary["no_language"] == {"": 4, ".md": 1, ".txt": 1}
    text = cli(root, "index", str(root))
    assert "not read (no language): 6 files (no extension 4, .md 1, .txt 1)" in text.stdout
    status = cli(root, "status")
    assert "not read (no language): 6 files (no extension 4, .md 1, .txt 1)" in status.stdout
    assert json.loads(cli(root, "status", "--json").stdout)["no_language"] == {"": 4, ".md": 1, ".txt": 1}


def test_reach_from_a_script_root_finds_what_it_calls(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"bin/tool": PY_TOOL, "util.py": UTIL, "scripts/deploy": NODE_DEPLOY})
    done = cli(root, "reach", "os//system", "child_process//execSync", "--json")
    assert done.returncode == 0, done.stderr
    results = {r["target"]: r for r in json.loads(done.stdout)["results"]}
    assert results["os//system"]["status"] == "found"
    assert [hop["key"] for hop in results["os//system"]["path"]] == [
        "bin/tool",
        "bin/tool//main",
        "os//system",
    ]
    assert results["child_process//execSync"]["status"] == "found"
    assert results["child_process//execSync"]["path"][0]["key"] == "scripts/deploy"
    graph = json.loads(cli(root, "graph", "--json").stdout)
    roots = {(r["key"], r["rule"]) for r in graph["roots"]}
    assert {("bin/tool", "script"), ("bin/tool", "python-main-guard"), ("scripts/deploy", "script")} <= roots
    callers = json.loads(cli(root, "callers", "util.py//run", "--json").stdout)
    assert [c["key"] for c in callers["results"]] == ["bin/tool//main"]


def test_a_manifest_bin_entry_names_a_script_by_path(tmp_path: Path) -> None:
    deploy = NODE_DEPLOY.replace("go()\r\n", "")  # nothing at the top level calls go: only the entry
    root = write_tree(
        tmp_path / "p",
        {
            "scripts/deploy": deploy,
            "package.json": json.dumps(
                {"name": "p", "version": "1.0.0", "bin": {"deploy": "./scripts/deploy"}}
            ),
        },
    )
    graph = json.loads(cli(root, "graph", "--json").stdout)
    assert {"key": "scripts/deploy", "kind": "manifest", "rule": "manifest-entry-points"} in graph["roots"]
