"""Run the crg adapter: one protocol v1 request on stdin, its answer on stdout."""

from projectgraph.providers.crg.adapter import main

main()
