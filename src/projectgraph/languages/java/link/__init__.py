"""Java's linker (``linker``)."""
