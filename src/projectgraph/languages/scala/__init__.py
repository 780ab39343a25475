"""Scala at the generic tier: classes, objects (their members called as ``Obj.f``), traits, enums,
functions and methods, calls with receivers (and ``a op b`` infix calls by name), ``new``, imports
(selectors and renames; a class whose file the import path names gives an edge).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
