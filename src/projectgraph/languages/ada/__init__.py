"""Ada at the generic tier: package specs and bodies, subprogram bodies, expression functions,
tasks, protected bodies, record and derived types, calls (``Pkg.Sub (X)`` too), ``with`` clauses
(GNAT file names: ``Shop.Util`` is ``shop-util.ads`` and ``shop-util.adb``).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
