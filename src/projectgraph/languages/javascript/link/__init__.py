"""The JavaScript/TypeScript linker (``linker``, also Vue's and Svelte's scripts), how an npm unit
names its definitions (``surface``) and the persisted incremental state (``persisted``)."""
