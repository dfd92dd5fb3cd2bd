"""SDK behaviour probes: what the installed `openai-agents` does on the wire, and across versions.

Importing this package imports nothing from the SDK; `poc.probes` runs it, `poc.cli` drives it.
"""
