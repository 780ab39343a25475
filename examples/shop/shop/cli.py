"""The `shop` command."""

import sys

from shop.orders import checkout


def main():
    print(checkout(sys.argv[1], sys.argv[2:]))


if __name__ == "__main__":
    main()
