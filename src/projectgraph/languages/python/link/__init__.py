"""Python's linker (``linker``) and its tracked form for the incremental sync (``incremental``,
``persisted``)."""
