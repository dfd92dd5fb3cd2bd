"""The hand-written agent: a plain loop over the `openai` client and the shared harness."""

from handwritten_agent.loop import IMPL, ask, investigate

__all__ = ["IMPL", "ask", "investigate"]
