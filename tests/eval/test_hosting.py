"""One server per incident, shared by its runs (k8s_agent.eval.hosting, through the eval's pool):
each incident's server starts once and stops after its last run; an incident whose server cannot
start fails its own runs at once, with the reason, and no other."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

from k8s_agent.eval.corpus import Incident
from k8s_agent.eval.hosting import serve_mock_cluster
from k8s_agent.eval.runner import Progress, Results, model_endpoints, plan, run_jobs
from k8s_agent_harness.config import OFFLINE_MODEL, Config
from k8s_agent_harness.errors import McpServerError
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS
from tests.eval.test_eval_cli import write_corpus


def test_each_incident_is_served_once_and_one_that_cannot_start_fails_only_its_runs(tmp_path: Path) -> None:
    from k8s_agent.eval.corpus import load_corpus

    incidents, _ = load_corpus(write_corpus(tmp_path / "corpus"))
    broken = incidents[0].id
    served: list[str] = []
    stopped: list[str] = []

    @contextlib.asynccontextmanager
    async def serve(incident: Incident) -> AsyncIterator[str]:
        served.append(incident.id)
        if incident.id == broken:
            raise McpServerError("the server exited during start-up (status 3)")
        async with serve_mock_cluster(incident) as url:
            yield url
        stopped.append(incident.id)

    jobs = plan(IMPLEMENTATIONS, [OFFLINE_MODEL], incidents, repeat=3)
    config = Config(model=OFFLINE_MODEL, trace_dir=tmp_path, keep_traces=0)
    results = Results(tmp_path / "r.jsonl")
    with model_endpoints({OFFLINE_MODEL: config}) as (pointed, _):
        asyncio.run(
            run_jobs(
                jobs, pointed, results, tmp_path / "traces", concurrency=4,
                progress=Progress(len(jobs), quiet=True), serve=serve,
            )
        )  # fmt: skip

    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(records) == len(jobs) == 2 * 3 * len(incidents)
    assert sorted(served) == sorted(i.id for i in incidents)  # once each, the broken one too
    assert stopped == [i.id for i in incidents if i.id != broken]
    for record in records:
        if record["incident"] == broken:
            assert record["error"] == "McpServerError: the server exited during start-up (status 3)"
        else:
            assert record["error"] is None and record["score"]["solved"], record["incident"]
