"""Which external keys name a language's standard library, and which standard names are leaves.

The reach query scopes a call into code the graph does not hold by these tables: a standard library
function reaches only standard library targets (its code imports no third-party package), and a
leaf (a Python builtin such as ``len``, a module compiled into the interpreter such as ``sys``, a
compiled standard module such as ``_sre`` when the standard library unit shows it has no source)
reaches none, as what it calls back is the code passed to it, which the link step already follows.
A language with no table here has no standard scope: a call into code the graph does not hold
concerns every target.
"""

from __future__ import annotations

import sys

from projectgraph.keys import SEP

_NODE = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel "
    "dns domain events fs http http2 https inspector module net os path perf_hooks process punycode "
    "querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm "
    "wasi worker_threads zlib test".split()
)
_STANDARD_TOPS: dict[str, frozenset[str]] = {
    "python": frozenset(sys.stdlib_module_names),
    "javascript": _NODE,
    "typescript": _NODE,
    "tsx": _NODE,
    "rust": frozenset({"std", "core", "alloc", "proc_macro", "test"}),
    "java": frozenset({"java", "javax", "jdk", "sun"}),
    "kotlin": frozenset({"java", "javax", "jdk", "kotlin", "kotlinx"}),
}
# JavaScript globals (the language's and the runtimes' own objects and functions): what they call
# back is what they are passed; eval, Function and require are not here
_JS_GLOBALS = frozenset(
    "Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean Buffer DataView Date Error "
    "EvalError Float32Array Float64Array Int8Array Int16Array Int32Array Intl JSON Map Math NaN Number "
    "Object Promise Proxy RangeError ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol "
    "SyntaxError TextDecoder TextEncoder TypeError URIError URL URLSearchParams Uint8Array "
    "Uint8ClampedArray Uint16Array Uint32Array WeakMap WeakRef WeakSet AbortController Blob Headers "
    "Request Response FormData Event EventTarget clearImmediate clearInterval clearTimeout console "
    "decodeURI decodeURIComponent encodeURI encodeURIComponent fetch isFinite isNaN parseFloat parseInt "
    "queueMicrotask setImmediate setInterval setTimeout structuredClone atob btoa undefined".split()
)
# builtins whose code reaches other modules whatever is passed to them
_PYTHON_NOT_LEAVES = frozenset({"__import__", "exec", "eval", "compile", "breakpoint", "help"})
_PYTHON_BUILTIN_MODULES = frozenset(sys.builtin_module_names) - {"builtins"}
# compiled standard modules that import or run code by name (the others call back only what is
# passed to them, which the link step follows by reference edges)
_PYTHON_COMPILED_NOT_LEAVES = frozenset(
    {"_pickle", "_imp", "_frozen_importlib", "_frozen_importlib_external", "_xxsubinterpreters", "marshal"}
)


def has_standard(language: str) -> bool:
    """Whether the language has a standard scope here."""
    return language in _STANDARD_TOPS or language == "go"


def is_standard(language: str, key: str) -> bool:
    """Whether an external key names the language's standard library (``os//path//join``)."""
    top = key.split(SEP, 1)[0]
    if language == "go":
        return "." not in top and top != "*"
    if language in ("javascript", "typescript", "tsx") and top.startswith("node:"):
        return True
    return top in _STANDARD_TOPS.get(language, ())


def is_leaf(language: str, key: str) -> bool:
    """Whether a standard name reaches no target of its own (a Python builtin function or class, a
    JavaScript global such as ``JSON//parse``)."""
    if language in ("javascript", "typescript", "tsx"):
        return key.split(SEP, 1)[0] in _JS_GLOBALS
    if language != "python":
        return False
    parts = key.split(SEP)
    if parts[0] == "__main__":  # the program's own main module: project code, in the graph
        return True
    if parts[0] == "builtins":
        return len(parts) >= 2 and parts[1] not in _PYTHON_NOT_LEAVES
    # a module compiled into the interpreter (sys, time, itertools): no source anywhere, a compiled
    # leaf whether or not the standard library is a unit
    return parts[0] in _PYTHON_BUILTIN_MODULES and is_compiled_leaf(language, parts[0])


def is_compiled_leaf(language: str, top: str) -> bool:
    """Whether a compiled module of the standard library (one with no source in its unit: ``_sre``,
    ``math``) reaches no target of its own."""
    return language == "python" and top not in _PYTHON_COMPILED_NOT_LEAVES


__all__ = ["has_standard", "is_compiled_leaf", "is_leaf", "is_standard"]
