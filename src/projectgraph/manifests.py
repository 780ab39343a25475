"""The manifests of a project, read once: entry points, dependencies and import roots.

Python: pyproject.toml (``[project]`` scripts, gui-scripts, entry points, dependencies; Poetry;
setuptools ``package-dir``), setup.cfg, requirements*.txt. JavaScript: every package.json (name,
main, bin, exports, module, browser, the scripts' ``node file.js`` commands, dependencies). Java
and Rust: the dependencies of pom.xml, build.gradle(.kts) and Cargo.toml (for the framework rules).
The languages' control files (go.mod, Cargo.toml, a nested package.json, a tsconfig and the configs
it extends) are read here too, whole (``read_controls``, ``Manifests.controls``): the linkers read
no file themselves. Nested manifests (a monorepo's
``packages/cli/package.json``, ``services/api/pyproject.toml``) are read in every folder that holds
a project file or is above one, never inside a dependency folder (node_modules, a virtual
environment, site-packages, vendor); each one's entry points are relative to its own folder
(``entry_roots`` gives a nested Python manifest's import roots). A manifest that cannot be read is
skipped and named in ``problems``; it never stops a run. Every manifest is read through ``safefs``:
a FIFO is refused rather than waited on, and one that is a link out of the project is not read.
"""

from __future__ import annotations

import configparser
import json
import os
import posixpath
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from projectgraph import safefs

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True, order=True)
class EntryPoint:
    manifest: str  # the manifest's path
    group: str  # console_scripts | gui_scripts | <entry point group> | bin | main | exports | module
    #              | browser | scripts (package.json)
    name: str
    target: str  # "pkg.mod:func" (Python) or a file path relative to the manifest's folder (JS)


@dataclass(frozen=True)
class PackageJson:
    path: str  # the package.json path, relative to the root
    name: str
    main: str
    module: str
    exports: Any
    bin: dict[str, str]
    types: str


@dataclass(frozen=True)
class Controls:
    """The language control files of one folder tree (go.mod, Cargo.toml, a nested package.json, a
    tsconfig and the configs it extends), read once before the link (``read_controls``): a linker
    asks them here and reads no file itself. ``files``: path relative to the root -> its bytes,
    None for a regular file that could not be read."""

    files: dict[str, bytes | None] = field(default_factory=dict)

    def exists(self, rel: str) -> bool:
        """Whether ``rel`` was a regular file (``os.path.isfile``) when the controls were read."""
        return rel in self.files

    def read_text(self, rel: str, errors: str = "strict") -> str:
        """The file's text (UTF-8, ``errors`` as ``bytes.decode``); OSError when it was no file or
        could not be read, as reading it would have."""
        data = self.files.get(rel)
        if data is None:
            raise FileNotFoundError(rel)
        return data.decode("utf-8", errors)


_EXTENDS = re.compile(rb'"extends"\s*:\s*"(\.[^"]*)"')


def _control_names(
    languages: tuple[str, ...] | None = None,
) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    from projectgraph.languages import all_languages  # the registry imports the languages

    specs = [s for s in all_languages().values() if languages is None or s.name in languages]
    names = frozenset(name for spec in specs for name in spec.control_files)
    return names, tuple(sorted({pattern for spec in specs for pattern in spec.control_patterns}))


