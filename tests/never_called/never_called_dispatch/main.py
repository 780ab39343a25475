"""A command line tool whose sub-commands sit in a table; an old command is dead."""


def cmd_add(args):
    return sum(int(a) for a in args)


def cmd_list(args):
    return list(args)


def cmd_old_migrate(args):
    return "migrated"


COMMANDS = {"add": cmd_add, "list": cmd_list}


def run(argv):
    name, *rest = argv
    handler = COMMANDS[name]
    return handler(rest)


def main():
    run(["add", "1", "2"])
    run(["list", "x"])


if __name__ == "__main__":
    main()
