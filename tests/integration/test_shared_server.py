"""One MCP server for many runs: the mock cluster over Streamable HTTP, four runs at once (both
agents, twice each), each on a connection of its own. Every run puts on the model wire what it puts
against a server of its own, a fault plan fires once per connection, and the server's log tells
each run's calls apart (by the name in its URL and by its session)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from k8s_agent.scenarios import SCENARIOS
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS
from k8s_agent_mock_cluster.call_log import of_client, read_call_log
from tests.conftest import AgentRun, run_scenario
from tests.processes import HANG_SECONDS
from tests.wire import wire_view

FAILURE = "etcdserver: request timed out"
PLAN = {"faults": [{"tool": "describe_pod", "action": "error", "times": 1, "message": FAILURE}]}


def test_one_server_for_many_runs_keeps_each_connection_to_itself(tmp_path: Path) -> None:
    scenario = SCENARIOS["offline-default"]
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    log = tmp_path / "shared-calls.jsonl"
    server = subprocess.Popen(
        [sys.executable, "-m", "k8s_agent_mock_cluster", "--http", "127.0.0.1:0",
         "--faults", str(tmp_path / "plan.json"), "--call-log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().removeprefix("serving ")
        assert url.startswith("http://127.0.0.1:"), server.communicate(timeout=HANG_SECONDS)
        names = [f"{impl.value}-{repeat}" for impl in IMPLEMENTATIONS for repeat in (1, 2)]
        with ThreadPoolExecutor(len(names)) as pool:
            futures = {
                name: pool.submit(run_scenario, name.rsplit("-", 1)[0], scenario, tmp_path / name, mcp_url=f"{url}/{name}")
                for name in names
            }  # fmt: skip
            shared = {name: future.result() for name, future in futures.items()}
    finally:
        server.terminate()
        server.communicate(timeout=HANG_SECONDS)
    alone: dict[str, AgentRun] = {}
    for impl in IMPLEMENTATIONS:  # the same plan, a server of its own (and a plan state of its own)
        own_plan = tmp_path / f"plan-{impl.value}.json"
        shutil.copy(tmp_path / "plan.json", own_plan)
        alone[impl.value] = run_scenario(impl, scenario, tmp_path / f"alone-{impl.value}", faults=own_plan)

    logged = read_call_log(log)
    for name, run in shared.items():
        own = alone[name.rsplit("-", 1)[0]]
        assert run.error is None and own.error is None, (run.error, own.error)
        assert wire_view(run.requests) == wire_view(own.requests), name
        assert json.dumps(run.requests).count(FAILURE) == json.dumps(own.requests).count(FAILURE) >= 1
        mine = of_client(logged, name)
        assert [(c["tool"], c["arguments"]) for c in mine] == own.calls_received(), name
        assert (
            len({c["session"] for c in mine}) == 1 and [c["fault"] is not None for c in mine].count(True) == 1
        )
    assert (
        len({c["session"] for c in logged}) == len(names)
        and len(logged) == sum(len(run.calls_received()) for run in alone.values()) * 2
    )
