"""Go's linker (``linker``) and its persisted incremental state (``persisted``)."""
