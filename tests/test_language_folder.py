"""A language is one folder: its ``LANGUAGE`` record holds every fact the other stages read of it.

Two checks. The control files ``sync.controls`` watches are exactly the union of the languages'
(no table of names beside the records). And a new folder holding only ``__init__.py`` and
``queries.scm`` is a working language of the generic tier: a throwaway language, written here into
a temporary folder that a fresh process adds to the ``projectgraph.languages`` package path,
indexes and links a small project, and its record's module separator is the one external keys use.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from projectgraph.languages import all_languages
from projectgraph.sync import controls

_INIT = '''\
"""A throwaway language of the generic tier: bash's grammar under another name."""

from projectgraph.languages.generic import GenericLanguage

GENERIC = GenericLanguage(
    name="throwaway",
    module=__name__,
    source=__file__,
    extensions=(".tw",),
    grammar="bash",
    module_separator="::",
    imports={"source": (("./{module}",),)},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
'''
# the same language declared as data: the folder's language.toml, read by generic.from_folder
_INIT_FROM_FOLDER = '''\
"""A throwaway language of the generic tier, declared in its language.toml."""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
'''
_DECLARATION = """\
name = "throwaway"
extensions = [".tw"]
grammar = "bash"
module_separator = "::"

[imports]
source = [["./{module}"]]
"""
_QUERIES = """\
(function_definition name: (word) @name body: (_) @body) @definition.function
(command name: (command_name (word) @call.name)) @call
(command name: (command_name (word) @_r) argument: (word) @import.module (#eq? @_r "source")) @import.source
(comment) @comment
"""
_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import projectgraph.languages as languages
    languages.__path__.append(sys.argv[1])
    from projectgraph import keys
    from projectgraph.languages import all_languages
    from projectgraph.pipeline import build_graph

    graph = build_graph(sys.argv[2]).graph
    spec = all_languages()["throwaway"]
    print(json.dumps({
        "tier": spec.tier,
        "extracts": list(spec.extracts),
        "nodes": sorted([n.key, n.kind, n.language] for n in graph.nodes),
        "edges": sorted([e.caller, e.callee, e.kind] for e in graph.edges),
        "unresolved": sorted([u.caller, u.name, u.reason] for u in graph.unresolved),
        "external": keys.external("net::http", "throwaway", "get"),
    }))
    """
)


def test_control_names_are_the_union_of_the_languages() -> None:
    specs = all_languages().values()
    names = {name for spec in specs for name in spec.control_files}
    assert names, "no language names a control file"
    assert controls.folder_names() == names
    for name in sorted(names):  # nested ones count in any folder
        assert controls.is_control_name(f"pkg/sub/{name}"), name
    for spec in specs:
        for prefix, suffix in spec.control_patterns:
            assert controls.is_control_name(f"pkg/{prefix}.base{suffix}"), (spec.name, prefix)
        for prefix, suffix in spec.root_control_patterns:
            assert controls.is_control_name(f"{prefix}-dev{suffix}"), (spec.name, prefix)
            assert not controls.is_control_name(f"pkg/{prefix}-dev{suffix}"), (spec.name, prefix)
    # a name no language claims is not one (the tool's own projectgraph.toml only at the root)
    assert not controls.is_control_name("pkg/Makefile")
    assert controls.is_control_name("projectgraph.toml")
    assert not controls.is_control_name("pkg/projectgraph.toml")


@pytest.mark.parametrize("declared", ["in __init__.py", "in language.toml"])
def test_a_new_folder_is_a_generic_language(tmp_path: Path, declared: str) -> None:
    folder = tmp_path / "languages" / "throwaway"
    folder.mkdir(parents=True)
    if declared == "in __init__.py":
        (folder / "__init__.py").write_text(_INIT, encoding="utf-8")
    else:
        (folder / "__init__.py").write_text(_INIT_FROM_FOLDER, encoding="utf-8")
        (folder / "language.toml").write_text(_DECLARATION, encoding="utf-8")
    (folder / "queries.scm").write_text(_QUERIES, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "lib.tw").write_text("greet() {\n  echo hi\n}\n", encoding="utf-8")
    (project / "main.tw").write_text(
        "source lib.tw\n# the entry\nmain() {\n  greet\n}\nmain\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path / "languages"), str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tier"] == "generic"
    assert "functions" in out["extracts"] and "calls" in out["extracts"]
    assert out["nodes"] == [
        ["lib.tw", "module", "throwaway"],
        ["lib.tw//greet", "function", "throwaway"],
        ["main.tw", "module", "throwaway"],
        ["main.tw//main", "function", "throwaway"],
    ]
    assert out["edges"] == [
        ["main.tw", "lib.tw", "import"],
        ["main.tw", "main.tw//main", "direct"],
        ["main.tw//main", "lib.tw//greet", "direct"],  # across files, through the import
    ]
    assert out["unresolved"] == [["lib.tw//greet", "echo", "no-definition"]]
    assert out["external"] == "net//http//get"  # the record's separator, no table in keys
    assert "throwaway" not in all_languages()  # this process's registry is untouched


@pytest.mark.parametrize(
    ("declaration", "says"),
    [
        ('name = "x"\nextensions = [".x"]\ngrammar = "bash"\ncolour = "red"\n', "unknown field(s) colour"),
        (
            'name = "x"\nextensions = [".x"]\ngrammar = "bash"\nroots = "all"\n',
            "roots = 'all': one of main, test",
        ),
        ('name = "x"\nextensions = [".x"\n', "Unclosed array"),  # not TOML
        ('name = "x"\ngrammar = "bash"\n', "extensions"),  # a required field missing
    ],
)
def test_a_bad_language_declaration_is_a_clear_error(tmp_path: Path, declaration: str, says: str) -> None:
    from projectgraph.languages.generic import from_folder

    (tmp_path / "language.toml").write_text(declaration, encoding="utf-8")
    with pytest.raises(ValueError, match="not a language declaration") as error:
        from_folder("x", str(tmp_path / "__init__.py"))
    assert str(tmp_path / "language.toml") in str(error.value) and says in str(error.value)


def test_a_deep_folder_declares_its_languages_over_a_shared_table(tmp_path: Path) -> None:
    from projectgraph.languages.base import DeclarationError, StandardLibrary, specs_from_folder

    (tmp_path / "language.toml").write_text(
        textwrap.dedent(
            """
            [shared]
            extractor = "x.extract:extract"
            roots = "roots.yaml"
            generated_marker = "^// made$"
            control_patterns = [["xconfig", ".json"]]

            [shared.standard]
            tops = ["io"]
            dotless = true

            [[language]]
            name = "x"
            extensions = [".x"]
            grammar = "bash"

            [[language]]
            name = "y"
            extensions = [".y"]
            grammar = "bash"
            module_separator = "/"
            """
        ),
        encoding="utf-8",
    )
    x, y = specs_from_folder(str(tmp_path / "__init__.py"))
    assert (x.name, y.name) == ("x", "y") and x.extensions == (".x",)
    assert x.roots == y.roots == str(tmp_path / "roots.yaml")
    assert x.generated_marker == b"^// made$" and x.control_patterns == (("xconfig", ".json"),)
    assert x.standard == y.standard == StandardLibrary(tops=frozenset({"io"}), dotless=True)
    assert (x.module_separator, y.module_separator) == (".", "/")
    # fields code gives (a table made from sys) are each language's
    given = specs_from_folder(str(tmp_path / "__init__.py"), never_called=None, tier="generic")[0]
    assert given.tier == "generic"

    (tmp_path / "language.toml").write_text('[[language]]\nname = "x"\ncolour = 1\n', encoding="utf-8")
    with pytest.raises(DeclarationError, match=r"language.toml: not a language declaration \(unknown field"):
        specs_from_folder(str(tmp_path / "__init__.py"))
    (tmp_path / "language.toml").write_text('[languages]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(
        DeclarationError, match=r"the tables are \[shared\] and \[\[language\]\], found languages"
    ):
        specs_from_folder(str(tmp_path / "__init__.py"))
    (tmp_path / "language.toml").write_text('[[language]]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(DeclarationError, match="extensions"):  # a required field missing
        specs_from_folder(str(tmp_path / "__init__.py"))
