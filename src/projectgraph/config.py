"""The project configuration: ``projectgraph.toml`` at the root, or ``[tool.projectgraph]`` in
pyproject.toml. Every key is optional::

    extensions = { ".pyw" = "python" }   # extension overrides (added to the languages' own)
    ignore = ["vendor/**", "*.gen.py"]    # globs, gitignore syntax, relative to the root
    languages = ["python", "typescript"]  # limit the languages indexed
    sys_path = ["lib"]                    # more Python import roots
    test_paths = ["qa/**"]                # more test-file globs
    sources = ["app/server.py:main"]      # reach sources (entry points): path:Qualified.name or a key
    sources_only = true                   # search from the sources alone, not the roots the rules mark
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph import safefs


class ConfigError(ValueError):
    """A project configuration that cannot be used, with the file and key named."""


@dataclass(frozen=True)
class ProjectConfig:
    extensions: tuple[tuple[str, str], ...] = ()
    ignore: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    sys_path: tuple[str, ...] = ()
    test_paths: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    sources_only: bool = False
    source: str = ""  # the file it came from, for error messages


def _strings(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def load_config(root: Path) -> ProjectConfig:
    """Read the project configuration of ``root``; an absent one gives the defaults."""
    table: dict[str, Any] | None = None
    where = ""
    own = root / "projectgraph.toml"
    pyproject = root / "pyproject.toml"
    try:
        if os.path.isfile(own):
            where = str(own)
            table = tomllib.loads(safefs.read_text(own, root=root))
        elif os.path.isfile(pyproject):
            where = f"{pyproject} [tool.projectgraph]"
            data = tomllib.loads(safefs.read_text(pyproject, root=root))
            table = data.get("tool", {}).get("projectgraph")
    except safefs.OutsideRootError:
        table = None  # a link out of the project is not the project's configuration: not read
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where}: not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{where}: cannot read: {error}") from None
    if table is None:
        return ProjectConfig()
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    if not table:
        return ProjectConfig()
    known = {
        "extensions",
        "ignore",
        "languages",
        "sys_path",
        "test_paths",
        "sources",
        "sources_only",
        "providers",
    }
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    extensions = table.get("extensions", {})
    if not isinstance(extensions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in extensions.items()
    ):
        raise ConfigError(f"{where}: 'extensions' must map an extension to a language name")
    claimed: dict[str, str] = {}
    for ext, name in extensions.items():
        ext = ext if ext.startswith(".") else "." + ext
        if claimed.setdefault(ext, name) != name:
            raise ConfigError(f"{where}: extension {ext!r} is mapped to both {claimed[ext]!r} and {name!r}")
    pairs = tuple(sorted(claimed.items()))
    sources_only = table.get("sources_only", False)
    if not isinstance(sources_only, bool):
        raise ConfigError(f"{where}: 'sources_only' must be true or false")
    return ProjectConfig(
        extensions=pairs,
        ignore=_strings(table, "ignore", where),
        languages=_strings(table, "languages", where),
        sys_path=_strings(table, "sys_path", where),
        test_paths=_strings(table, "test_paths", where),
        sources=_strings(table, "sources", where),
        sources_only=sources_only,
        source=where,
    )
