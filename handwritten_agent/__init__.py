"""The hand-written agent: a plain loop over the `openai` client and the shared harness."""

from handwritten_agent.loop import IMPL, investigate, run

__all__ = ["IMPL", "investigate", "run"]
