"""The README's per-language coverage table is exactly what the language modules generate."""

from __future__ import annotations

from pathlib import Path

from projectgraph.languages import all_languages
from projectgraph.languages.coverage import COMMAND, block, current_block, replace_block, table

README = Path(__file__).parent.parent / "README.md"


def test_readme_holds_the_generated_table() -> None:
    text = README.read_text(encoding="utf-8")
    assert current_block(text) == block(), (
        f"the README's language table is stale: regenerate it with `{COMMAND}`"
    )


def test_the_readme_documents_the_command() -> None:
    assert COMMAND in README.read_text(encoding="utf-8")


def test_every_registered_language_has_a_row() -> None:
    rows = [line for line in table().splitlines()[2:] if line.startswith("| ")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == sorted(
        all_languages(), key=lambda name: (all_languages()[name].tier != "deep", name)
    )
    for row in rows:
        assert row.count(" | ") == 5, row


def test_replace_block_is_idempotent() -> None:
    text = "intro\n<!-- languages:start -->\nold\n<!-- languages:end -->\noutro\n"
    once = replace_block(text)
    assert replace_block(once) == once
    assert once.startswith("intro\n") and once.endswith("\noutro\n")
