"""The sync equivalence oracle: after any sequence of edits, the graph a sync stores is the graph a
full index of the same tree gives in a fresh store (canonical JSON, ``Graph.dumps``).

Hypothesis draws the edits (add, delete, rename a file; add, remove, rename a function or class;
add a function that passes its own parameter on;
change a base class; change an import or a re-export; change a manifest or config; touch a file;
break its syntax; make it binary; ignore it) on copies of real fixture projects, Python and
TypeScript. Edited files get a fake mtime in the past most of the time, so the stamp shortcut (a file
served by its stored stamp, unread) is what the sync takes for every other file; otherwise they keep
their fresh mtime, the "racy" case. Several edits may go into one sync.

The run is derandomized (the same examples on every run, so CI is reproducible); hypothesis prints
the failing sequence of edits. ``PROJECTGRAPH_ORACLE_EXAMPLES=N`` runs N examples per project kind
(default 12), ``PROJECTGRAPH_ORACLE_STEPS=N`` up to N edits per example (default 6),
``PROJECTGRAPH_ORACLE_SEED=S`` draws other examples (seeded, still reproducible), and
``PROJECTGRAPH_ORACLE_OPS=a,b`` draws only those edits; ``PROJECTGRAPH_ORACLE_LOG=FILE`` appends
one line per example (its edits, its syncs and how each linked).
"""

from __future__ import annotations

import difflib
import json
import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.store import sqlite as sql

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).parent.parent / "examples"

EXAMPLE_COUNT = int(os.environ.get("PROJECTGRAPH_ORACLE_EXAMPLES", "12"))
STEP_COUNT = int(os.environ.get("PROJECTGRAPH_ORACLE_STEPS", "6"))
SEED = os.environ.get("PROJECTGRAPH_ORACLE_SEED")
LOG = os.environ.get("PROJECTGRAPH_ORACLE_LOG")  # a file: one line per example (edits, syncs)
ONE_WORKER = IndexOptions(workers=1)  # a handful of files: a process pool would cost more than it saves

PYTHON_SOURCES = {
    "shop": EXAMPLES / "shop",
    "reexports": FIXTURES / "python" / "reexports",
    "mro": FIXTURES / "python" / "inheritance_mro",
}
TS_SOURCES = {"ts_app": FIXTURES / "sync" / "ts_app"}
FIXTURE_NOISE = {"README.md", "expected.json", "graph.golden.json"}

OPS = (
    "add_file",
    "delete_file",
    "rename_file",
    "add_function",
    "pass_on",
    "remove_function",
    "rename_symbol",
    "change_base",
    "change_import",
    "reexport",
    "manifest",
    "touch",
    "syntax_error",
    "binary",
    "ignore",
)
DRAWN_OPS = (
    tuple(os.environ.get("PROJECTGRAPH_ORACLE_OPS", "").split(","))
    if os.environ.get("PROJECTGRAPH_ORACLE_OPS")
    else OPS
)


