"""A retry wrapper that calls what it wraps and waits by a strategy from a table; an unused
formatting helper."""

import functools


def fixed_delay(attempt):
    return 0.0


def linear_delay(attempt):
    return 0.0 * attempt


STRATEGIES = {"fixed": fixed_delay, "linear": linear_delay}


def retry(times, strategy="fixed"):
    def wrap(fn):
        @functools.wraps(fn)
        def attempt(*args, **kwargs):
            error = None
            for number in range(times):
                try:
                    return fn(*args, **kwargs)
                except ValueError as exc:
                    error = exc
                    STRATEGIES[strategy](number)
            raise RuntimeError("gave up") from error

        return attempt

    return wrap


@retry(3, strategy="linear")
def fetch(source):
    if not source:
        raise ValueError("empty")
    return source.upper()


def format_backoff(seconds):
    return f"{seconds:.1f}s"


def main():
    fetch("page")
    try:
        return fetch("")
    except RuntimeError:
        return None


if __name__ == "__main__":
    main()
