"""Dart at the generic tier: classes (superclass, mixins, interfaces), mixins, enums, extensions,
functions, methods, getters, setters, constructors, calls with receivers, ``new``/``const``,
``import`` (relative and ``package:`` URIs), ``export`` and ``part``.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
