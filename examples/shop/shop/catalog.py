"""The catalog of the shop, read from a YAML file."""

import yaml


class Catalog:
    def __init__(self, items):
        self.items = items

    def price(self, name):
        return self.items[name]["price"]


def load_catalog(path):
    with open(path) as handle:
        data = yaml.load(handle, Loader=yaml.SafeLoader)
    return Catalog(data)
