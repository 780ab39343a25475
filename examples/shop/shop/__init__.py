"""A tiny shop: the example project that `make demo` indexes."""

from .catalog import Catalog, load_catalog

__all__ = ["Catalog", "load_catalog"]
