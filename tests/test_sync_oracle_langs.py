"""The sync equivalence oracle for Go, Rust, Java and the generic tier (Ruby, C): after any sequence
of edits, the graph a sync stores is the graph a full index of the same tree gives in a fresh store
(canonical JSON), as ``tests/test_sync_oracle.py`` checks it for Python and TypeScript.

Hypothesis draws the edits on copies of the fixture projects: add, delete, rename a file; add,
remove, rename a function; change a call to call another function; change the manifest (go.mod's
module line, Cargo.toml's package name and dependencies, a pom.xml); touch a file; break its
syntax; make it binary. Edited files get a fake mtime in the past most of the time (the stamp
shortcut serves every other file), else their fresh one. Several edits may go into one sync; each
sync is a ``Project`` of its own (a one-shot process: whatever is incremental comes from the state
in the store) or, in one example of two, one ``Project`` kept open.

CI runs a few derandomized examples per language (``PROJECTGRAPH_ORACLE_LANG_EXAMPLES``, default
5; ``PROJECTGRAPH_ORACLE_STEPS``, ``PROJECTGRAPH_ORACLE_SEED`` as in ``test_sync_oracle``), so the
whole file stays near 30 s; more examples are a local run with the variable set.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from projectgraph.project import Project
from test_sync_oracle import FIXTURE_NOISE, ONE_WORKER, STEP_COUNT, assert_equivalent

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLE_COUNT = int(os.environ.get("PROJECTGRAPH_ORACLE_LANG_EXAMPLES", "5"))
SEED = os.environ.get("PROJECTGRAPH_ORACLE_SEED")


@dataclass(frozen=True)
class Syntax:
    """How the edits write a language: its suffix, what starts a function, a new function, a
    broken line, and the manifests the ``manifest`` edit writes (path, text; ``{n}`` a counter)."""

    suffix: str
    definition: str  # a regex whose group 1 is a function's name
    function: str  # a new function: {name}, {call}
    broken: str
    manifests: tuple[tuple[str, str], ...]
    braces: bool = True  # a block ends at its closing brace (else at ``end``, Ruby)
    in_class: bool = False  # a new function goes before the file's last closing brace (Java)


GO = Syntax(
    ".go",
    r"^func (?:\([^)]*\) )?([A-Za-z_]\w*)\(",
    "\nfunc {name}(value int) int {{\n\treturn {call}(value)\n}}\n",
    "\nfunc broken( {\n",
    (
        ("go.mod", "module shop\n\ngo 1.21\n"),
        ("go.mod", "module example.com/shop{n}\n\ngo 1.21\n"),
        ("go.mod", "module shop\n\ngo 1.21\n\nrequire golang.org/x/text v0.3.{n}\n"),
    ),
)
RUST = Syntax(
    ".rs",
    r"^\s*(?:pub(?:\([a-z]+\))? )?fn ([A-Za-z_]\w*)",
    "\npub fn {name}(value: u32) -> u32 {{\n    {call}(value)\n}}\n",
    "\nfn broken( {\n",
    (
        ("Cargo.toml", '[package]\nname = "shop"\nversion = "0.1.{n}"\nedition = "2021"\n'),
        ("Cargo.toml", '[package]\nname = "store{n}"\nversion = "0.1.0"\nedition = "2021"\n'),
        (
            "Cargo.toml",
            '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n'
            '[dependencies]\nserde = "1.0.{n}"\n',
        ),
    ),
)
JAVA = Syntax(
    ".java",
    r"^\s+(?:(?:public|private|protected|static|final)\s+)*[\w<>\[\]]+\s+([a-z]\w*)\s*\([^)]*\)\s*"
    r"(?:throws [\w, ]+)?\{",
    "\n    public static int {name}(int value) {{\n        return {call}(value);\n    }}\n",
    "\n    void broken( {\n",
    (
        (
            "pom.xml",
            "<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
            "<artifactId>app{n}</artifactId><version>1</version></project>\n",
        ),
        (
            "pom.xml",
            "<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
            "<artifactId>app</artifactId><version>1</version><dependencies><dependency>"
            "<groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.{n}</version>"
            "</dependency></dependencies></project>\n",
        ),
    ),
    in_class=True,
)
RUBY = Syntax(
    ".rb",
    r"^\s*def (?:self\.)?([a-z_]\w*)",
    "\ndef {name}(value)\n  {call}(value)\nend\n",
    "\ndef broken(\n",
    (("Gemfile", "source 'https://rubygems.org'\ngem 'rake', '13.0.{n}'\n"),),
    braces=False,
)
C = Syntax(
    ".c",
    r"^(?:static )?(?:int|void|char \*|struct \w+ \*?) ?\*?([a-z_]\w*)\(",
    "\nint {name}(int value) {{\n    return {call}(value);\n}}\n",
    "\nint broken( {\n",
    (("Makefile", "all:\n\tcc -o app{n} src/*.c\n"),),
)

SOURCES = {
    "go": (
        GO,
        (
            FIXTURES / "go" / "packages_methods",
            FIXTURES / "go" / "interfaces_cha",
            FIXTURES / "go" / "results_bindings",
            FIXTURES / "go" / "multi_module",
        ),
    ),
    "rust": (RUST, (FIXTURES / "rust" / "modules_uses", FIXTURES / "rust" / "trait_dispatch")),
    "java": (
        JAVA,
        (
            FIXTURES / "java" / "packages_imports",
            FIXTURES / "java" / "inheritance",
            FIXTURES / "java" / "interface_dispatch",
        ),
    ),
    "ruby": (RUBY, (FIXTURES / "ruby" / "basic",)),
    "c": (C, (FIXTURES / "c" / "basic",)),
}

OPS = (
    "add_file",
    "delete_file",
    "rename_file",
    "add_function",
    "remove_function",
    "rename_symbol",
    "change_call",
    "manifest",
    "touch",
    "syntax_error",
    "binary",
)


class Tree:
    """A copy of a fixture project that the edits change, with a clock for the fake mtimes."""

    def __init__(self, root: Path, syntax: Syntax) -> None:
        self.root = root
        self.syntax = syntax
        self.counter = 0
        self.clock = 1_600_000_000_000_000_000

    def sources(self) -> list[str]:
        found = []
        for path in self.root.rglob(f"*{self.syntax.suffix}"):
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
        if age:
            self.clock += 1_000_000_007
            os.utime(self.root / rel, ns=(self.clock, self.clock))

    def age_everything(self) -> None:
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and ".projectgraph" not in path.parts:
                self.stamp(path.relative_to(self.root).as_posix(), True)

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def functions(self) -> list[tuple[str, str]]:
        """(file, name) of every function the syntax's pattern finds."""
        pattern = re.compile(self.syntax.definition, re.MULTILINE)
        return [(rel, m.group(1)) for rel in self.sources() for m in pattern.finditer(self.text(rel))]

    def header(self, folder: str, rel: str) -> str:
        """What a new file of a folder starts with: Go's package clause (the folder's), Java's
        package and class."""
        if self.syntax.suffix == ".go":
            for other in self.sources():
                if posixpath.dirname(other) == folder:
                    match = re.search(r"^package (\w+)", self.text(other), re.MULTILINE)
                    if match:
                        return f"package {match.group(1)}\n"
            return "package main\n"
        if self.syntax.suffix == ".java":
            package = ""
            for other in self.sources():
                if posixpath.dirname(other) == folder:
                    match = re.search(r"^package ([\w.]+);", self.text(other), re.MULTILINE)
                    if match:
                        package = f"package {match.group(1)};\n\n"
                        break
            return f"{package}public class {posixpath.basename(rel)[:-5]} {{\n}}\n"
        return ""


