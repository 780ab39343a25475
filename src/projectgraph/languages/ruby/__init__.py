"""Ruby at the generic tier: modules, classes (with their superclass and included modules), methods
and singleton methods, calls with receivers, ``Foo.new``, ``require``/``require_relative``/``load``.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
