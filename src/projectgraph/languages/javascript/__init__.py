"""JavaScript, TypeScript and TSX: ESM and CommonJS imports and exports, definitions, calls, JSX."""

from pathlib import Path

from projectgraph.languages.base import LanguageSpec, StandardLibrary

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

# Node's modules (``fs``, ``node:fs``); the leaves are JavaScript globals (the language's and the
# runtimes' own objects and functions): what they call back is what they are passed; eval, Function
# and require are not here
STANDARD = StandardLibrary(
    tops=frozenset(
        "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel "
        "dns domain events fs http http2 https inspector module net os path perf_hooks process punycode "
        "querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm "
        "wasi worker_threads zlib test".split()
    ),
    prefixes=("node:",),
    leaf_tops=frozenset(
        "Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean Buffer DataView Date Error "
        "EvalError Float32Array Float64Array Int8Array Int16Array Int32Array Intl JSON Map Math NaN Number "
        "Object Promise Proxy RangeError ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol "
        "SyntaxError TextDecoder TextEncoder TypeError URIError URL URLSearchParams Uint8Array "
        "Uint8ClampedArray Uint16Array Uint32Array WeakMap WeakRef WeakSet AbortController Blob Headers "
        "Request Response FormData Event EventTarget clearImmediate clearInterval clearTimeout console "
        "decodeURI decodeURIComponent encodeURI encodeURIComponent fetch isFinite isNaN parseFloat parseInt "
        "queueMicrotask setImmediate setInterval setTimeout structuredClone atob btoa undefined".split()
    ),
)

_EXTRACTOR = "projectgraph.languages.javascript.extract:extract"
_LINKER = "projectgraph.link.javascript:make_linker"  # Vue's and Svelte's scripts too
_EDGE_KINDS = ("direct", "import", "export", "member", "assignment", "cha", "field", "wildcard", "reference")
_EXTRACTS = ("imports", "exports", "definitions", "classes", "calls", "references", "assignments", "dynamic")

LANGUAGES = (
    LanguageSpec(
        name="javascript",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        grammar="javascript",
        extractor=_EXTRACTOR,
        tier="deep",
        roots=ROOTS,
        module_separator="/",
        control_files=("package.json", "tsconfig.json", "jsconfig.json"),
        control_patterns=(("tsconfig", ".json"), ("jsconfig", ".json")),
        standard=STANDARD,
        minified_lines=True,
        units="projectgraph.languages.javascript.units:discover",
        ecosystems=("npm",),
        surface="projectgraph.link.javascript_surface:unit_surface",
        linker=_LINKER,
        # npm's packages are JavaScript's to name (TypeScript writes their keys the same way)
        advisory_ecosystem="npm",
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
        interpreters=("node", "nodejs", "deno", "bun"),
    ),
    # .d.ts / .d.mts / .d.cts end in a TypeScript extension: indexed as typescript, flagged "declarations"
    LanguageSpec(
        name="typescript",
        extensions=(".ts", ".mts", ".cts"),
        grammar="typescript",
        extractor=_EXTRACTOR,
        tier="deep",
        roots=ROOTS,
        module_separator="/",
        control_files=("package.json", "tsconfig.json", "jsconfig.json"),
        control_patterns=(("tsconfig", ".json"), ("jsconfig", ".json")),
        standard=STANDARD,
        minified_lines=True,
        units="projectgraph.languages.javascript.units:discover",
        ecosystems=("npm",),
        surface="projectgraph.link.javascript_surface:unit_surface",
        linker=_LINKER,
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
    ),
    LanguageSpec(
        name="tsx",
        extensions=(".tsx",),
        grammar="tsx",
        extractor=_EXTRACTOR,
        tier="deep",
        roots=ROOTS,
        module_separator="/",
        control_files=("package.json", "tsconfig.json", "jsconfig.json"),
        control_patterns=(("tsconfig", ".json"), ("jsconfig", ".json")),
        standard=STANDARD,
        minified_lines=True,
        units="projectgraph.languages.javascript.units:discover",
        ecosystems=("npm",),
        surface="projectgraph.link.javascript_surface:unit_surface",
        linker=_LINKER,
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
    ),
)
