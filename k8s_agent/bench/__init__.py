"""Benchmarks: what the harness costs, measured side by side in one run (`k8s-agent bench`)."""
