"""JavaScript, TypeScript and TSX: ESM and CommonJS imports and exports, definitions, calls, JSX."""

from projectgraph.languages.base import specs_from_folder

LANGUAGES = specs_from_folder(__file__)
