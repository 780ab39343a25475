"""An event bus calling listeners it was given; a debugging helper nobody calls."""


class Bus:
    def __init__(self):
        self.listeners = {}

    def on(self, name, callback):
        self.listeners.setdefault(name, []).append(callback)

    def emit(self, name, *payload):
        for callback in self.listeners.get(name, ()):
            callback(*payload)


def log_saved(item):
    return f"saved {item}"


def count_saved(item):
    return len(str(item))


def dump_listener_table(bus):
    return sorted(bus.listeners)


def main():
    bus = Bus()
    bus.on("saved", log_saved)
    bus.on("saved", count_saved)
    bus.emit("saved", 42)


if __name__ == "__main__":
    main()
