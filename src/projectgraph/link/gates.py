"""Resolution gates: what a guess by name may never reach, whatever the language.

A name match (an unknown receiver's method taken by its name alone) is a guess; the gates here
keep it from the places a guess is known to be wrong. A call the linker resolves by its rules (an
import, a receiver's type, a value that flows there) is no guess and passes them.

- A name match from code outside the test suite never reaches a symbol defined in a test file
  (``fileindex.DEFAULT_TEST_PATHS``: a ``tests/`` tree, ``test_*.py``, ``conftest.py``,
  ``*.test.ts``, ...): production code does not call a test's fakes by their name. Code in a test
  file still may (a test's helper calling a fake it was handed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from projectgraph.fileindex import DEFAULT_TEST_PATHS
from projectgraph.graph import Site
from projectgraph.roots import _glob

if TYPE_CHECKING:
    from projectgraph.link.core import DefInfo


class _Located(Protocol):
    @property
    def path(self) -> str: ...


_T = TypeVar("_T", bound=_Located)

# a name match takes at most this many candidates: more, and the name says too little to guess by
MAX_NAME_CANDIDATES = 8


class _Keyed(Protocol):
    @property
    def key(self) -> str: ...


class _EdgeSink(Protocol):
    def edge(self, caller: str, callee: str, relation: str, kind: str, site: Site, via: str = "") -> None: ...


def name_edges(builder: _EdgeSink, caller: str, site: Site, candidates: Sequence[_Keyed]) -> None:
    """A ``calls`` edge of kind ``name`` to each candidate, when there are at most
    ``MAX_NAME_CANDIDATES`` of them."""
    if len(candidates) <= MAX_NAME_CANDIDATES:
        for info in candidates:
            builder.edge(caller, info.key, "calls", "name", site)


class MethodGuesses:
    """The methods a call may run whose receiver's type is unknown (the Java and Rust linkers): every
    concrete (not abstract) method of the call's name, unless the name is one of ``common``. The
    table of methods by name is built on first use, from the definitions as they are then."""

    def __init__(self, defs: Iterable[DefInfo], common: frozenset[str]) -> None:
        self._defs = defs
        self._common = common
        self._table: dict[str, list[DefInfo]] | None = None

    def edges(self, builder: _EdgeSink, caller: str, site: Site, name: str) -> None:
        """The ``name`` edges of a call of ``name`` from ``caller`` (none for a common name)."""
        if name in self._common:
            return
        if self._table is None:
            self._table = {}
            for info in self._defs:
                d = info.definition
                if d.kind == "method" and "abstract" not in d.decorators:
                    self._table.setdefault(d.name, []).append(info)
        name_edges(builder, caller, site, self._table.get(name, []))


@cache
def is_test_path(path: str) -> bool:
    """Whether a project path is in the test suite (the default test-path globs)."""
    return any(_glob(path, pattern) for pattern in DEFAULT_TEST_PATHS)


def name_candidates(caller_path: str, candidates: Sequence[_T]) -> Sequence[_T]:
    """The candidates a name match from ``caller_path`` may take: none in a test file unless the
    caller is in one."""
    if is_test_path(caller_path) or not any(is_test_path(c.path) for c in candidates):
        return candidates
    return [c for c in candidates if not is_test_path(c.path)]
