"""Where a provider's command comes from.

1. ``[providers.NAME] command = ...`` in the project's ``projectgraph.toml`` (a string, split like a
   shell line, or a list); a relative program or script path resolves against the project root.
2. otherwise an executable named ``projectgraph-provider-NAME`` on PATH.
3. otherwise the adapters shipped in this package (``crg``, ``pycg``), run by this Python.

The manifest is looked for beside the command's script: the last word of the command that names an
existing file (``["python3", "tools/mine.py"]`` -> ``tools/``), else beside the program. ``reference``
is projectgraph's own graph and never a process.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.providers.manifest import MANIFEST_NAME

REFERENCE = "reference"
PATH_PREFIX = "projectgraph-provider-"
SHIPPED = ("crg", "pycg")


class ProviderNotFound(LookupError):
    """No command for that provider name; the message says where it was looked for."""


class ProviderConfigError(ValueError):
    """A ``[providers.NAME]`` table that cannot be used."""


@dataclass(frozen=True)
class ProviderCommand:
    name: str
    command: tuple[str, ...]
    source: str  # "projectgraph.toml", "PATH" or "shipped"
    manifest_path: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "command": list(self.command), "source": self.source}


def _configured(root: Path) -> dict[str, Any]:
    path = root / "projectgraph.toml"
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as error:
        raise ProviderConfigError(f"{path}: cannot read: {error}") from None
    providers = table.get("providers", {})
    if not isinstance(providers, dict):
        raise ProviderConfigError(f"{path}: 'providers' must be a table of [providers.NAME] tables")
    return providers


def _resolve(root: Path, word: str) -> str:
    if os.path.isabs(word):
        return word
    if "/" in word or (root / word).exists():
        return str(root / word)
    return shutil.which(word) or word


def _manifest_beside(command: tuple[str, ...]) -> str:
    for word in reversed(command):
        if os.path.isfile(word):
            return str(Path(word).parent / MANIFEST_NAME)
    return str(Path(command[0]).parent / MANIFEST_NAME)


def _from_config(root: Path, name: str, entry: Any) -> ProviderCommand:
    where = f"{root / 'projectgraph.toml'} [providers.{name}]"
    raw = entry.get("command") if isinstance(entry, dict) else None
    if isinstance(raw, str):
        words = shlex.split(raw)
    elif isinstance(raw, list) and all(isinstance(w, str) for w in raw):
        words = list(raw)
    else:
        raise ProviderConfigError(f"{where}: 'command' must be a string or a list of strings")
    if not words:
        raise ProviderConfigError(f"{where}: 'command' is empty")
    command = (_resolve(root, words[0]), *(_resolve_arg(root, w) for w in words[1:]))
    return ProviderCommand(name, command, "projectgraph.toml", _manifest_beside(command))


def _resolve_arg(root: Path, word: str) -> str:
    """An argument that names a file of the project becomes its absolute path (scripts)."""
    if not word.startswith("-") and not os.path.isabs(word) and (root / word).is_file():
        return str(root / word)
    return word


def _shipped(name: str) -> ProviderCommand:
    folder = Path(__file__).parent / name
    command = (sys.executable, "-m", f"projectgraph.providers.{name}")
    return ProviderCommand(name, command, "shipped", str(folder / MANIFEST_NAME))


def find_provider(root: Path, name: str) -> ProviderCommand:
    """The command of provider ``name`` for the project at ``root``."""
    configured = _configured(root)
    if name in configured:
        return _from_config(root, name, configured[name])
    on_path = shutil.which(PATH_PREFIX + name)
    if on_path:
        return ProviderCommand(name, (on_path,), "PATH", _manifest_beside((on_path,)))
    if name in SHIPPED:
        return _shipped(name)
    raise ProviderNotFound(
        f"no provider {name!r}: not in {root / 'projectgraph.toml'} [providers.{name}], "
        f"no {PATH_PREFIX}{name} on PATH, and not one shipped ({', '.join(SHIPPED)})"
    )


def provider_names(root: Path) -> list[str]:
    """Every external provider the project can use, sorted: configured, on PATH, shipped."""
    names = set(_configured(root)) | set(SHIPPED)
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            if entry.startswith(PATH_PREFIX) and os.access(os.path.join(folder, entry), os.X_OK):
                names.add(entry[len(PATH_PREFIX) :])
    names.discard(REFERENCE)
    return sorted(names)
