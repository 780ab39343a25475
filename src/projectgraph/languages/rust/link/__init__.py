"""Rust's linker (``linker``)."""
