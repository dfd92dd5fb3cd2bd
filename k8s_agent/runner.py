"""Pick an agent, give it a model endpoint (the offline model when none is configured), run it."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from harness.config import Config
from harness.session import RunResult

IMPLEMENTATIONS = ("handwritten", "sdk")

AgentRun = Callable[..., Awaitable[RunResult]]


def agent(impl: str) -> AgentRun:
    """The `run` coroutine of an implementation; the SDK is imported only when asked for."""
    if impl == "handwritten":
        from handwritten_agent import run

        return run
    if impl == "sdk":
        from sdk_agent import run  # type: ignore[attr-defined,unused-ignore]

        return run  # type: ignore[no-any-return,unused-ignore]
    raise ValueError(f"unknown implementation {impl!r}")


async def run_question(config: Config, question: str, **options: Any) -> RunResult:
    """Run one question with the configured implementation and endpoint.

    Options go to the agent's `run` (observer, approver, secrets, mcp).
    """
    run = agent(config.impl)
    if not config.offline:
        return await run(config, question, **options)
    from scripted_llm import ScriptedModelServer, offline_model

    with ScriptedModelServer(responder=offline_model, model=config.model) as server:
        return await run(dataclasses.replace(config, base_url=server.url), question, **options)
