"""Java: packages and imports, classes and their members, declared types, calls, constructors."""

from projectgraph.languages.base import specs_from_folder

LANGUAGES = specs_from_folder(__file__)
