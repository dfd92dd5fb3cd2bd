"""The face of the project: the `k8s-agent` command line, comparisons, trace tools and benchmarks.

Importing this package imports nothing heavy (no openai, mcp or SDK): `k8s-agent --help` and a
mistyped flag answer at once; each command loads what it needs when it runs.
"""