def read_controls(
    root: str | Path | None, paths: tuple[str, ...] = (), languages: tuple[str, ...] | None = None
) -> Controls:
    """The control files every language names (``LanguageSpec.control_files``) in each folder that
    holds one of ``paths`` or is above one, those of a config family (a tsconfig) among ``paths``,
    and the configs those extend by a relative path (within the root): read as the linkers read
    them (``safefs``, a link followed), once, before the link. ``languages``: only their control
    files (a unit's), when given."""
    if root is None:
        return Controls()
    base = os.fspath(root)
    names, families = _control_names(languages)
    folders = _folders_of(paths)

    def in_family(rel: str) -> bool:
        name = rel.rpartition("/")[2]
        return any(name.startswith(prefix) and name.endswith(suffix) for prefix, suffix in families)

    queue = {f"{folder}/{name}" if folder else name for folder in folders for name in names}
    queue |= {p for p in paths if in_family(p)}
    files: dict[str, bytes | None] = {}
    pending = sorted(queue)
    while pending:
        rel = pending.pop()
        full = os.path.join(base, rel)
        if rel in files or not os.path.isfile(full):
            continue
        data: bytes | None
        try:
            data = safefs.read_bytes(full)
        except OSError:
            data = None
        files[rel] = data
        if data is not None and in_family(rel):
            for target in _EXTENDS.findall(data):
                joined = posixpath.join(posixpath.dirname(rel), target.decode("utf-8", "replace"))
                extended = posixpath.normpath(joined)
                extended = extended if extended.endswith(".json") else extended + ".json"
                if not extended.startswith(".."):
                    pending.append(extended)
    return Controls(dict(sorted(files.items())))


@dataclass(frozen=True)
class Manifests:
    entry_points: tuple[EntryPoint, ...] = ()
    dependencies: frozenset[str] = frozenset()  # normalized names, any ecosystem
    python_roots: tuple[str, ...] = ()  # import roots, relative to the project root
    packages: tuple[PackageJson, ...] = ()
    problems: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)  # path -> raw text of tsconfig/jsconfig
    # a nested Python manifest's path -> its import roots (relative to the project root, most
    # specific first): where its entry points' modules are looked for
    entry_roots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    controls: Controls = field(default_factory=Controls)  # the language control files (read_controls)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(lines: list[str]) -> set[str]:
    names = set()
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = _REQ_NAME.match(line)
        if match:
            names.add(normalize(match.group(1)))
    return names


# folders that hold dependency code (units of dependency code, projectgraph.units), never a
# first-party manifest of the project
DEPENDENCY_FOLDERS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "site-packages",
        "dist-packages",
        "vendor",
        ".venv",
        "venv",
        "__pypackages__",
        ".tox",
        ".nox",
        ".git",
    }
)


def _folders_of(paths: tuple[str, ...]) -> set[str]:
    """The folders that hold one of ``paths`` or are above one ("" is the root)."""
    folders = {""}
    for path in paths:
        folder = path.rpartition("/")[0]
        while folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def manifest_folders(paths: tuple[str, ...]) -> list[str]:
    """The folders that hold one of ``paths`` or are above one ("" is the root), sorted, but those
    inside a dependency folder."""
    folders = _folders_of(paths)
    return sorted(f for f in folders if not DEPENDENCY_FOLDERS.intersection(f.split("/")))


