"""A data pipeline of steps applied in turn; an old normalising step is left over."""

import functools


def parse(text):
    return text.split(",")


def clean(items):
    return [item.strip() for item in items]


def deprecated_normalize(items):
    return [item.lower() for item in items]


def run(steps, data):
    return functools.reduce(lambda acc, step: step(acc), steps, data)


def main():
    return run([parse, clean], " a, b ")


if __name__ == "__main__":
    main()
