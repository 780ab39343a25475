"""The docs are tested: every CLI command has help and appears in the README; __all__ is exact."""

from __future__ import annotations

import types
from pathlib import Path

from click.testing import CliRunner

import projectgraph
from projectgraph.cli import main

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_command_has_help_and_is_in_the_readme() -> None:
    runner = CliRunner()
    assert main.commands, "the CLI has no command"
    for name, command in sorted(main.commands.items()):
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert command.help, f"{name} has no help text"
        assert f"`{name}" in README, f"the README does not document `{name}`"


def test_readme_opens_with_the_two_commands() -> None:
    head = README.split("\n## ", 1)[0]
    assert "make demo" in head and "make test" in head


def test_public_api_is_listed_exactly() -> None:
    exported = set(projectgraph.__all__)
    for name in sorted(exported | set(projectgraph._WHERE)):  # the lazy names, imported now
        getattr(projectgraph, name)
    public = {
        name
        for name, value in vars(projectgraph).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert exported == public
    for name in exported:
        assert getattr(projectgraph, name) is not None
