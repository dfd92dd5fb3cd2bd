"""The scripted model server's recording: kept for tests, off for a long-lived server (an eval's
offline model answers thousands of requests and must not hold every body)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from k8s_agent_scripted_llm import ScriptedModelServer, text


def ask(url: str) -> dict[str, Any]:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(json.loads(response.read()))


def test_a_server_that_does_not_record_answers_counts_and_keeps_nothing() -> None:
    with ScriptedModelServer(responder=lambda body: text("ok"), record=False) as server:
        answers = [ask(server.url) for _ in range(3)]

    assert [a["choices"][0]["message"]["content"] for a in answers] == ["ok"] * 3
    assert len({a["id"] for a in answers}) == 3 and server.count == 3
    assert server.requests == [] and server.replies == [] and server.headers == []


def test_a_recording_server_keeps_every_request_and_reply() -> None:
    with ScriptedModelServer(responder=lambda body: text("ok")) as server:
        ask(server.url)
        ask(server.url)

    assert server.count == 2 and len(server.requests) == len(server.replies) == 2
