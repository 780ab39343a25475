"""projectgraph: the call graph of a whole project, and honest answers on what its code reaches."""

from projectgraph.fileindex import FileIndex
from projectgraph.indexer import IndexOptions, IndexResult, run_index

__all__ = ["FileIndex", "IndexOptions", "IndexResult", "run_index"]
