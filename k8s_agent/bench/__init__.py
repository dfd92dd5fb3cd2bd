"""Benchmarks: what the harness costs, measured side by side in one run (`k8s-agent bench`)."""

EXIT_TARGET_MISSED = 8
"""Every mode of `bench`: the figures were measured and printed, and a target was missed (1 is
kept for an internal error, as in every command)."""
