"""External providers: other engines' graphs through protocol v1, the conformance gate, agreement.

A provider is an executable speaking JSON lines (``host``); its manifest says what it is
(``manifest``); its command comes from ``projectgraph.toml``, PATH or the shipped adapters
(``discovery``); its answer's rows are checked (``validation``) and stored as a run beside
projectgraph's own graph, which is the provider ``reference`` (``build``, ``reference``). A provider
builds a project only after it passed the fixtures of that project's languages (``conformance``);
two providers' graphs are compared relation by relation over canonical names (``agreement``).
"""
