"""Rust: modules, use trees, impl blocks and traits, declared and returned types, macros."""

from projectgraph.fileindex import FileIndex
from projectgraph.languages.base import specs_from_folder

LANGUAGES = specs_from_folder(__file__)


def unit_names(index: FileIndex) -> set[str]:
    """The first segment of each path a Rust file writes: use paths, extern crates, and calls and
    references by path (``helper::serve()`` with no use), as the crate names units give."""
    heads = {(imp.module or imp.name or "").split("::", 1)[0] for imp in index.imports}
    heads |= {call.callee.split("::", 1)[0] for call in index.calls if "::" in call.callee}
    heads |= {ref.name.split("::", 1)[0] for ref in index.references if "::" in ref.name}
    return {head for head in heads if head}
