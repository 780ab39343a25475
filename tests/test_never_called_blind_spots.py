"""Where the never-called rule (``reach.unmentioned``) cannot see a name, it makes no claim.

Each case adds to ``never_called_registry`` a hook that the program runs and that calls
``legacy_rounding`` by a name the Python files do not hold whole: read from an .ini or a YAML file
and resolved by ``pkgutil.resolve_name``, read from a JSON file by ``logging.config.dictConfig``
(the lookup is in the standard library: no word of the project's says it), or looked up through an
alias of ``getattr`` or ``getattr`` handed to ``functools.reduce``. The program runs under a
profile first, so the answer is checked against what runs; before the fix each was not-found (a
false not-found). A C file that names the function (a C extension may call it with
``PyObject_CallMethod``) keeps it uncertain too.
The five never-called programs stay not-found (tests/test_never_called.py).
"""

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

REGISTRY = Path(__file__).parent / "never_called" / "never_called_registry"
TARGET = "main.py//legacy_rounding"
RESOLVE = "import pkgutil\n\n\ndef hook():\n    return pkgutil.resolve_name(VALUE)(1.0)\n"
CASES: dict[str, tuple[str, dict[str, str]]] = {
    "ini": (
        "import configparser\n\n_config = configparser.ConfigParser()\n_config.read('settings.ini')\n"
        "VALUE = _config['hooks']['rounding']\n" + RESOLVE,
        {"settings.ini": "[hooks]\nrounding = main:legacy_rounding\n"},
    ),
    "yaml": (
        "import yaml\n\nwith open('beat.yaml') as _file:\n"
        "    VALUE = yaml.safe_load(_file)['schedule']['round']['task']\n" + RESOLVE,
        {"beat.yaml": "schedule:\n  round:\n    task: main:legacy_rounding\n    every: 60\n"},
    ),
    "logging_json": (  # the standard library looks the name up: logging.config's "()" factory
        "import json\nimport logging.config\n\n\ndef hook():\n    with open('logging.json') as file:\n"
        "        logging.config.dictConfig(json.load(file))\n",
        {"logging.json": '{"version": 1, "filters": {"f": {"()": "main.legacy_rounding", "value": 1.0}}}\n'},
    ),
    "getattr_alias": (
        "import sys\n\nlook = getattr\n\n\ndef hook():\n"
        "    return look(sys.modules[__name__], 'legacy_' + 'rounding')(1.0)\n",
        {},
    ),
    "getattr_reduced": (
        "import functools\nimport sys\n\n\ndef hook():\n    parts = ('legacy_' + 'rounding').split('.')\n"
        "    return functools.reduce(getattr, parts, sys.modules[__name__])(1.0)\n",
        {},
    ),
}
PROFILE = r"""
import json, runpy, sys
called = set()
def profile(frame, event, arg):
    if event == "call":
        called.add(frame.f_code.co_name)
sys.path.insert(0, sys.argv[1])
sys.setprofile(profile)
try:
    runpy.run_path(sys.argv[1] + "/main.py", run_name="__main__")
finally:
    sys.setprofile(None)
print(json.dumps(sorted(called)))
"""


def project_with_hook(root: Path, code: str, files: dict[str, str]) -> Path:
    shutil.copytree(REGISTRY, root)
    main = root / "main.py"
    text = main.read_text()
    head, _, _ = text.partition('if __name__ == "__main__":')
    main.write_text(f'{head}{code}\n\nif __name__ == "__main__":\n    main()\n    hook()\n')
    for name, content in files.items():
        (root / name).write_text(content)
    return root


def status(root: Path) -> str:
    graph = build_graph(root, IndexOptions(workers=1)).graph
    [result] = reach(graph, Query(targets=(Target.by_key(TARGET),)))
    return result.status


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_function_called_by_a_name_the_python_files_do_not_hold_is_not_claimed(
    case: str, tmp_path: Path
) -> None:
    code, files = CASES[case]
    root = project_with_hook(tmp_path / case, code, files)
    done = subprocess.run(
        [sys.executable, "-c", PROFILE, str(root)], capture_output=True, text=True, timeout=120, cwd=root
    )
    assert done.returncode == 0, done.stderr
    assert "legacy_rounding" in json.loads(done.stdout.splitlines()[-1])  # it runs
    assert status(root) == "uncertain"


def test_a_c_file_that_names_the_function_keeps_it_uncertain(tmp_path: Path) -> None:
    root = project_with_hook(tmp_path / "p", "def hook():\n    return 0\n", {})
    assert status(root) == "not-found"  # nothing names it: the rule holds
    (root / "_speed.c").write_text(
        "#include <Python.h>\n\nstatic PyObject *round_it(PyObject *module) {\n"
        '    return PyObject_CallMethod(module, "legacy_rounding", "d", 1.0);\n}\n'
    )
    assert status(root) == "uncertain"
