"""A handler stored with a subscript assignment and called from the table: it runs."""

HANDLERS = {}


def hidden_handler(value):
    return value * 2


def install():
    HANDLERS["double"] = hidden_handler


def call(name, value):
    return HANDLERS[name](value)


def main():
    install()
    return call("double", 3)


if __name__ == "__main__":
    main()
