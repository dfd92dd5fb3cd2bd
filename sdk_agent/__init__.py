"""The SDK port: the same agent on the OpenAI Agents SDK (`openai-agents`, pinned 0.24.0)."""

from sdk_agent.runner import IMPL, ask, investigate

__all__ = ["IMPL", "ask", "investigate"]
