"""``crg``: code-review-graph 2.3.9 as a protocol v1 provider.

code-review-graph (PyPI ``code-review-graph``) parses a repository with tree-sitter and keeps its
graph in a SQLite file of its own. It cannot share projectgraph's environment (its ``fastmcp``
wants ``mcp<2``, projectgraph ``mcp>=2.3``), so the adapter runs the engine's own Python
(``PROJECTGRAPH_CRG_PYTHON``, else the interpreter of ``code-review-graph`` on PATH, else this one
when it imports the engine): its ``full_build`` (every file parsed, then its resolvers: what its
``build --skip-flows`` does before flows and search) into a database in a temporary folder, with its
home there too, so the project is left as it was (its CLI also refuses a folder with no ``.git``),
and reads the database it wrote. Its rows become ours: absolute paths
become relative to the repository (one outside it stays absolute, and the host drops it as a bad
path), ``File``/``Class``/``Function``/``Type``/``Test`` become file, class, function (a method when
its parent is a class of the file), type and test; ``CALLS``, ``IMPORTS_FROM``, ``INHERITS``,
``IMPLEMENTS``, ``CONTAINS`` and ``TESTED_BY`` become calls, imports, extends, implements, contains
and tests (the test as the source). Other kinds pass through and are counted as unknown by the host.
"""
