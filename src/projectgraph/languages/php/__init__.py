"""PHP at the generic tier: namespaces, classes (bases, interfaces, used traits), interfaces, traits,
enums, functions, methods, calls with receivers (``->``, ``?->``, ``::``), ``new``, ``use``, and
``require``/``include`` of a path (``__DIR__ . '/x.php'`` too).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