def _settings() -> Callable[[Callable[..., None]], Callable[..., None]]:
    chosen = settings(
        max_examples=EXAMPLE_COUNT,
        deadline=None,
        derandomize=SEED is None,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    if SEED is None:
        return chosen
    return lambda function: seed(int(SEED))(chosen(function))


# ---- a project on disk and the edits --------------------------------------------------------


class Tree:
    """A copy of a fixture project that the edits change, with a clock for the fake mtimes."""

    def __init__(self, root: Path, language: str) -> None:
        self.root = root
        self.language = language
        self.suffix = {"python": ".py", "javascript": ".js"}.get(language, ".ts")
        self.counter = 0
        self.clock = 1_600_000_000_000_000_000  # 2020: far older than any stamp a sync takes

    def sources(self) -> list[str]:
        found = []
        for path in self.root.rglob(f"*{self.suffix}"):
            rel = path.relative_to(self.root).as_posix()
            if not rel.startswith(".projectgraph/"):
                found.append(rel)
        return sorted(found)

    def text(self, rel: str) -> str:
        try:
            return (self.root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            return ""

    def write(self, rel: str, text: str | bytes, age: bool) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        self.stamp(rel, age)

    def stamp(self, rel: str, age: bool) -> None:
        if age:  # a distinct mtime in the past: trusted by the next sync's stamp check
            self.clock += 1_000_000_007
            os.utime(self.root / rel, ns=(self.clock, self.clock))

    def age_everything(self) -> None:
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and ".projectgraph" not in path.parts:
                self.stamp(path.relative_to(self.root).as_posix(), True)

    def fresh_name(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def definitions(self) -> list[tuple[str, str, str]]:
        """(file, kind, name) of every def/function and class in the tree."""
        pattern = (
            re.compile(r"^\s*(def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)
            if self.language == "python"
            else re.compile(r"\b(function|class)\s+([A-Za-z_]\w*)")
        )
        found = []
        for rel in self.sources():
            for match in pattern.finditer(self.text(rel)):
                found.append((rel, match.group(1), match.group(2)))
        return found

    def module_of(self, rel: str, importer: str) -> str:
        """How ``importer`` names the module ``rel`` in an import statement."""
        if self.language == "python":
            name = rel[: -len(self.suffix)].replace("/", ".")
            return name[: -len(".__init__")] if name.endswith(".__init__") else name
        target = posixpath.relpath(rel[: -len(self.suffix)], posixpath.dirname(importer) or ".")
        return target if target.startswith(".") else f"./{target}"


def pick(items: list[str] | list[tuple[str, str, str]], number: int) -> object:
    return items[number % len(items)]


def apply(tree: Tree, op: str, a: int, b: int, age: bool) -> None:
    """Apply one edit; an edit that has nothing to act on does nothing."""
    files = tree.sources()
    defs = tree.definitions()
    python = tree.language == "python"
    if op == "add_file" or not files:
        folder = posixpath.dirname(str(pick(files, a))) if files else ""
        rel = posixpath.join(folder, tree.fresh_name("added") + tree.suffix)
        lines = []
        if defs:
            source, _kind, name = defs[b % len(defs)]
            module = tree.module_of(source, rel)
            lines.append(
                f"from {module} import {name}" if python else f'import {{ {name} }} from "{module}";'
            )
            call = f"{name}()"
        else:
            call = "print()" if python else "console.log()"
        if python:
            lines += ["", "", f"def {tree.fresh_name('made')}():", f"    return {call}", ""]
        else:
            lines += ["", f"export function {tree.fresh_name('made')}() {{", f"  return {call};", "}", ""]
        tree.write(rel, "\n".join(lines), age)
    elif op == "delete_file":
        (tree.root / str(pick(files, a))).unlink()
    elif op == "rename_file":
        rel = str(pick(files, a))
        folders = sorted({posixpath.dirname(f) for f in files})
        target = posixpath.join(folders[b % len(folders)], tree.fresh_name("moved") + tree.suffix)
        (tree.root / target).parent.mkdir(parents=True, exist_ok=True)
        (tree.root / rel).rename(tree.root / target)
        tree.stamp(target, age)  # a rename keeps the mtime; give it a new one only when aged
    elif op == "add_function":
        rel = str(pick(files, a))
        call = f"{defs[b % len(defs)][2]}(1)" if defs else "len([])"
        name = tree.fresh_name("fn")
        extra = (
            f"\n\ndef {name}(value):\n    return {call}\n"
            if python
            else f"\nexport function {name}({_typed(tree, 'value')}) {{\n  return {call};\n}}\n"
        )
        tree.write(rel, tree.text(rel) + extra, age)
    elif op == "pass_on" and python:  # a new function that passes its own parameter on
        rel = str(pick(files, a))
        local = [d[2] for d in defs if d[0] == rel and d[1] == "def"]  # (a call that resolves)
        callee = local[b % len(local)] if local else "len"
        name = tree.fresh_name("fw")
        tree.write(rel, tree.text(rel) + f"\n\ndef {name}(value):\n    return {callee}(value)\n", age)
    elif op == "remove_function" and defs:
        rel, _kind, name = defs[a % len(defs)]
        tree.write(rel, _remove_block(tree.text(rel), name, python), age)
    elif op == "rename_symbol" and defs:
        rel, _kind, name = defs[a % len(defs)]
        # same length half of the time: the file keeps its size, only the mtime tells it changed
        new = name[:-1] + ("x" if name[-1] != "x" else "y") if b % 2 else tree.fresh_name(name)
        tree.write(rel, re.sub(rf"\b{re.escape(name)}\b", new, tree.text(rel)), age)
    elif op == "change_base":
        classes = [d for d in defs if d[1] == "class"]
        if not classes:
            return
        rel, _kind, name = classes[a % len(classes)]
        base = classes[b % len(classes)][2]
        text = tree.text(rel)
        if python:
            text = re.sub(rf"class {re.escape(name)}\b(\([^)]*\))?:", f"class {name}({base}):", text, count=1)
        else:
            text = re.sub(
                rf"class {re.escape(name)}\b( extends \w+)?", f"class {name} extends {base}", text, count=1
            )
        tree.write(rel, text, age)
    elif op == "change_import" and defs:
        rel = str(pick(files, a))
        source, _kind, name = defs[b % len(defs)]
        module = tree.module_of(source, rel)
        text = tree.text(rel)
        pattern = r"^from \S+ import .+$" if python else r'^import .+ from ".+";$'
        line = f"from {module} import {name}" if python else f'import {{ {name} }} from "{module}";'
        if b % 3 and re.search(pattern, text, re.MULTILINE):
            text = re.sub(pattern, line, text, count=1, flags=re.MULTILINE)  # change an import
        else:
            text = line + "\n" + text  # add one
        tree.write(rel, text, age)
    elif op == "reexport" and defs:
        source, _kind, name = defs[a % len(defs)]
        folder = posixpath.dirname(source)
        index = posixpath.join(folder, "__init__.py" if python else "index.ts")
        if index == source:
            return
        if python:
            stem = posixpath.basename(source)[: -len(".py")]
            line = f"from .{stem} import {name}" if b % 2 else f"from .{stem} import *"
        else:
            module = tree.module_of(source, index)
            line = f'export {{ {name} }} from "{module}";' if b % 2 else f'export * from "{module}";'
        tree.write(index, tree.text(index) + line + "\n", age)
    elif op == "manifest":
        _edit_manifest(tree, a, b, defs, age)
    elif op == "touch":
        rel = str(pick(files, a))
        if age:
            tree.stamp(rel, True)
        else:
            os.utime(tree.root / rel)
    elif op == "syntax_error":
        rel = str(pick(files, a))
        broken = "\ndef broken(:\n    pass\n" if python else "\nexport function broken( {\n"
        tree.write(rel, tree.text(rel) + broken, age)
    elif op == "binary":
        tree.write(str(pick(files, a)), b"\0\x01binary\0", age)
    elif op == "ignore":
        rel = str(pick(files, a))
        gitignore = tree.root / ".gitignore"
        lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
        if b % 3 == 0 and lines:
            lines = lines[:-1]  # stop ignoring the last one
        else:
            lines.append("/" + rel)
        tree.write(".gitignore", "\n".join(lines) + "\n", age)


def _typed(tree: Tree, name: str) -> str:
    """A parameter as the tree's language writes it (TypeScript: with a type)."""
    return f"{name}: number" if tree.suffix == ".ts" else name


def _remove_block(text: str, name: str, python: bool) -> str:
    """Remove the definition of ``name`` (its line and the indented lines after it)."""
    lines = text.split("\n")
    for start, line in enumerate(lines):
        if re.search(rf"\b(def|class|function)\s+{re.escape(name)}\b", line):
            indent = len(line) - len(line.lstrip())
            end = start + 1
            while end < len(lines) and (
                not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
            ):
                end += 1
            if not python and end < len(lines) and lines[end].strip().startswith("}"):
                end += 1  # the closing brace at the definition's own indent
            return "\n".join(lines[:start] + lines[end:])
    return text


def _edit_manifest(tree: Tree, a: int, b: int, defs: list[tuple[str, str, str]], age: bool) -> None:
    functions = [d for d in defs if d[1] in ("def", "function")]
    if tree.language == "python":
        target = ""
        if functions:
            rel, _kind, name = functions[a % len(functions)]
            target = f"{tree.module_of(rel, '')}:{name}"
        choice = b % 3
        if choice == 0 and target:
            text = f'[project]\nname = "app"\nversion = "1"\n\n[project.scripts]\napp = "{target}"\n'
        elif choice == 1:
            text = '[project]\nname = "app"\nversion = "1"\ndependencies = ["PyYAML>=6", "requests"]\n'
        else:
            text = '[tool.projectgraph]\ntest_paths = ["*added*"]\n'
        tree.write("pyproject.toml", text, age)
        return
    package = {"name": "ts-app", "version": "1.0.0"}
    choice = b % 3
    if choice == 0 and functions:
        package["main"] = functions[a % len(functions)][0]
        tree.write("package.json", json.dumps(package, indent=2) + "\n", age)
    elif choice == 1:
        package["bin"] = str(pick(tree.sources(), a)) if tree.sources() else "src/index.ts"
        tree.write("package.json", json.dumps(package, indent=2) + "\n", age)
    else:
        folders = sorted({posixpath.dirname(f) for f in tree.sources()}) or ["src"]
        alias = {
            "compilerOptions": {"baseUrl": ".", "paths": {"@util/*": [f"{folders[a % len(folders)]}/*"]}}
        }
        tree.write("tsconfig.json", json.dumps(alias, indent=2) + "\n", age)


# ---- the oracle ---------------------------------------------------------------------------------


def full_index_dumps(root: Path) -> str:
    """The graph of a full index of ``root``, written to a fresh store and read back."""
    run = build_graph(root, ONE_WORKER)
    with tempfile.TemporaryDirectory() as folder:
        store = sql.SqliteStore(Path(folder) / "graph.db")
        try:
            sql.write_graph(store.connection, run.graph, {}, {})
            stored = sql.read_graph(store.connection).dumps()
        finally:
            store.close()
    assert stored == run.graph.dumps(), "a graph read back from a fresh store is the graph written"
    return stored


def check_store(project: Project) -> None:
    """The store's own invariants: ids in key order, the full-text index in step with the nodes."""
    connection = project.store.connection
    keys = [k for (k,) in connection.execute("SELECT key FROM nodes ORDER BY id")]
    assert keys == sorted(keys), "node ids follow the sorted keys"
    connection.execute("INSERT INTO nodes_fts(nodes_fts) VALUES('integrity-check')")
    rows = connection.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
    assert rows == len(keys)


def assert_equivalent(project: Project, root: Path, history: list[str]) -> None:
    synced = sql.read_graph(project.store.connection).dumps()
    expected = full_index_dumps(root)
    if synced != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(True), synced.splitlines(True), "full index", "after sync", n=2
                )
            )[:80]
        )
        raise AssertionError(f"sync differs from a full index after: {history}\n{diff}")
    check_store(project)
    assert not project.is_stale(), f"stale right after a sync: {project.file_changes()}"


def run_oracle(
    source: Path,
    language: str,
    steps: list[tuple[str, int, int, bool, bool]],
    incremental: bool | None = None,
    fresh: bool = False,
) -> list[str]:
    """Apply the steps, syncing as they say; each sync must equal a full index. How each sync
    linked (``SyncResult.link``); ``incremental`` as ``Project.sync`` takes it. ``fresh``: each
    sync in a ``Project`` of its own, as a one-shot process (nothing kept in memory: the
    incremental link comes from the state in the store)."""
    links: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(*FIXTURE_NOISE, ".projectgraph"))
        tree = Tree(root, language)
        tree.age_everything()
        history: list[str] = []
        kept = Project(root)

        def sync() -> None:
            project = Project(root) if fresh else kept
            try:
                links.append(project.sync(ONE_WORKER, incremental=incremental).link)
                assert_equivalent(project, root, history)
            finally:
                if fresh:
                    project.close()

        with kept:
            sync()  # the first sync of an empty store is a full index
            for op, a, b, age, sync_now in steps:
                apply(tree, op, a, b, age)
                history.append(f"{op}({a}, {b}, age={age})")
                if sync_now:
                    sync()
            sync()
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            syncs = 2 + sum(1 for step in steps if step[4])
            log.write(
                f"{source.name} edits={len(steps)} syncs={syncs} ops={','.join(s[0] for s in steps)} "
                f"links={','.join(links)}\n"
            )
    return links


