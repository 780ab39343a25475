"""Reading a TOML file a user writes (a provider manifest, a taxonomy): one place says how a file
that is no TOML, or cannot be read, is reported, with the file named."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_table(path: Path, error: type[ValueError]) -> dict[str, Any]:
    """The TOML table of ``path``; ``error`` (naming the file) when it is no TOML or cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise error(f"{path}: not valid TOML: {problem}") from None
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem.strerror}") from None
