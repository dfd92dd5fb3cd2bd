"""The `holmesgpt` subject.

Offline: what the adapter hands HolmesGPT (its config file, environment and command line), seen
through a stand-in interpreter that records them, and that a missing venv is a clear outcome.

Opt-in (needs the package registry the first time, about 3 minutes and 800 MB; reuses
$K8S_AGENT_CACHE's venv when there is one):

    K8S_AGENT_NETWORK_TESTS=1 python -m pytest tests/contract/test_holmesgpt.py -m network
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from k8s_agent.contract.holmes import DISABLED_TOOLSETS, MARKER, VERSION, HolmesGPT
from k8s_agent.contract.launch import Setup
from tests.contract.test_contract_cli import contract

RECORDER = """#!{python}
import json, os, sys
argv = sys.argv[1:]
config = argv[argv.index("--config") + 1]
out = argv[argv.index("--json-output-file") + 1]
with open(os.path.join(os.path.dirname(config), "seen.json"), "w") as seen:
    json.dump({{"argv": argv, "env": dict(os.environ)}}, seen)
with open(out, "w") as answer:
    json.dump({{"result": "All pods are healthy.", "messages": []}}, answer)
"""


def fake_venv(cache: Path) -> HolmesGPT:
    """A 'venv' whose python records what it was given and writes a HolmesGPT-shaped output."""
    holmes = HolmesGPT(cache_dir=cache)
    holmes.python.parent.mkdir(parents=True)
    holmes.python.write_text(RECORDER.format(python=sys.executable))
    holmes.python.chmod(0o755)
    (holmes.venv / MARKER).write_text(json.dumps({"holmesgpt": VERSION}))
    return holmes


def setup(workdir: Path) -> Setup:
    workdir.mkdir()
    return Setup(
        base_url="http://127.0.0.1:9/v1",
        api_key="contract-scripted",
        model="scripted",
        mcp_command=(sys.executable, "-m", "k8s_agent_mock_cluster", "--call-log", str(workdir / "c.jsonl")),
        question="Which pods are unhealthy?",
        workdir=workdir,
        overrides={"max_steps": 3},
    )


def test_holmesgpt_gets_our_endpoint_our_mcp_server_only_a_scratch_home_and_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-never-passed")
    monkeypatch.setenv("HOME", str(tmp_path / "real-home"))
    holmes = fake_venv(tmp_path / "cache")
    run = setup(tmp_path / "run")

    outcome = asyncio.run(holmes.run(run))

    assert outcome.error is None and outcome.answer == "All pods are healthy."
    config = yaml.safe_load((run.workdir / "holmes-config.yaml").read_text())
    assert config["model"] == "openai/scripted" and config["api_base"] == run.base_url
    assert config["api_key"] == "contract-scripted" and config["max_steps"] == 3
    assert config["toolsets"] == {name: {"enabled": False} for name in DISABLED_TOOLSETS}
    (server,) = config["mcp_servers"].values()
    assert server["config"] == {"mode": "stdio", "command": sys.executable, "args": list(run.mcp_command[1:])}
    seen = json.loads((run.workdir / "seen.json").read_text())
    question_at = seen["argv"].index(run.question)
    assert seen["argv"][question_at - 1] == "ask" and "--no-interactive" in seen["argv"]
    env = seen["env"]
    assert env["HOME"] == str(run.workdir / "home") and env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert not any("sk-real-key" in value for value in env.values())
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env


def test_a_venv_that_is_not_built_is_a_clear_outcome_not_a_crash(tmp_path: Path) -> None:
    holmes = HolmesGPT(cache_dir=tmp_path / "empty")

    outcome = asyncio.run(holmes.run(setup(tmp_path / "run")))

    assert outcome.answer is None and "venv is not built" in str(outcome.error)


def test_a_ready_venv_is_reused_without_building(tmp_path: Path) -> None:
    holmes = fake_venv(tmp_path / "cache")
    said: list[str] = []

    holmes.prepare(said.append)

    assert said == [f"holmesgpt {VERSION}: cached venv ({holmes.venv})"]


def test_a_build_that_fails_is_one_line_exit_2_and_leaves_no_ready_venv(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_", "PIP_"))}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS="", PIP_CONFIG_FILE=os.devnull)  # pip finds nothing
    cache = tmp_path / "cache"

    done = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "contract", "--subject", "holmesgpt", "--cache-dir", str(cache)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"error: holmesgpt: cannot build HolmesGPT's venv (pip install holmesgpt=={VERSION}"
    )
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert f"holmesgpt {VERSION}: building its venv in" in done.stderr  # it said what it was doing
    assert not HolmesGPT(cache_dir=cache).ready()


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("K8S_AGENT_NETWORK_TESTS") != "1",
    reason="installs HolmesGPT from the package registry: set K8S_AGENT_NETWORK_TESTS=1",
)
def test_holmesgpt_runs_the_whole_contract_against_our_servers(tmp_path: Path) -> None:
    cache = os.environ.get("K8S_AGENT_CACHE") or str(tmp_path / "cache")

    done = contract(
        "--subject", "holmesgpt", "--cache-dir", cache, "--format", "json",
        "--work-dir", str(tmp_path / "runs"), cwd=tmp_path, timeout=1800,
    )  # fmt: skip

    assert done.returncode == 5, done.stderr[-3000:]
    (subject,) = json.loads(done.stdout)["subjects"]
    runs, verdicts = subject["runs"], subject["verdicts"]
    assert all(run["requests"] >= 1 for run in runs.values())  # it talked to the scripted model every time
    assert runs["c1-forced-first-step"]["server_calls"]  # and its calls reached the mock cluster
    assert verdicts["C9"] == "holds"  # a failing tool comes back to the model as a result
    assert verdicts["C6"] == "fails"  # it names the unknown tool but not the tools there are
    assert verdicts["C13"] == "fails"  # it runs delete_pod without an approval
    first = next(j for j in subject["judgements"] if j["item"] == "C1")
    assert first["verdict"] == "fails"
    assert first["violations"][0]["evidence"] == ['request 1: tools 9, tool_choice "auto"']