STEP = st.tuples(
    st.sampled_from(DRAWN_OPS),
    st.integers(0, 1000),
    st.integers(0, 1000),
    st.booleans().map(lambda fresh: not fresh),  # aged (True) half the time, shrinks to aged
    st.integers(0, 3).map(lambda n: n != 0),  # sync after this edit three times in four
)
STEPS = st.lists(STEP, min_size=1, max_size=STEP_COUNT)


@_settings()
@given(name=st.sampled_from(sorted(PYTHON_SOURCES)), steps=STEPS)
def test_sync_equals_a_full_index_python(name: str, steps: list[tuple[str, int, int, bool, bool]]) -> None:
    run_oracle(PYTHON_SOURCES[name], "python", steps)


@_settings()
@given(name=st.sampled_from(sorted(PYTHON_SOURCES)), steps=STEPS)
def test_one_shot_syncs_equal_a_full_index_python(
    name: str, steps: list[tuple[str, int, int, bool, bool]]
) -> None:
    """Each sync a process of its own: the link from the state in the store (or in full)."""
    run_oracle(PYTHON_SOURCES[name], "python", steps, fresh=True)


@_settings()
@given(name=st.sampled_from(sorted(TS_SOURCES)), steps=STEPS)
def test_sync_equals_a_full_index_typescript(
    name: str, steps: list[tuple[str, int, int, bool, bool]]
) -> None:
    run_oracle(TS_SOURCES[name], "typescript", steps)
