"""The SDK port: the same agent on the OpenAI Agents SDK (`openai-agents`, pinned 0.24.0)."""

from sdk_agent.runner import IMPL, investigate, run

__all__ = ["IMPL", "investigate", "run"]
