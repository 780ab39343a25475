"""Discovery on real trees: git's own file list in a work tree, .gitignore rules elsewhere, the
project configuration, and the generated-file signals."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph.config import ConfigError, ProjectConfig, load_config
from projectgraph.discover import Discovery, discover, extension_map
from projectgraph.indexer import IndexOptions, _content_flags
from projectgraph.languages import LanguageSpec, all_languages

PYTHON = all_languages()["python"]


def found(root: Path, config: ProjectConfig | None = None) -> Discovery:
    return discover(root, [PYTHON], config if config is not None else load_config(root))


def paths(discovery: Discovery) -> list[str]:
    return [f.path for f in discovery.files]


def excluded(discovery: Discovery) -> dict[str, str]:
    return {e.path: e.reason for e in discovery.excluded}


# ---- git work trees -----------------------------------------------------------------------------

IGNORE_TREE: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.gen.py\n!keep.gen.py\n",
    "app/__init__.py": "",
    "app/main.py": "def main(): pass\n",
    "app/.gitignore": "/local.py\n*.tmp.py\n",
    "app/local.py": "x = 1\n",  # ignored by app/.gitignore (anchored to app/)
    "local.py": "x = 1\n",  # the same name at the root is not ignored
    "app/deep/local.py": "x = 1\n",  # nor below app/ (the pattern is anchored)
    "app/deep/scratch.tmp.py": "x = 1\n",  # ignored by app/.gitignore, unanchored
    "build/out.py": "x = 1\n",
    "x.gen.py": "x = 1\n",
    "keep.gen.py": "x = 1\n",  # re-included by the negation
    "notes.md": "# not a source\n",
}
IGNORE_TREE_FILES = [
    "app/__init__.py",
    "app/deep/local.py",
    "app/main.py",
    "keep.gen.py",
    "local.py",
]


def test_git_lists_tracked_and_untracked_files_that_no_ignore_rule_hides(
    tmp_path: Path, git_env: Path
) -> None:
    root = write_tree(tmp_path / "repo", IGNORE_TREE)
    git(root, "init", "-q")
    git(root, "add", "app/main.py", "app/__init__.py")
    git(root, "commit", "-qm", "first")
    # more rules only git knows: .git/info/exclude and the global excludes file
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("private_*.py\n", encoding="utf-8")
    global_ignore = tmp_path / "global-ignore"
    global_ignore.write_text("*_scratch.py\n", encoding="utf-8")
    git_env.write_text(f"[core]\n\texcludesFile = {global_ignore}\n", encoding="utf-8")
    write_tree(root, {"private_notes.py": "x = 1\n", "app/my_scratch.py": "x = 1\n"})

    discovery = found(root)

    assert discovery.git
    assert paths(discovery) == IGNORE_TREE_FILES
    # a tracked file stays listed even when an ignore rule would hide it now
    git(root, "add", "-f", "build/out.py")
    assert "build/out.py" in paths(found(root))


def test_git_global_excludes_file_in_its_default_place(tmp_path: Path, git_env: Path) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "", "b_scratch.py": ""})
    git(root, "init", "-q")
    write_tree(tmp_path / "git-home" / "xdg" / "git", {"ignore": "*_scratch.py\n"})
    assert paths(found(root)) == ["a.py"]


def test_git_root_below_the_top_of_the_work_tree(tmp_path: Path, git_env: Path) -> None:
    repo = write_tree(tmp_path / "repo", {"top.py": "", "svc/api/v1.py": "", "svc/util.py": ""})
    git(repo, "init", "-q")
    discovery = found(repo / "svc")
    assert discovery.git
    assert paths(discovery) == ["api/v1.py", "util.py"]


def test_the_store_folder_is_never_listed(tmp_path: Path, git_env: Path) -> None:
    from projectgraph.store import open_project_store

    root = write_tree(tmp_path / "repo", {"a.py": ""})
    open_project_store(root).close()
    (root / ".projectgraph" / "stray.py").write_text("", encoding="utf-8")
    assert paths(found(root)) == ["a.py"]  # outside git: the folder is skipped by name
    git(root, "init", "-q")
    assert (root / ".projectgraph" / ".gitignore").read_text(encoding="utf-8") == "*\n"
    assert paths(found(root)) == ["a.py"]  # in git: the folder ignores itself


# ---- outside git ----------------------------------------------------------------------------------


def test_outside_git_gitignore_files_hold_as_git_would(tmp_path: Path, git_env: Path) -> None:
    plain = write_tree(tmp_path / "plain", IGNORE_TREE)
    discovery = found(plain)
    assert not discovery.git
    assert paths(discovery) == IGNORE_TREE_FILES
    # the same tree under git gives the same answer
    repo = write_tree(tmp_path / "repo", IGNORE_TREE)
    git(repo, "init", "-q")
    assert paths(found(repo)) == IGNORE_TREE_FILES


def test_outside_git_a_nested_negation_re_includes_a_file(tmp_path: Path, git_env: Path) -> None:
    tree: dict[str, str | bytes] = {
        ".gitignore": "*_pb2.py\nlogs/\n",
        "a_pb2.py": "",
        "proto/.gitignore": "!keep_pb2.py\n",
        "proto/keep_pb2.py": "",
        "proto/drop_pb2.py": "",
        "logs/x.py": "",
        "src/logs.py": "",  # a file named like an ignored folder stays
    }
    expected = ["proto/keep_pb2.py", "src/logs.py"]
    assert paths(found(write_tree(tmp_path / "plain", tree))) == expected
    repo = write_tree(tmp_path / "repo", tree)
    git(repo, "init", "-q")
    assert paths(found(repo)) == expected


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_paths_are_sorted_and_slash_separated(tmp_path: Path, git_env: Path, use_git: bool) -> None:
    names = ["ab.py", "a/c/d.py", "a.py", "a-b.py", "a/b.py", "Z.py", "é.py"]
    root = write_tree(tmp_path / "p", dict.fromkeys(names, ""))
    if use_git:
        git(root, "init", "-q")
    discovery = found(root)
    assert discovery.git is use_git
    assert paths(discovery) == ["Z.py", "a-b.py", "a.py", "a/b.py", "a/c/d.py", "ab.py", "é.py"]
    assert all(f.language == "python" for f in discovery.files)


# ---- the project configuration --------------------------------------------------------------------

CONFIG_BODY = 'ignore = ["vendor/**", "*_pb2.py"]\n[extensions]\n".pyw" = "python"\n'


@pytest.mark.parametrize("where", ["projectgraph.toml", "pyproject.toml"])
def test_configuration_adds_extensions_and_ignore_globs(tmp_path: Path, where: str) -> None:
    body = CONFIG_BODY if where == "projectgraph.toml" else "[tool.projectgraph]\n" + CONFIG_BODY
    if where == "pyproject.toml":
        body = '[project]\nname = "demo"\n\n' + body.replace("[extensions]", "[tool.projectgraph.extensions]")
    root = write_tree(
        tmp_path / "p",
        {
            where: body,
            "gui.pyw": "def run(): pass\n",
            "app.py": "",
            "vendor/lib.py": "",
            "api_pb2.py": "",
        },
    )
    discovery = found(root)
    assert paths(discovery) == ["app.py", "gui.pyw"]
    assert excluded(discovery) == {
        "api_pb2.py": "ignored by the project configuration",
        "vendor/lib.py": "ignored by the project configuration",
    }


def test_projectgraph_toml_wins_over_pyproject(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "projectgraph.toml": 'ignore = ["a.py"]\n',
            "pyproject.toml": '[tool.projectgraph]\nignore = ["b.py"]\n',
            "a.py": "",
            "b.py": "",
        },
    )
    assert load_config(root).ignore == ("a.py",)
    assert paths(found(root)) == ["b.py"]


def test_pyproject_without_a_projectgraph_table_gives_the_defaults(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": '[project]\nname = "x"\n'})
    assert load_config(root) == ProjectConfig()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("ignore = [", "not valid TOML"),
        ('ignore = "vendor"\n', "'ignore' must be a list of strings"),
        ('colour = "blue"\n', "unknown key(s) colour"),
        ('extensions = [".x"]\n', "'extensions' must map an extension to a language name"),
        ('[extensions]\n".x" = "python"\n"x" = "other"\n', "mapped to both"),
    ],
)
def test_a_bad_configuration_is_a_clear_error(tmp_path: Path, body: str, message: str) -> None:
    root = write_tree(tmp_path / "p", {"projectgraph.toml": body, "a.py": ""})
    with pytest.raises(ConfigError, match=r"projectgraph\.toml") as raised:
        found(root)
    assert message in str(raised.value)


def test_a_projectgraph_entry_that_is_not_a_table_is_a_clear_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": '[tool]\nprojectgraph = "yes"\n'})
    with pytest.raises(ConfigError, match=r"\[tool.projectgraph\] must be a table"):
        load_config(root)


def test_an_override_to_an_unknown_language_is_a_clear_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"projectgraph.toml": '[extensions]\n".pyw" = "pyhton"\n'})
    with pytest.raises(ConfigError, match="unknown language 'pyhton'"):
        found(root)


def test_an_override_for_a_language_outside_the_run_is_left_out(tmp_path: Path) -> None:
    other = next((name for name in all_languages() if name != "python"), None)
    if other is None:
        pytest.skip("only one language is registered")
    root = write_tree(tmp_path / "p", {"projectgraph.toml": f'[extensions]\n".pyw" = "{other}"\n'})
    write_tree(root, {"a.pyw": "", "b.py": ""})
    assert paths(found(root)) == ["b.py"]


# ---- two languages, one extension ---------------------------------------------------------------

TWIN = LanguageSpec(name="twin", extensions=(".pyi", ".tw"), grammar="python", extractor=PYTHON.extractor)


def test_two_languages_sharing_an_extension_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"languages 'python' and 'twin' both claim the extension '\.pyi'"):
        extension_map([PYTHON, TWIN])
    root = write_tree(tmp_path / "p", {"a.py": ""})
    with pytest.raises(ConfigError, match="both claim"):
        discover(root, [PYTHON, TWIN])


def test_index_options_refuse_languages_that_share_an_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    import projectgraph.indexer as indexer

    monkeypatch.setattr(indexer, "all_languages", lambda: {"python": PYTHON, "twin": TWIN})
    with pytest.raises(ConfigError, match=r"both claim the extension '\.pyi'"):
        IndexOptions(languages=("python", "twin")).validated()
    assert IndexOptions(languages=("twin",)).validated().languages == ("twin",)


def test_an_override_settles_a_shared_extension(tmp_path: Path) -> None:
    """An override moves an extension to one language, so no two claim it."""
    root = write_tree(tmp_path / "p", {"a.tw": "", "b.py": ""})
    config = ProjectConfig(extensions=((".tw", "python"),))
    discovery = discover(root, [PYTHON], config)
    assert [(f.path, f.language) for f in discovery.files] == [("a.tw", "python"), ("b.py", "python")]


# ---- generated and minified files -----------------------------------------------------------------


def test_generated_dart_is_excluded_by_name(tmp_path: Path) -> None:
    # No Dart language exists yet: an override lets a registered language claim .dart.
    root = write_tree(
        tmp_path / "p",
        {
            "projectgraph.toml": '[extensions]\n".dart" = "python"\n',
            "lib/main.dart": "",
            "lib/model.g.dart": "",
            "lib/model.freezed.dart": "",
            "lib/grid.dart": "",
        },
    )
    discovery = found(root)
    assert paths(discovery) == ["lib/grid.dart", "lib/main.dart"]
    assert excluded(discovery) == {
        "lib/model.freezed.dart": "generated Dart",
        "lib/model.g.dart": "generated Dart",
    }


def test_a_minified_script_is_flagged_by_name(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {"projectgraph.toml": '[extensions]\n".js" = "python"\n', "app.min.js": "", "app.js": ""},
    )
    discovery = found(root)
    assert [(f.path, f.flags) for f in discovery.files] == [("app.js", ()), ("app.min.js", ("minified",))]


def test_a_script_mostly_on_long_lines_is_flagged_minified() -> None:
    long_line = b"var a=" + b"1+" * 600 + b"1;"
    assert len(long_line) >= 1000
    assert _content_flags("dist/app.js", "javascript", long_line + b"\n") == ("minified",)
    assert _content_flags("dist/app.js", "typescript", b"// header\n" + long_line) == ("minified",)
    # one long line among many ordinary ones is not minified
    ordinary = b"\n".join(b"const x%d = %d;" % (i, i) for i in range(200))
    assert _content_flags("src/app.js", "javascript", ordinary + b"\n" + long_line) == ()
    assert _content_flags("src/app.js", "javascript", b"") == ()
    # by name, whatever the content
    assert _content_flags("vendor/jquery.min.js", "javascript", b"var a = 1;\n") == ("minified",)


@pytest.mark.parametrize(
    ("source", "generated"),
    [
        (b"// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage pb\n", True),
        (b"// Copyright 2024\n\n// Code generated by stringer; DO NOT EDIT.\npackage x\n", True),
        (b"// Code generated by mockgen. DO NOT EDIT.\r\npackage x\r\n", True),
        (b"// Code generated by hand. Edit freely.\npackage x\n", False),
        (b"// Code generated by x. DO NOT EDIT\npackage x\n", False),  # no final period
        (b"package x\n\nvar s = `\n  // Code generated DO NOT EDIT.`\n", False),  # indented
        (b"package x\n", False),
    ],
)
def test_go_generated_file_signal(source: bytes, generated: bool) -> None:
    assert ("generated" in _content_flags("pb/x.go", "go", source)) is generated
    assert "generated" not in _content_flags("x.py", "python", source)  # only Go has this convention


def test_a_tracked_file_deleted_from_the_work_tree_is_not_listed(tmp_path: Path, git_env: Path) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "", "b.py": "", "sub/c.py": ""})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    (root / "b.py").unlink()
    git(root, "rm", "-q", "sub/c.py")  # a deletion git knows of
    discovery = found(root)
    assert paths(discovery) == ["a.py"]
    assert excluded(discovery) == {"b.py": "deleted from the work tree"}
    assert not any(e.error for e in discovery.excluded)


DIFFERENTIAL_FILES = [
    "a.py",
    "sub/a.py",
    "sub/keep/k.py",
    "sub/drop/d.py",
    "docs/x/y/z.py",
    "docs/top.py",
    "generated/g.py",
    "src/generated/g.py",
    "#hash.py",
    "sp ace.py",
    "important.py",
    "deep/a/b.py",
    "deep/a/x/b.py",
    "deep/b.py",
    "x/build/o.py",
    "build.py/inner.py",
]


@pytest.mark.parametrize(
    "ignores",
    [
        {".gitignore": "**/generated/\n"},
        {".gitignore": "docs/**/*.py\n"},
        {".gitignore": "*.py\n!/important.py\n"},
        {".gitignore": "sub/*\n!sub/keep/\n"},
        {".gitignore": "deep/**/b.py\n"},
        {".gitignore": "\\#hash.py\nsp\\ ace.py\n"},
        {".gitignore": "build/\nbuild.py\n"},
        {".gitignore": "/*\n!/sub/\n/sub/*\n!/sub/keep\n"},
        {".gitignore": "a.py\n", "sub/.gitignore": "!a.py\n"},
        {".gitignore": "*\n!*/\n!*.py\n"},
        {"sub/.gitignore": "*\n!.gitignore\n!keep/\n!keep/**\n"},
        {".gitignore": "deep/a\n", "deep/.gitignore": "!a/x/\n"},
    ],
)
def test_outside_git_the_walk_agrees_with_git(tmp_path: Path, git_env: Path, ignores: dict[str, str]) -> None:
    tree: dict[str, str | bytes] = {**dict.fromkeys(DIFFERENTIAL_FILES, ""), **ignores}
    walked = paths(found(write_tree(tmp_path / "plain", tree)))
    repo = write_tree(tmp_path / "repo", tree)
    git(repo, "init", "-q")
    assert walked == paths(found(repo))


# ---- dependency code found by the walk (outside git): the marker from the folder's own listing ----


def test_outside_git_a_folder_with_a_marker_is_dependency_code_never_walked(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "app/main.py": "x = 1\n",
            "env/pyvenv.cfg": "home = /usr\n",
            "env/lib/site.py": "x = 1\n",
            "crate/.cargo-checksum.json": "{}\n",
            "crate/src/lib.py": "x = 1\n",
            "vendor/modules.txt": "# vendored\n",
            "vendor/m/x.py": "x = 1\n",
            "sub/vendor/modules.txt": "# vendored\n",
            "sub/vendor/y.py": "x = 1\n",
            "notvendor/modules.txt": "# only vendor/ is Go's\n",
            "notvendor/z.py": "x = 1\n",
            "dir/pyvenv.cfg/inside.py": "x = 1\n",  # a folder of that name is no marker
            ".gitignore": "ignored_env/\n",
            "ignored_env/pyvenv.cfg": "home = /usr\n",  # ignored, still dependency code
            "ignored_env/lib/site.py": "x = 1\n",
            "linked/real.cfg": "home = /usr\n",
            "linked/a.py": "x = 1\n",
        },
    )
    (tmp_path / "linked" / "pyvenv.cfg").symlink_to("real.cfg")  # a marker through a link counts
    (tmp_path / "broken").mkdir()
    # a broken link is no marker: the walk lists the folder (discover then leaves out a folder
    # whose listed files hold that name, as in a git tree)
    (tmp_path / "broken" / "pyvenv.cfg").symlink_to("missing.cfg")
    (tmp_path / "broken" / "b.py").write_text("x = 1\n")
    assert paths(found(tmp_path)) == [
        "app/main.py",
        "dir/pyvenv.cfg/inside.py",
        "notvendor/z.py",
    ]
    from projectgraph.discover import _walk

    listed = _walk(tmp_path, [])
    for marker in (
        "env/pyvenv.cfg",
        "crate/.cargo-checksum.json",
        "vendor/modules.txt",
        "sub/vendor/modules.txt",
        "ignored_env/pyvenv.cfg",
        "linked/pyvenv.cfg",
    ):
        assert marker in listed
    assert "broken/b.py" in listed
    assert not any(p.startswith(("env/lib/", "crate/src/", "vendor/m/", "ignored_env/lib/")) for p in listed)


def test_outside_git_a_listed_file_gone_or_replaced_keeps_its_status(tmp_path: Path) -> None:
    """The walk's listing gives each file's type; a file that is no regular file is judged by its
    lstat as in a git tree (a link out of the root, a link to a folder)."""
    write_tree(tmp_path, {"a.py": "x = 1\n", "outside/b.py": "x = 1\n", "in/c.py": "x = 1\n"})
    root = tmp_path / "in"
    (root / "out.py").symlink_to(tmp_path / "outside" / "b.py")
    (root / "same.py").symlink_to(root / "c.py")
    (root / "folder.py").symlink_to(tmp_path / "outside", target_is_directory=True)
    discovery = found(root)
    assert paths(discovery) == ["c.py", "same.py"]
    assert excluded(discovery) == {
        "out.py": "symlink out of the project root (not followed)",
        "folder.py": "symlinked folder (not followed)",
    }