def read_manifests(root: str | Path | None, paths: tuple[str, ...] = ()) -> Manifests:
    """Read the manifests under ``root``. ``paths`` are the project's files (for nested manifests)."""
    if root is None:
        return Manifests()
    base = Path(root)
    entries: list[EntryPoint] = []
    deps: set[str] = set()
    roots: list[str] = []
    problems: list[str] = []
    packages: list[PackageJson] = []
    configs: dict[str, str] = {}
    entry_roots: dict[str, tuple[str, ...]] = {}
    folders = manifest_folders(paths)

    for folder in folders:
        prefix = f"{folder}/" if folder else ""
        own: list[str] = roots if not folder else []
        pyproject = base / f"{prefix}pyproject.toml"
        if os.path.isfile(pyproject):
            try:
                data = tomllib.loads(safefs.read_text(pyproject, root=base))
                _read_pyproject(data, entries, deps, own, f"{prefix}pyproject.toml")
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError, TypeError) as error:
                problems.append(f"{prefix}pyproject.toml: {error or type(error).__name__}")
        setup_cfg = base / f"{prefix}setup.cfg"
        if os.path.isfile(setup_cfg):
            try:
                _read_setup_cfg(setup_cfg, entries, deps, own, f"{prefix}setup.cfg", base)
            except (OSError, configparser.Error, UnicodeDecodeError) as error:
                problems.append(f"{prefix}setup.cfg: {error}")
        if folder and (os.path.isfile(pyproject) or os.path.isfile(setup_cfg)):
            found = [f"{folder}/{r}" for r in own] + [f"{folder}/src"] * os.path.isdir(base / folder / "src")
            for manifest in (pyproject, setup_cfg):
                if os.path.isfile(manifest):
                    entry_roots[f"{prefix}{manifest.name}"] = tuple(dict.fromkeys([*found, folder]))
    for req in sorted(base.glob("requirements*.txt")):
        try:
            deps |= _requirement_names(safefs.read_text(req, root=base, errors="replace").splitlines())
        except OSError as error:
            problems.append(f"{req.name}: {error}")
    if os.path.isdir(base / "src") and "src" not in roots:
        roots.append("src")
    deps |= _build_file_dependencies(base, paths, problems)

    listed = {p for p in paths if p.rsplit("/", 1)[-1] == "package.json"}
    json_manifests = sorted(listed | {f"{f}/package.json" if f else "package.json" for f in folders})
    for rel in json_manifests:
        if DEPENDENCY_FOLDERS.intersection(rel.split("/")[:-1]) or not os.path.isfile(base / rel):
            continue
        try:
            data = json.loads(safefs.read_text(base / rel, root=base))
        except (OSError, ValueError) as error:
            problems.append(f"{rel}: {error}")
            continue
        if not isinstance(data, dict):
            problems.append(f"{rel}: not a JSON object")
            continue
        package = _read_package_json(rel, data, entries, deps)
        if rel in listed or rel == "package.json":  # the JavaScript linker reads the others itself
            packages.append(package)
    for rel in sorted(
        {p for p in paths if p.rsplit("/", 1)[-1].startswith(("tsconfig", "jsconfig"))}
        | {n for n in ("tsconfig.json", "jsconfig.json") if os.path.isfile(base / n)}
    ):
        if not rel.endswith(".json"):
            continue
        try:
            configs[rel] = safefs.read_text(base / rel, root=base)
        except OSError as error:
            problems.append(f"{rel}: {error}")
    return Manifests(
        entry_points=tuple(sorted(set(entries))),
        dependencies=frozenset(deps),
        python_roots=tuple(dict.fromkeys(roots)),
        packages=tuple(packages),
        problems=tuple(problems),
        files=configs,
        entry_roots=entry_roots,
        controls=read_controls(root, paths),
    )


def _read_pyproject(
    data: dict[str, Any],
    entries: list[EntryPoint],
    deps: set[str],
    roots: list[str],
    manifest: str = "pyproject.toml",
) -> None:
    project = data.get("project", {})
    for group, key in (("console_scripts", "scripts"), ("gui_scripts", "gui-scripts")):
        for name, target in (project.get(key) or {}).items():
            if isinstance(target, str):
                entries.append(EntryPoint(manifest, group, name, target))
    for group, table in (project.get("entry-points") or {}).items():
        if isinstance(table, dict):
            for name, target in table.items():
                if isinstance(target, str):
                    entries.append(EntryPoint(manifest, group, name, target))
    deps |= _requirement_names(list(project.get("dependencies") or []))
    for extra in (project.get("optional-dependencies") or {}).values():
        deps |= _requirement_names(list(extra or []))
    for group in (data.get("dependency-groups") or {}).values():
        deps |= _requirement_names([g for g in group if isinstance(g, str)])
    tool = data.get("tool", {})
    poetry = tool.get("poetry", {})
    for name, target in (poetry.get("scripts") or {}).items():
        if isinstance(target, str):
            entries.append(EntryPoint(manifest, "console_scripts", name, target))
    for table in ("dependencies", "dev-dependencies"):
        deps |= {normalize(n) for n in (poetry.get(table) or {}) if n != "python"}
    for group in (poetry.get("group") or {}).values():
        deps |= {normalize(n) for n in (group.get("dependencies") or {}) if n != "python"}
    for package in poetry.get("packages") or []:
        if isinstance(package, dict) and package.get("from"):
            roots.append(str(package["from"]).strip("/"))
    setuptools = tool.get("setuptools", {})
    package_dir = setuptools.get("package-dir") or {}
    if isinstance(package_dir, dict) and package_dir.get(""):
        roots.append(str(package_dir[""]).strip("/"))
    find = (setuptools.get("packages") or {}) if isinstance(setuptools.get("packages"), dict) else {}
    for where in (find.get("find") or {}).get("where", []) if isinstance(find.get("find"), dict) else []:
        if where not in (".", ""):
            roots.append(str(where).strip("/"))