def _add_function(syntax: Syntax, text: str, name: str, call: str) -> str:
    function = syntax.function.format(name=name, call=call)
    if syntax.in_class:
        at = text.rfind("}")
        if at < 0:
            return text + "\nclass Added {" + function + "}\n"
        return text[:at] + function + text[at:]
    return text + function


def _remove_block(text: str, syntax: Syntax, name: str) -> str:
    """Remove the function ``name``: from its line to its closing brace (or Ruby's ``end``)."""
    pattern = re.compile(syntax.definition, re.MULTILINE)
    for match in pattern.finditer(text):
        if match.group(1) != name:
            continue
        start = text.rfind("\n", 0, match.start(1)) + 1
        if syntax.braces:
            depth, opening = 0, text.find("{", match.start(1))
            if opening < 0:
                return text
            for at in range(opening, len(text)):
                depth += {"{": 1, "}": -1}.get(text[at], 0)
                if depth == 0:
                    return text[:start] + text[at + 1 :]
            return text[:start]
        line_end = text.find("\n", start)
        indent = len(text[start:line_end]) - len(text[start:line_end].lstrip())
        end = re.compile(rf"^{' ' * indent}end\b.*$", re.MULTILINE).search(text, line_end)
        return text[:start] + (text[end.end() :] if end else "")
    return text


