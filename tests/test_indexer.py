"""The index run on real files and real parses: options, determinism, statuses, limits, the stores,
cancellation and plugins."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import projectgraph.indexer as indexer
from conftest import write_tree
from projectgraph import fileindex
from projectgraph.config import ConfigError, ProjectConfig
from projectgraph.discover import discover
from projectgraph.indexer import (
    DEFAULT_MAX_FILE_BYTES,
    IndexOptions,
    IndexResult,
    index_files,
    run_index,
)
from projectgraph.languages import LanguageSpec, all_languages
from projectgraph.store import MemoryStore, SqliteStore

PYTHON = all_languages()["python"]
ONLY_PYTHON = ("python",)

SOURCES: dict[str, str | bytes] = {
    "pkg/__init__.py": "from .core import Engine\n__all__ = ['Engine']\n",
    "pkg/core.py": (
        "import os\nfrom .util import helper, clean as c\n\n"
        "class Engine(Base):\n"
        '    """Runs things."""\n'
        "    def __init__(self):\n        self.cache = Cache()\n\n"
        "    def run(self, path):\n        data = helper(os.path.join(path, 'x'))\n"
        "        return c(self.cache.get(data))\n"
    ),
    "pkg/util.py": "def helper(x):\n    return x\n\ndef clean(x):\n    return eval(x)\n",
    "app.py": "from pkg import Engine\n\nif __name__ == '__main__':\n    Engine().run('.')\n",
    "scripts/tool.py": "import sys\n\ndef main(argv):\n    print(argv)\n\nmain(sys.argv)\n",
    "broken.py": "def ok():\n    pass\n\ndef bad(:\n    pass\n\ndef after():\n    return ok()\n",
    "latin1.py": "# caf\xe9\ndef f():\n    return 1\n".encode("latin-1"),
    "blob.py": b"\0" * 64,
    "many.py": "def f():\n" + "".join(f"    g{i}()\n" for i in range(12)),
    "docs/readme.md": "# not indexed\n",
}
MAX_RECORDS = 8  # many.py has 12 calls: truncated


def options(**changes: Any) -> IndexOptions:
    base = IndexOptions(languages=ONLY_PYTHON, workers=1, config=ProjectConfig())
    return dataclasses.replace(base, **changes)


def result_json(result: IndexResult) -> str:
    """The result as one deterministic JSON text (the root and the time left out)."""
    return json.dumps(
        {
            "indexes": [index.to_json() for index in result.indexes],
            "statuses": [dataclasses.asdict(status) for status in result.statuses],
            "excluded": [dataclasses.asdict(item) for item in result.excluded],
            "error": result.error,
            "artifacts": result.artifacts,
        },
        sort_keys=True,
        ensure_ascii=False,
    )


def by_path(result: IndexResult) -> dict[str, indexer.FileStatus]:
    return {status.path: status for status in result.statuses}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SOURCES)


# ---- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workers": -1}, r"workers cannot be negative \(got -1\)"),
        ({"max_file_bytes": -5}, r"max_file_bytes cannot be negative \(got -5\)"),
        ({"max_records": -1}, r"max_records cannot be negative \(got -1\)"),
        ({"languages": ("python", "cobol")}, r"unknown language\(s\): cobol \(known: .*python"),
    ],
)
def test_options_are_validated(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IndexOptions(**changes).validated()


def test_a_run_needs_a_language(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(indexer, "all_languages", dict)
    with pytest.raises(ValueError, match="an index run needs at least one language"):
        IndexOptions().validated()


def test_a_configuration_that_leaves_no_language_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = LanguageSpec(name="other", extensions=(".oth",), grammar="python", extractor=PYTHON.extractor)
    monkeypatch.setattr(indexer, "all_languages", lambda: {"other": other, "python": PYTHON})
    root = write_tree(tmp_path / "p", {"a.py": "", "b.oth": ""})
    config = ProjectConfig(languages=("other",), source="projectgraph.toml")
    with pytest.raises(ConfigError, match=r"no language left to index.*python.*other"):
        run_index(root, options(config=config))
    # with the languages left to their default, the configuration's list is the run's
    result = run_index(root, dataclasses.replace(options(config=config), languages=()))
    assert [(s.path, s.language) for s in result.statuses] == [("b.oth", "other")]


def test_defaults_are_filled() -> None:
    filled = IndexOptions(workers=0, max_file_bytes=0).validated()
    assert filled.workers == (os.cpu_count() or 1)
    assert filled.max_file_bytes == DEFAULT_MAX_FILE_BYTES == 4 * 1024 * 1024
    assert filled.languages == tuple(sorted(all_languages()))


# ---- determinism and reading --------------------------------------------------------------------


class _ShuffledScandir:
    """``os.scandir`` with its entries in a random order, as another file system might give them."""

    def __init__(self, real: Any, seed: int) -> None:
        self.real = real
        self.random = random.Random(seed)

    def __call__(self, path: Any = ".") -> Any:
        with self.real(path) as entries:
            listed = list(entries)
        self.random.shuffle(listed)
        return _Entries(listed)


class _Entries(list[Any]):
    """A listing that is a context manager and an iterator, as ``os.scandir``'s (``os.walk`` calls
    ``next`` on it)."""

    def __next__(self) -> Any:
        if not self:
            raise StopIteration
        return self.pop(0)

    def __enter__(self) -> _Entries:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_result_does_not_depend_on_workers_or_file_system_order(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opts = options(max_records=MAX_RECORDS)
    one = result_json(run_index(project, opts))
    two = result_json(run_index(project, dataclasses.replace(opts, workers=2)))
    every_cpu = result_json(run_index(project, dataclasses.replace(opts, workers=0)))
    # the same files written in another order, listed in a shuffled order
    other = tmp_path / "other"
    items = list(SOURCES.items())
    random.Random(7).shuffle(items)
    write_tree(other, dict(items))
    monkeypatch.setattr(os, "scandir", _ShuffledScandir(os.scandir, seed=3))
    shuffled = result_json(run_index(other, dataclasses.replace(opts, workers=2)))
    assert one == two == every_cpu == shuffled
    statuses = {s["path"]: s["status"] for s in json.loads(one)["statuses"]}
    assert set(statuses.values()) == {"indexed", "failed", "truncated"}


@pytest.mark.parametrize("workers", [1, 2])
def test_each_file_is_read_once(project: Path, opened: list[str], workers: int) -> None:
    store = MemoryStore()
    for _ in range(2):  # a cold run and a warm one
        opened.clear()
        result = run_index(project, options(workers=workers), store)
        reads = [p for p in opened if p.endswith(".py")]
        listed = sorted(str(project / s.path) for s in result.statuses)
        assert sorted(reads) == listed


def test_a_file_over_the_size_limit_fails_with_the_reason(project: Path, opened: list[str]) -> None:
    write_tree(project, {"limit/at.py": "x = 1\n" * 100, "limit/over.py": "x = 1\n" * 100 + "y = 2\n"})
    opened.clear()
    result = run_index(project, options(max_file_bytes=600))
    statuses = by_path(result)
    assert statuses["limit/at.py"].status == "indexed"
    over = statuses["limit/over.py"]
    assert over.status == "failed"
    assert over.reason == "file of 606 bytes is larger than the limit of 600 bytes"
    assert str(project / "limit/over.py") not in opened  # judged by its size, never opened
    assert result.failed


# ---- statuses and the store -----------------------------------------------------------------------


def test_every_status(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"cached.py": "def f():\n    return 1\n"})
    store = MemoryStore()
    run_index(root, options(), store)
    write_tree(
        root,
        {
            "new.py": "def g():\n    f()\n",
            "gone.py": "x = 1\n",
            "blob.py": b"\x7fELF\0\0\0\0",
            "many.py": SOURCES["many.py"],
            "skip_pb2.py": "x = 1\n",
        },
    )
    config = ProjectConfig(ignore=("*_pb2.py",))
    opts = options(max_records=MAX_RECORDS, config=config).validated()
    found = discover(root, [PYTHON], config)
    (root / "gone.py").unlink()  # deleted between discovery and read
    result = index_files(root, found, [PYTHON], opts, store, None, time.monotonic())

    assert [(s.path, s.status, s.reason) for s in result.statuses] == [
        ("blob.py", "failed", "binary content (NUL bytes)"),
        ("cached.py", "cached", ""),
        ("gone.py", "missing", "deleted before it was read"),
        ("many.py", "truncated", f"more than {MAX_RECORDS} records: index cut at the limit"),
        ("new.py", "indexed", ""),
    ]
    assert [(e.path, e.reason) for e in result.excluded] == [
        ("skip_pb2.py", "ignored by the project configuration")
    ]
    assert [i.path for i in result.indexes] == ["cached.py", "many.py", "new.py"]
    many = next(i for i in result.indexes if i.path == "many.py")
    assert len(many.calls) == MAX_RECORDS and "truncated" in many.flags
    assert result.failed
    summary = result.summary()
    assert summary["statuses"] == {"cached": 1, "failed": 1, "indexed": 1, "missing": 1, "truncated": 1}
    assert summary["excluded"] == 1
    assert {p["path"] for p in summary["problems"]} == {"blob.py", "gone.py", "many.py"}


def test_a_warm_run_on_the_sqlite_store_parses_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = project / ".projectgraph" / "graph.db"
    store = SqliteStore(db)
    cold = run_index(project, options(), store)
    store.close()
    assert db.is_file()

    store = SqliteStore(db)  # a new connection: what it serves comes from the file
    warm = run_index(project, options(), store)
    assert {s.status for s in warm.statuses} == {"cached", "failed"}
    assert [s.path for s in warm.statuses if s.status == "failed"] == ["blob.py"]
    assert warm.indexes == cold.indexes
    # the same statuses but for the word, the same reasons and flags
    assert [dataclasses.replace(s, status="indexed") for s in warm.statuses if s.status == "cached"] == [
        s for s in cold.statuses if s.status == "indexed"
    ]

    monkeypatch.setattr(fileindex, "VERSION", fileindex.VERSION + 1)
    bumped = run_index(project, options(), store)
    assert {s.path for s in bumped.statuses if s.status == "indexed"} == {i.path for i in cold.indexes}
    again = run_index(project, options(), store)
    assert {s.status for s in again.statuses} == {"cached", "failed"}

    monkeypatch.setattr(indexer, "grammar_version", lambda grammar: "another-grammar")
    assert "cached" not in {s.status for s in run_index(project, options(), store).statuses}
    monkeypatch.undo()

    (project / "pkg/util.py").write_text("def helper(x):\n    return x + 1\n", encoding="utf-8")
    (project / "app.py").rename(project / "main.py")
    changed = by_path(run_index(project, options(), store))
    assert changed["pkg/util.py"].status == "indexed"
    assert changed["main.py"].status == "indexed"  # the path is part of the key
    assert changed["pkg/core.py"].status == "cached"
    store.close()


def test_the_record_limit_is_never_served_stale_from_the_store(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"many.py": SOURCES["many.py"]})
    store = MemoryStore()
    cut = run_index(root, options(max_records=MAX_RECORDS), store)
    assert [s.status for s in cut.statuses] == ["truncated"]
    full = run_index(root, options(), store)
    assert [s.status for s in full.statuses] == ["indexed"]
    assert len(full.indexes[0].calls) == 12 and "truncated" not in full.indexes[0].flags
    cut_again = run_index(root, options(max_records=MAX_RECORDS), store)
    assert result_json(cut_again) == result_json(cut)
    assert [s.status for s in run_index(root, options(), store).statuses] == ["cached"]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_prune_removes_what_no_run_read_since(tmp_path: Path, kind: str) -> None:
    root = write_tree(tmp_path / "p", {"a.py": "def a(): pass\n", "b.py": "def b(): pass\n"})
    store: MemoryStore | SqliteStore = MemoryStore() if kind == "memory" else SqliteStore(tmp_path / "db")
    plugin = CachedDefinitionCounter()
    run_index(root, options(plugins=(plugin,)), store)
    assert len(store) == 2
    (root / "b.py").unlink()
    time.sleep(0.01)
    since = time.time()
    assert [s.status for s in run_index(root, options(plugins=(plugin,)), store).statuses] == ["cached"]
    assert store.prune(since) == 2  # b.py's index and its plugin artifact
    assert len(store) == 1
    assert store.prune(since) == 0
    assert [s.status for s in run_index(root, options(plugins=(plugin,)), store).statuses] == ["cached"]
    store.close()


# ---- cancellation ---------------------------------------------------------------------------------


def _sleep_past(deadline: float) -> Any:
    def progress(done: int, total: int) -> None:
        if done == 1:
            time.sleep(deadline)

    return progress


def _interrupt(done: int, total: int) -> None:
    if done == 1:
        signal.raise_signal(signal.SIGINT)  # what Ctrl-C does to this process


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("cancel", ["deadline", "interrupt"])
def test_cancellation_returns_the_partial_result(
    tmp_path: Path, project: Path, workers: int, cancel: str
) -> None:
    (project / "blob.py").unlink()
    opts = options(workers=workers)
    if cancel == "deadline":
        opts, progress, error = (
            dataclasses.replace(opts, deadline=1.0),
            _sleep_past(1.0),
            "cancelled: deadline",
        )
    else:
        progress, error = _interrupt, "cancelled (interrupted)"
    store = SqliteStore(tmp_path / "graph.db")
    result = run_index(project, opts, store, progress)

    assert result.error is not None and result.error.startswith(error)
    assert result.failed
    done = [s for s in result.statuses if s.status != "missing"]
    missing = [s for s in result.statuses if s.status == "missing"]
    assert len(done) == 1 and done[0].status in ("indexed", "truncated")
    assert len(missing) == len(result.statuses) - 1
    assert {s.reason for s in missing} == {"not indexed: the run was cancelled"}
    assert [i.path for i in result.indexes] == [done[0].path]
    # what the run finished is in the store: the next run starts from it
    resumed = by_path(run_index(project, options(), store))
    assert resumed[done[0].path].status == "cached"
    assert {s.status for s in resumed.values()} == {"cached", "indexed"}
    store.close()


# ---- plugins (module level, so they pickle into the worker processes) ----------------------------

ANALYZED: list[str] = []


def _count(node: Any, kind: str) -> int:
    return int(node.type == kind) + sum(_count(child, kind) for child in node.children)


class DefinitionCounter:
    """A plugin: the number of function definitions in the tree."""

    name = "definitions"
    version = "1"
    languages = ("python",)

    def analyze(self, tree: Any, source: bytes, path: str) -> dict[str, Any]:
        ANALYZED.append(path)
        root = tree.root_node
        return {"root": root.type, "functions": _count(root, "function_definition"), "bytes": len(source)}


class CachedDefinitionCounter(DefinitionCounter):
    """The same, cached: the store keeps its artifact and restores it with no parse."""

    name = "cached-definitions"

    def restore(self, artifact: Any) -> dict[str, Any]:
        return dict(artifact)


class NewerCachedDefinitionCounter(CachedDefinitionCounter):
    version = "2"


@pytest.fixture
def analyzed() -> Iterator[list[str]]:
    ANALYZED.clear()
    yield ANALYZED
    ANALYZED.clear()


def test_a_plugin_gets_the_tree_of_every_file_of_its_languages(project: Path, analyzed: list[str]) -> None:
    store = MemoryStore()
    result = run_index(project, options(plugins=(DefinitionCounter(),)), store)
    artifacts = result.artifacts["definitions"]
    assert sorted(artifacts) == sorted(i.path for i in result.indexes)
    assert artifacts["pkg/util.py"] == {
        "root": "module",
        "functions": 2,
        "bytes": len(SOURCES["pkg/util.py"]),
    }
    assert artifacts["broken.py"]["functions"] >= 2  # what tree-sitter recovered
    # a plugin with no cache needs the tree again: every file is parsed again
    analyzed.clear()
    warm = run_index(project, options(plugins=(DefinitionCounter(),)), store)
    assert {s.status for s in warm.statuses} == {"indexed", "failed"}
    assert sorted(analyzed) == sorted(artifacts)
    assert warm.artifacts == result.artifacts


def test_a_cached_plugin_is_restored_with_no_parse(
    tmp_path: Path, project: Path, analyzed: list[str]
) -> None:
    db = tmp_path / "graph.db"
    store = SqliteStore(db)
    plugins = (CachedDefinitionCounter(),)
    cold = run_index(project, options(plugins=plugins, workers=2), store)  # through the process pool
    store.close()
    assert sorted(cold.artifacts["cached-definitions"]) == sorted(i.path for i in cold.indexes)

    analyzed.clear()
    store = SqliteStore(db)
    warm = run_index(project, options(plugins=plugins), store)
    assert analyzed == []  # no tree was made
    assert {s.status for s in warm.statuses} == {"cached", "failed"}
    assert warm.artifacts == cold.artifacts

    newer = run_index(project, options(plugins=(NewerCachedDefinitionCounter(),)), store)
    assert sorted(analyzed) == sorted(i.path for i in cold.indexes)  # a new version misses
    assert {s.status for s in newer.statuses} == {"indexed", "failed"}
    store.close()


# ---- minified scripts -----------------------------------------------------------------------------


def test_a_minified_script_is_indexed_and_flagged(tmp_path: Path) -> None:
    # No script language may be registered yet: an override lets Python read .js files by name.
    root = write_tree(tmp_path / "p", {"lib.min.js": "def f():\n    g()\n", "lib.js": "def f():\n    g()\n"})
    result = run_index(root, options(config=ProjectConfig(extensions=((".js", "python"),))))
    flags = {s.path: (s.status, s.flags) for s in result.statuses}
    assert flags == {"lib.js": ("indexed", ()), "lib.min.js": ("indexed", ("minified",))}
    assert [i.flags for i in result.indexes] == [(), ("minified",)]
    assert len(result.indexes[1].calls) == 1  # flagged, still indexed


def test_a_script_on_long_lines_is_indexed_and_flagged(tmp_path: Path) -> None:
    spec = all_languages().get("javascript")
    if spec is None:
        pytest.skip("no JavaScript language registered yet")
    try:
        spec.extract_function()
    except (ImportError, AttributeError) as error:
        pytest.skip(f"the JavaScript extractor is not there yet: {error}")
    bundle = "var a=function(){return 1};" * 60 + "\n"
    root = write_tree(tmp_path / "p", {"dist/bundle.js": bundle * 3, "src/app.js": "function a() { b(); }\n"})
    result = run_index(root, options(languages=("javascript",)))
    flags = {s.path: (s.status, s.flags) for s in result.statuses}
    assert flags == {"dist/bundle.js": ("indexed", ("minified",)), "src/app.js": ("indexed", ())}


def test_a_deadline_passed_while_reading_marks_every_file_missing(project: Path) -> None:
    result = run_index(project, options(deadline=0.0))
    assert result.error == "cancelled: deadline of 0.0 s passed"
    assert result.indexes == ()
    assert {s.status for s in result.statuses} == {"missing"}
    assert result.failed


def test_an_interrupt_during_discovery_gives_an_empty_cancelled_result(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the tree is walked
        raise AssertionError("not reached")

    monkeypatch.setattr(indexer, "discover", interrupted)
    result = run_index(project, options())
    assert result.error == "cancelled (interrupted)"
    assert (result.statuses, result.indexes) == ((), ())
    assert result.failed