def _read_setup_cfg(
    path: Path,
    entries: list[EntryPoint],
    deps: set[str],
    roots: list[str],
    manifest: str = "setup.cfg",
    base: Path | None = None,
) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(safefs.read_text(path, root=base or path.parent))
    if parser.has_option("options", "install_requires"):
        deps |= _requirement_names(parser.get("options", "install_requires").splitlines())
    if parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "" and value.strip():
                roots.append(value.strip().strip("/"))
    if parser.has_section("options.entry_points"):
        for group, text in parser.items("options.entry_points"):
            for line in text.splitlines():
                name, sep, target = line.partition("=")
                if sep:
                    entries.append(EntryPoint(manifest, group.strip(), name.strip(), target.strip()))


def _read_package_json(
    rel: str, data: dict[str, Any], entries: list[EntryPoint], deps: set[str]
) -> PackageJson:
    for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        value = data.get(table)
        if isinstance(value, dict):
            deps |= {normalize(n) for n in value}
    bins: dict[str, str] = {}
    raw_bin = data.get("bin")
    name = str(data.get("name") or "")
    if isinstance(raw_bin, str):
        bins[name.rsplit("/", 1)[-1] or "bin"] = raw_bin
    elif isinstance(raw_bin, dict):
        bins = {str(k): str(v) for k, v in raw_bin.items() if isinstance(v, str)}
    for bin_name, target in sorted(bins.items()):
        entries.append(EntryPoint(rel, "bin", bin_name, target))
    main = data.get("main") if isinstance(data.get("main"), str) else ""
    if main:
        entries.append(EntryPoint(rel, "main", name, str(main)))
    exports = data.get("exports")
    for target in sorted(set(_export_targets(exports))):
        entries.append(EntryPoint(rel, "exports", name, target))
    for group in ("module", "browser"):  # browser: the string form (a map only swaps modules)
        value = data.get(group)
        if isinstance(value, str) and value:
            entries.append(EntryPoint(rel, group, name, value))
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        for script, command in sorted(scripts.items()):
            if isinstance(command, str):
                for target in script_targets(command):
                    entries.append(EntryPoint(rel, "scripts", str(script), target))
    return PackageJson(
        path=rel,
        name=name,
        main=str(main or ""),
        module=str(data.get("module") or "") if isinstance(data.get("module"), str) else "",
        exports=exports,
        bin=bins,
        types=str(data.get("types") or data.get("typings") or ""),
    )


_BUILD_FILES = ("pom.xml", "build.gradle", "build.gradle.kts", "Cargo.toml")
_GRADLE_COORDINATE = re.compile(r"""["']([A-Za-z0-9_.\-]+):([A-Za-z0-9_.\-]+)(?::[^"']*)?["']""")


def _build_file_dependencies(base: Path, paths: tuple[str, ...], problems: list[str]) -> set[str]:
    """Dependency names of the Maven, Gradle and Cargo build files at the root and in the folders
    of the project's files: a Maven or Gradle dependency gives its group and its artifact
    (``org.springframework.boot`` and ``spring-boot-starter-web``), a Cargo one its crate name."""
    folders = _folders_of(paths)
    names: set[str] = set()
    for folder in sorted(folders):
        for name in _BUILD_FILES:
            rel = f"{folder}/{name}" if folder else name
            build_file = base / rel
            if not os.path.isfile(build_file):
                continue
            try:
                text = safefs.read_text(build_file, root=base, errors="replace")
                if name == "pom.xml":
                    for dependency in re.findall(r"<dependency>(.*?)</dependency>", text, re.S):
                        for tag in ("groupId", "artifactId"):
                            found = re.search(rf"<{tag}>\s*([^<\s]+)\s*</{tag}>", dependency)
                            if found:
                                names.add(normalize(found.group(1)))
                elif name == "Cargo.toml":
                    data = tomllib.loads(text)
                    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
                        for crate, spec in (data.get(table) or {}).items():
                            real = spec.get("package") if isinstance(spec, dict) else None
                            names.add(normalize(real if isinstance(real, str) else crate))
                else:
                    for group, artifact in _GRADLE_COORDINATE.findall(text):
                        names.update((normalize(group), normalize(artifact)))
            except (OSError, tomllib.TOMLDecodeError, AttributeError) as error:
                problems.append(f"{rel}: {error}")
    return names