def apply(tree: Tree, op: str, a: int, b: int, age: bool) -> None:
    """Apply one edit; an edit with nothing to act on does nothing."""
    syntax = tree.syntax
    files = tree.sources()
    functions = tree.functions()
    if op == "add_file" or not files:
        folder = posixpath.dirname(files[a % len(files)]) if files else ""
        stem = tree.fresh("Added" if syntax.suffix == ".java" else "added")
        rel = posixpath.join(folder, stem + syntax.suffix)
        call = functions[b % len(functions)][1] if functions else "len"
        text = _add_function(syntax, tree.header(folder, rel), tree.fresh("made"), call)
        tree.write(rel, text, age)
    elif op == "delete_file":
        (tree.root / files[a % len(files)]).unlink()
    elif op == "rename_file":
        rel = files[a % len(files)]
        folders = sorted({posixpath.dirname(f) for f in files})
        stem = tree.fresh("Moved" if syntax.suffix == ".java" else "moved")
        target = posixpath.join(folders[b % len(folders)], stem + syntax.suffix)
        (tree.root / rel).rename(tree.root / target)
        tree.stamp(target, age)
    elif op == "add_function":
        rel = files[a % len(files)]
        call = functions[b % len(functions)][1] if functions else "len"
        tree.write(rel, _add_function(syntax, tree.text(rel), tree.fresh("fn"), call), age)
    elif op == "remove_function" and functions:
        rel, name = functions[a % len(functions)]
        tree.write(rel, _remove_block(tree.text(rel), syntax, name), age)
    elif op == "rename_symbol" and functions:
        rel, name = functions[a % len(functions)]
        new = name[:-1] + ("x" if name[-1] != "x" else "y") if b % 2 else tree.fresh(name)
        for other in files if b % 3 else [rel]:  # the callers too, two times in three
            text = tree.text(other)
            if re.search(rf"\b{re.escape(name)}\b", text):
                tree.write(other, re.sub(rf"\b{re.escape(name)}\b", new, text), age)
    elif op == "change_call" and len(functions) > 1:
        rel = files[a % len(files)]
        text = tree.text(rel)
        names = sorted({name for _file, name in functions})
        calls = [m for m in re.finditer(r"\b([A-Za-z_]\w*)\(", text) if m.group(1) in names]
        if calls:
            found = calls[b % len(calls)]
            other = names[(names.index(found.group(1)) + 1 + b) % len(names)]
            tree.write(rel, text[: found.start(1)] + other + text[found.end(1) :], age)
    elif op == "manifest":
        path, text = syntax.manifests[b % len(syntax.manifests)]
        manifests = sorted(p.relative_to(tree.root).as_posix() for p in tree.root.rglob(path))
        target = manifests[a % len(manifests)] if manifests else path
        tree.write(target, text.format(n=a), age)
    elif op == "touch":
        rel = files[a % len(files)]
        if age:
            tree.stamp(rel, True)
        else:
            os.utime(tree.root / rel)
    elif op == "syntax_error":
        rel = files[a % len(files)]
        tree.write(rel, tree.text(rel) + syntax.broken, age)
    elif op == "binary":
        tree.write(files[a % len(files)], b"\0\x01binary\0", age)


