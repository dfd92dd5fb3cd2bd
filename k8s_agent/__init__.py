"""The face of the project: the `k8s-agent` command line, comparisons and benchmarks."""

from k8s_agent.runner import IMPLEMENTATIONS, run_question

__all__ = ["IMPLEMENTATIONS", "run_question"]
