"""Incremental sync and the watcher: the stored graph kept equal to what a full index gives.

``reconcile`` brings the stored graph up to date with the working tree (see ``sync.reconcile``);
``Watcher`` runs it as files change (see ``sync.watch``). ``control_files`` names the manifests
and configs a change of which re-links the project; ``sync.relink`` decides when a process keeps a
tracked link and relinks incrementally from it (``python.link.incremental``).
"""

from __future__ import annotations

from projectgraph.sync.controls import ControlFile, control_files, is_control_name
from projectgraph.sync.reconcile import SyncResult, reconcile

__all__ = ["ControlFile", "SyncResult", "control_files", "is_control_name", "reconcile"]
