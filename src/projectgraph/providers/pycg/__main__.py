"""Run the pycg adapter: one protocol v1 request on stdin, its answer on stdout."""

from projectgraph.providers.pycg.adapter import main

main()
