"""Pausing the cyclic garbage collector around a stage that allocates millions of records.

Linking a large project, writing its graph as JSON and answering reach allocate many small tuples
and dicts that live until the stage ends; each automatic collection rescans every one of them (on
Django, a third of the link time went there). They form no reference cycles, so nothing is lost by
pausing: whatever cycles a stage leaves are collected once the collector runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(keep: bool = False) -> Iterator[None]:
    """Run a block without automatic collections (restored after, if they were on).

    ``keep``: the block made records that outlive it (a graph's edges and nodes). Once the
    collector runs again it would scan them as young objects, then again as they age, then in a
    full collection their number brings on: a second of work for Django's graph that finds nothing
    to free. So they go straight to the oldest generation (``gc.freeze`` then ``gc.unfreeze``
    moves every tracked object there), where only the next full collection looks at them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep and gc.get_freeze_count() == 0:  # (objects someone froze on purpose stay frozen)
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()
