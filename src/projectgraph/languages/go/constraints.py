"""Go build constraints: does any default build of the go command read this file?

The index leaves a file out of dependency code only when no build reads it by default: a file whose
``//go:build`` (or legacy ``// +build``) constraint needs ``ignore`` or another tag that the go
command never sets on its own, as ``purego``. Every GOOS and GOARCH is kept, so a reach answer
holds for each platform a project builds for: the constraint is read as satisfiable when *some*
setting of the tags the go command can set (operating systems, architectures, ``cgo``, ``gc``,
``gccgo``, ``unix``, ``go1.N``, ``goexperiment.*``, the race and sanitizer tags) makes it true,
with every other tag false. File-name suffixes (``_linux.go``, ``_arm64.go``) name a platform, so
they never leave a file out.

A constraint line counts only in the file header: before the package clause, among blank lines and
other line comments (and block comments), as the go command reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import product

GOOS = frozenset(
    """aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9
    solaris wasip1 wasi windows zos""".split()
)
GOARCH = frozenset(
    """386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32
    mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm""".split()
)
_SETTABLE = GOOS | GOARCH | {"cgo", "gc", "gccgo", "unix", "race", "msan", "asan", "boringcrypto"}
_SETTABLE_PATTERN = re.compile(
    r"go1\.\d+|goexperiment\.\w+|(?:amd64|arm|arm64|mips|mips64|ppc64|riscv64)\.\w+"
)
_GO_BUILD = re.compile(rb"^//go:build[ \t]+(.*?)\s*$", re.MULTILINE)
_PLUS_BUILD = re.compile(rb"^//[ \t]*\+build[ \t]+(.*?)\s*$", re.MULTILINE)
_TOKEN = re.compile(r"\s*(\(|\)|!|&&|\|\||[^\s()!&|]+)")
_MAX_FREE = 12  # tags of one expression tried by brute force; more is always read as satisfiable


def settable(tag: str) -> bool:
    """Whether some default build of the go command sets ``tag`` (for some GOOS/GOARCH/version)."""
    return tag in _SETTABLE or _SETTABLE_PATTERN.fullmatch(tag) is not None


def excluded(head: bytes) -> bool:
    """Whether the constraint of a file header keeps every default build from reading the file."""
    lines = _GO_BUILD.findall(head)
    if lines:
        expression = lines[0].decode("utf-8", "replace")
        try:
            return not _satisfiable(_parse(expression))
        except ValueError:
            return False  # a constraint the go command would reject: keep the file, say nothing
    plus = _PLUS_BUILD.findall(head)
    if plus:
        # each line is an OR of space-separated options, an option an AND of comma-separated
        # terms; the lines are ANDed
        clauses = []
        for raw in plus:
            options = [
                " && ".join(term for term in option.split(",") if term) for option in raw.decode().split()
            ]
            clauses.append("(" + " || ".join(f"({o})" for o in options if o) + ")")
        try:
            return not _satisfiable(_parse(" && ".join(clauses)))
        except ValueError:
            return False
    return False


# A parsed expression: ("tag", name) | ("not", e) | ("and", a, b) | ("or", a, b).
Expr = tuple[object, ...]


def _parse(text: str) -> Expr:
    tokens = [match.group(1) for match in _TOKEN.finditer(text)]
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise ValueError("unexpected end of constraint")
        token = tokens[position]
        position += 1
        return token

    def parse_chain(operator: str, tag: str, operand: Callable[[], Expr]) -> Expr:
        """Operands joined by a left-associative ``operator``: ``(tag, left, right)`` nested leftwards."""
        left = operand()
        while peek() == operator:
            take()
            left = (tag, left, operand())
        return left

    def parse_or() -> Expr:
        return parse_chain("||", "or", parse_and)

    def parse_and() -> Expr:
        return parse_chain("&&", "and", parse_not)

    def parse_not() -> Expr:
        token = take()
        if token == "!":
            return ("not", parse_not())
        if token == "(":
            inner = parse_or()
            if take() != ")":
                raise ValueError("unbalanced parenthesis")
            return inner
        if token in (")", "&&", "||"):
            raise ValueError(f"unexpected {token!r}")
        return ("tag", token)

    expression = parse_or()
    if position != len(tokens):
        raise ValueError("trailing tokens")
    return expression


def _tags(expression: Expr, into: set[str]) -> set[str]:
    if expression[0] == "tag":
        into.add(str(expression[1]))
    else:
        for part in expression[1:]:
            _tags(part, into)  # type: ignore[arg-type]
    return into


def _evaluate(expression: Expr, values: dict[str, bool]) -> bool:
    op = expression[0]
    if op == "tag":
        return values.get(str(expression[1]), False)
    if op == "not":
        return not _evaluate(expression[1], values)  # type: ignore[arg-type]
    left = _evaluate(expression[1], values)  # type: ignore[arg-type]
    if op == "and":
        return left and _evaluate(expression[2], values)  # type: ignore[arg-type]
    return left or _evaluate(expression[2], values)  # type: ignore[arg-type]


def _satisfiable(expression: Expr) -> bool:
    """True when some setting of the settable tags makes the expression true (the rest false)."""
    free = sorted(tag for tag in _tags(expression, set()) if settable(tag))
    if len(free) > _MAX_FREE:
        return True
    for bits in product((False, True), repeat=len(free)):
        if _evaluate(expression, dict(zip(free, bits, strict=True))):
            return True
    return False


__all__ = ["GOARCH", "GOOS", "excluded", "settable"]
