"""What every stored link state shares (``persisted``: Python, ``persisted_js``, ``persisted_go``).

A state is one marshal blob of the store's link globals (``store.sqlite.read_link_globals``) with
per-unit rows beside it; it is followed only when it was made with the same rules and options (its
``shape``), and a change it cannot follow raises :class:`NotFollowed`: the sync links in full.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Callable
from typing import Any, TypeVar

from projectgraph import fileindex
from projectgraph.graph import VERSION
from projectgraph.link import DEFAULT_MAX_EDGES, DEFAULT_MAX_EXPORT_HOPS, LinkOptions
from projectgraph.store import sqlite as sql

Key = tuple[Any, ...]
_T = TypeVar("_T")


class NotFollowed(Exception):
    """The change is not one the stored state can follow: link in full."""


def key_hash(key: Key) -> int:
    """A stable signed 64-bit hash of a key (Python's own ``hash`` differs between processes)."""
    digest = hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def shape(kind: str, state_version: int, options: LinkOptions) -> str:
    """What a linker's state was made with besides the indexes and the control files (which a sync
    compares): the linker's kind and state version, the link's rules and options."""
    return repr(
        (
            kind,
            state_version,
            VERSION,
            fileindex.VERSION,
            options.root,
            tuple(options.test_paths),
            tuple(options.rules),
            options.max_edges or DEFAULT_MAX_EDGES,
            options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS,
        )
    )


def read_state(connection: Any, shape: str, kind: str | None = None) -> dict[str, Any]:
    """The stored state, if it is ``kind``'s (when given) and made with ``shape``."""
    blob = sql.read_link_globals(connection)
    if blob is None:
        raise NotFollowed("no stored state")
    state = marshal.loads(blob)
    if kind is not None and (not isinstance(state, dict) or state.get("kind") != kind):
        raise NotFollowed("the stored state is another linker's")
    if state["shape"] != shape:
        raise NotFollowed("linked with other options or rules")
    found: dict[str, Any] = state
    return found


# the errors of reading a state this version cannot read
UNREADABLE: tuple[type[Exception], ...] = (KeyError, ValueError, EOFError, TypeError)


def followed(
    work: Callable[[], _T], unreadable: tuple[type[Exception], ...] = UNREADABLE
) -> tuple[_T | None, str]:
    """``work``'s answer, or (None, why not): the change it could not follow, or the error of a
    state this version cannot read (one of ``unreadable``)."""
    try:
        return work(), ""
    except NotFollowed as why:
        return None, str(why)
    except unreadable as error:
        return None, f"the stored state cannot be read: {type(error).__name__}: {error}"
