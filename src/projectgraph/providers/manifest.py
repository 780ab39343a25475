"""A provider's manifest, ``projectgraph-plugin.toml`` beside its command.

::

    kind = "provider"
    name = "mine"
    version = "0.1.0"
    protocol = "1"
    languages = ["python", "typescript"]
    network = false

No manifest means the provider is unverified (it runs only with ``--allow-unverified``). A manifest
that cannot be read, is not of kind ``provider``, names another provider or speaks another protocol
is refused: a ``ManifestError`` says which file and which key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from projectgraph.providers.host import PROTOCOL
from projectgraph.tomlfile import read_table

MANIFEST_NAME = "projectgraph-plugin.toml"


class ManifestError(ValueError):
    """A manifest that cannot be used, with the file and the key named."""


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    protocol: str
    languages: tuple[str, ...]
    network: bool
    path: str

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "languages": list(self.languages)}


def read_manifest(path: Path, provider: str) -> Manifest | None:
    """The manifest at ``path`` (None when there is none), checked against the provider's name."""
    if not path.is_file():
        return None
    table = read_table(path, ManifestError)
    if table.get("kind") != "provider":
        raise ManifestError(f'{path}: kind must be "provider", not {table.get("kind")!r}')
    for key in ("name", "version", "protocol"):
        if not isinstance(table.get(key), str):
            raise ManifestError(f"{path}: '{key}' must be a string")
    if table["protocol"] != PROTOCOL:
        raise ManifestError(
            f"{path}: protocol {table['protocol']!r} is not supported (this projectgraph speaks {PROTOCOL!r})"
        )
    if table["name"] != provider:
        raise ManifestError(f"{path}: the manifest is for {table['name']!r}, not {provider!r}")
    languages = table.get("languages", [])
    if not isinstance(languages, list) or not all(isinstance(v, str) for v in languages):
        raise ManifestError(f"{path}: 'languages' must be a list of strings")
    network = table.get("network", False)
    if not isinstance(network, bool):
        raise ManifestError(f"{path}: 'network' must be true or false")
    return Manifest(
        name=table["name"],
        version=table["version"],
        protocol=table["protocol"],
        languages=tuple(languages),
        network=network,
        path=str(path),
    )