def run_oracle(
    source: Path, syntax: Syntax, steps: list[tuple[str, int, int, bool, bool]], fresh: bool
) -> list[str]:
    """Apply the steps, syncing as they say; each sync must equal a full index. ``fresh``: each
    sync in a ``Project`` of its own (a one-shot process). How each sync linked."""
    links: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(*FIXTURE_NOISE, ".projectgraph"))
        tree = Tree(root, syntax)
        tree.age_everything()
        history: list[str] = []
        kept = Project(root)

        def sync() -> None:
            project = Project(root) if fresh else kept
            try:
                links.append(project.sync(ONE_WORKER).link)
                assert_equivalent(project, root, history)
            finally:
                if fresh:
                    project.close()

        with kept:
            sync()
            for op, a, b, age, now in steps:
                apply(tree, op, a, b, age)
                history.append(f"{op}({a}, {b}, age={age})")
                if now:
                    sync()
            sync()
    return links


STEP = st.tuples(
    st.sampled_from(OPS),
    st.integers(0, 1000),
    st.integers(0, 1000),
    st.booleans().map(lambda fresh: not fresh),
    st.integers(0, 3).map(lambda n: n != 0),
)
STEPS = st.lists(STEP, min_size=1, max_size=STEP_COUNT)


def _oracle(language: str) -> None:
    syntax, sources = SOURCES[language]

    @settings(
        max_examples=EXAMPLE_COUNT,
        deadline=None,
        derandomize=SEED is None,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(which=st.integers(0, len(sources) - 1), steps=STEPS, fresh=st.booleans().map(lambda k: not k))
    def check(which: int, steps: list[tuple[str, int, int, bool, bool]], fresh: bool) -> None:
        run_oracle(sources[which], syntax, steps, fresh)

    (seed(int(SEED))(check) if SEED is not None else check)()


def test_sync_equals_a_full_index_go() -> None:
    _oracle("go")


def test_sync_equals_a_full_index_rust() -> None:
    _oracle("rust")


def test_sync_equals_a_full_index_java() -> None:
    _oracle("java")


def test_sync_equals_a_full_index_ruby() -> None:
    _oracle("ruby")


def test_sync_equals_a_full_index_c() -> None:
    _oracle("c")


def test_the_edits_change_what_they_say() -> None:
    """The edits act: a new function is found by the pattern, a removed one is gone, a changed
    call names the other function (else the oracle would compare unchanged trees)."""
    for language, (syntax, sources) in SOURCES.items():
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "p"
            shutil.copytree(sources[0], root, ignore=shutil.ignore_patterns(*FIXTURE_NOISE))
            tree = Tree(root, syntax)
            before = tree.functions()
            assert before, language
            apply(tree, "add_function", 0, 0, True)
            added = set(tree.functions()) - set(before)
            assert len(added) == 1, (language, added)
            rel, name = next(iter(added))
            apply(tree, "remove_function", tree.functions().index((rel, name)), 0, True)
            assert (rel, name) not in tree.functions(), language
            count = len(tree.sources())
            apply(tree, "add_file", 0, 0, True)
            assert len(tree.sources()) == count + 1, language
            text = tree.text(rel)
            apply(tree, "change_call", tree.sources().index(rel), 0, True)
            assert tree.text(rel) != text or not re.search(r"\w\(", text), language
