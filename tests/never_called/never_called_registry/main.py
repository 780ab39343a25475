"""Discount rules registered by a decorator and applied through a dict; one helper is dead."""

RULES = {}


def rule(name):
    def register(fn):
        RULES[name] = fn
        return fn

    return register


@rule("member")
def member_discount(total):
    return total * 0.1


@rule("bulk")
def bulk_discount(total):
    return 5 if total > 100 else 0


def legacy_rounding(value):
    return round(value + 0.005, 2)


def apply_rules(total, names):
    for name in names:
        total -= RULES[name](total)
    return total


def main():
    return apply_rules(200.0, ["member", "bulk"])


if __name__ == "__main__":
    main()
