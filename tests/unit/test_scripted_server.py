"""The scripted model server's recording: kept for tests, off for a long-lived server (an eval's
offline model answers thousands of requests and must not hold every body)."""

from __future__ import annotations

import json
import socket
import struct
import time
import urllib.parse
import urllib.request
from typing import Any

import pytest

from k8s_agent_scripted_llm import ScriptedModelServer, text
from tests.processes import HANG_SECONDS


def ask(url: str) -> dict[str, Any]:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=HANG_SECONDS) as response:
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


def test_a_client_that_resets_its_connection_mid_request_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A run cancelled mid-request (Ctrl-C of an eval) resets its connection: no traceback on the terminal."""
    with ScriptedModelServer([text("unused")]) as server:
        where = urllib.parse.urlsplit(server.url)
        client = socket.create_connection((where.hostname, where.port))
        client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")  # headers never end
        time.sleep(0.2)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, not a clean close
        time.sleep(0.3)

    assert "Traceback" not in capfd.readouterr().err
