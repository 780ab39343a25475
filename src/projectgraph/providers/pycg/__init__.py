"""``pycg``: PyCG 0.0.8 (a Python call graph from a list of files) as a protocol v1 provider.

PyCG reads the project's ``.py`` files and answers, per function, the functions it may call, by
dotted names (``pkg.mod.Class.method``); its import manager gives each module's file and the modules
it imports; its definition manager says which names are modules, classes and functions. This adapter
turns those into protocol rows: a module is a ``file`` node, a name under a module's file is
``PATH::Class.method`` (``method`` when its parent is a class), calls go function to function,
``contains`` follows the nesting of the names, ``imports`` go module to module. PyCG keeps no line
numbers, so the nodes have none; ``PROJECTGRAPH_PYCG_MAX_ITER=N`` passes PyCG's own ``--max-iter``
(its passes stop at N, maybe before the fixpoint, and a ``max_iter`` limitation says so); a name
PyCG could not place in a file of the project (``<builtin>.print``, ``os.path.join``) stays as PyCG
wrote it, an external name.

The PyCG 0.0.8 wheel installs its code in a folder ``PyCG`` that imports itself as ``pycg``; on a
case-sensitive file system that import fails, so the adapter loads the folder under the name its code
uses (``load_pycg``) before it runs it.
"""
