"""Orders: a basket priced against the catalog."""

from shop import load_catalog


class Basket:
    def __init__(self):
        self.lines = []

    def add(self, name, count=1):
        self.lines.append((name, count))

    def total(self, catalog):
        return sum(catalog.price(name) * count for name, count in self.lines)


def checkout(catalog_path, names):
    catalog = load_catalog(catalog_path)
    basket = Basket()
    for name in names:
        basket.add(name)
    return basket.total(catalog)
