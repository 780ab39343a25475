"""Svelte components: instance and module scripts by the JS/TS rules, template calls."""

from projectgraph.languages.base import specs_from_folder

LANGUAGES = specs_from_folder(__file__)
