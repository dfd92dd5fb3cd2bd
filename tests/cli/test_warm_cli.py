"""The warm `k8s-agent` the CLI tests use (tests/warm_cli.py) prints what a cold start prints: the
same exit status, stdout and stderr for the same commands, both agents, in the test's folder and
environment."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.processes import k8s_agent

QUESTION = "Which pods in the production namespace are unhealthy, and why?"
VOLATILE = re.compile(r"\d+(\.\d+)? ?(ms|s)\b|\d{8}T\d{6}Z-\w+-[0-9a-f]{12}")


def run(*args: str, cwd: Path, cold: bool, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = k8s_agent(*args, cwd=cwd, cold=cold, env={"K8S_AGENT_TRACE_DIR": "traces", **(env or {})})
    return done.returncode, VOLATILE.sub("#", done.stdout), VOLATILE.sub("#", done.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("ask", "--help"),
        ("ask", QUESTION, "--max-steps", "0"),
        ("ask", QUESTION, "--cluster", "no-such-file.yaml"),
        ("eval", "list", "--incident", "crash*"),
        ("ask", QUESTION, "--impl", "handwritten"),
        ("ask", QUESTION, "--impl", "sdk"),
    ],
    ids=["help", "ask-help", "bad-value", "missing-fixture", "eval-list", "ask-handwritten", "ask-sdk"],
)
def test_a_warm_run_prints_what_a_cold_run_prints(args: tuple[str, ...], tmp_path: Path) -> None:
    (tmp_path / "cold").mkdir()
    (tmp_path / "warm").mkdir()

    cold = run(*args, cwd=tmp_path / "cold", cold=True)
    warm = run(*args, cwd=tmp_path / "warm", cold=False)

    assert warm == cold
    assert cold[1] or cold[2]  # it printed something to compare


def test_a_warm_run_reads_its_own_environment_and_folder(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("K8S_AGENT_MAX_STEPS=2\n")  # read from the run's folder

    cold = k8s_agent(
        "ask", QUESTION, "--json", "--quiet", cwd=tmp_path, cold=True, env={"K8S_AGENT_TRACE_DIR": "c"}
    )
    warm = k8s_agent("ask", QUESTION, "--json", "--quiet", cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "w"})

    assert cold.returncode == warm.returncode
    outs: list[dict[str, Any]] = [json.loads(cold.stdout), json.loads(warm.stdout)]
    starts = [json.loads((tmp_path / out["trace"]).read_text().splitlines()[0]) for out in outs]
    assert [start["budgets"]["max_steps"] for start in starts] == [2, 2]
    assert [Path(out["trace"]).parent for out in outs] == [Path("c"), Path("w")]  # relative to its folder
