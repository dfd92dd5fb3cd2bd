"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from k8s_agent_scripted_llm import ScriptedModelServer
from tests.processes import HANG_SECONDS


@pytest.fixture
def client() -> Iterator[tuple[ScriptedModelServer, openai.OpenAI]]:
    """A scripted model server (no script: a step is given per test) and an `openai` client on it."""
    server = ScriptedModelServer().start()
    with openai.OpenAI(
        base_url=server.url, api_key="scripted", max_retries=0, timeout=HANG_SECONDS
    ) as opened:
        yield server, opened
    server.stop()