def _export_targets(exports: Any) -> list[str]:
    """Every file path an ``exports`` map can point at (conditions and subpaths flattened)."""
    if isinstance(exports, str):
        return [exports] if not exports.endswith(".d.ts") else []
    if isinstance(exports, list):
        return [t for item in exports for t in _export_targets(item)]
    if isinstance(exports, dict):
        return [t for key, value in exports.items() if key != "types" for t in _export_targets(value)]
    return []


# the commands of a package.json script that run a file of the package: ``node server.js``,
# ``ts-node src/index.ts``, ``tsx watch src/main.ts``, ``nodemon app.js``
_SCRIPT_RUNNERS = frozenset(
    {
        "node",
        "nodejs",
        "nodemon",
        "ts-node",
        "ts-node-dev",
        "tsnd",
        "tsx",
        "bun",
        "babel-node",
        "esno",
        "esr",
        "vite-node",
        "node-dev",
        "supervisor",
    }
)
_RUNNER_SUBCOMMANDS = frozenset({"watch", "run"})  # tsx watch, bun run
_FLAGS_WITH_VALUE = frozenset(
    {
        "-r",
        "--require",
        "--loader",
        "--experimental-loader",
        "--import",
        "--env-file",
        "-P",
        "--project",
        "--watch-path",
        "--ext",
        "-x",
        "--exec",
        "--ignore",
        "--tsconfig",
        "--inspect-port",
        "--conditions",
        "-C",
        "--title",
        "--input-type",
    }
)
_NO_FILE_FLAGS = frozenset({"-e", "--eval", "-p", "--print", "-v", "--version", "-h", "--help", "-i"})
_SCRIPT_FILE = re.compile(r"^[\w@./-]+$")
_SCRIPT_EXTENSIONS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


def script_targets(command: str) -> list[str]:
    """The files a package.json script command runs with node (or a runner like it), read
    conservatively: each ``&&``, ``||``, ``;`` or ``|`` part whose command (past ``VAR=value``
    and ``cross-env``/``dotenv --``) is a runner gives its first argument that is no flag, when
    that argument looks like a path (a JS/TS extension, or a ``./`` or ``/``-bearing name)."""
    found: list[str] = []
    for part in re.split(r"&&|\|\||;|\|", command):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        while words and (
            re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in ("cross-env", "npx", "exec")
        ):
            words = words[1:]
        if words and words[0] == "dotenv" and "--" in words:
            words = words[words.index("--") + 1 :]
        if not words or words[0].rsplit("/", 1)[-1] not in _SCRIPT_RUNNERS:
            continue
        args = words[1:]
        with_value = _FLAGS_WITH_VALUE | (
            {"-w", "--watch", "-e", "-i"} if words[0].rsplit("/", 1)[-1] == "nodemon" else set()
        )
        no_file = _NO_FILE_FLAGS - with_value
        if args and args[0] in _RUNNER_SUBCOMMANDS:
            args = args[1:]
        skip = False
        for arg in args:
            if skip:
                skip = False
                continue
            if arg in no_file:
                break
            if arg.startswith("-"):
                skip = arg in with_value
                continue
            if _SCRIPT_FILE.match(arg) and (arg.endswith(_SCRIPT_EXTENSIONS) or "/" in arg):
                found.append(arg)
            break
    return found
