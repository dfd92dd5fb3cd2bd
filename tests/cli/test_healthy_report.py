"""A report with no findings: its footer says what it rests on (what the tools showed, by kind,
namespace and tool), the same in the terminal, in --markdown and in --json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_ask import ask

QUIET_PODS = [
    "inbox-7c9d8x6f5-z7b2c",
    "outbox-5f4x4d2c7-d4x4f",
    "relay-6z5b4c4d2-g5h6j",
    "sweeper-8b7c6d5x4-j7k8l",
]


def quiet_fixture() -> dict[str, Any]:
    """Namespace `quiet`: four running pods; three Ready nodes; nothing wrong anywhere."""
    nodes = [
        {"name": f"mail-node-{n}", "status": "Ready", "allocatable": {"cpu": "2", "memory": "8Gi"}}
        for n in "xyz"
    ]
    pods = [
        {
            "name": name,
            "namespace": "quiet",
            "status": "Running",
            "phase": "Running",
            "node": nodes[index % 3]["name"],
            "containers": [{"name": name.split("-")[0], "image": "ghcr.io/acme/mail:2", "ready": True}],
        }
        for index, name in enumerate(QUIET_PODS)
    ]
    return {"nodes": nodes, "pods": pods, "events": []}


def healthy_report(*examples: str) -> str:
    return json.dumps(
        {
            "scope": "pods in namespace quiet",
            "findings": [],
            "healthy": {"count": 4, "examples": list(examples)},
        }
    )


def scripted_run(tmp_path: Path, answer: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`ask` with a scripted model that lists the pods of `quiet` and the nodes, then answers."""
    from k8s_agent_scripted_llm import ScriptedModelServer, call, text

    fixture = tmp_path / "quiet.json"
    fixture.write_text(json.dumps(quiet_fixture()))
    script = [call("list_pods", namespace="quiet"), call("list_nodes"), text(answer), text(answer)]
    with ScriptedModelServer(script) as server:
        return ask(
            "Which pods in the quiet namespace are unhealthy?",
            *(
                "--cluster",
                str(fixture),
                "--base-url",
                server.url,
                "--model",
                "scripted",
                "--api-key",
                "sk-t",
            ),
            *("--report-format", "json_schema", "--quiet", *flags),
            cwd=tmp_path,
        )


def footer(stdout: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.strip("_").startswith("Verification: ")]
    return line.strip("_")


def test_a_report_with_no_findings_says_what_the_tools_showed_in_every_output(tmp_path: Path) -> None:
    answer = healthy_report(QUIET_PODS[0], QUIET_PODS[2])

    terminal = scripted_run(tmp_path, answer)
    markdown = scripted_run(tmp_path, answer, "--markdown")
    as_json = scripted_run(tmp_path, answer, "--json")

    expected = (
        "Verification: no findings to verify; the tools showed 4 pods in namespace quiet (list_pods), "
        "3 nodes (list_nodes); the report, on pods in namespace quiet, names none of them unhealthy; the 2 "
        "healthy examples are among them."
    )
    assert terminal.returncode == 0, terminal.stderr
    assert footer(terminal.stdout) == expected
    assert markdown.returncode == 0, markdown.stderr
    assert f"_{expected}_" in markdown.stdout.splitlines()
    assert as_json.returncode == 0, as_json.stderr
    out = json.loads(as_json.stdout)
    assert out["report_verified"] is True and out["report"]["findings"] == []
    assert out["resources_shown"] == [
        {"kind": "pod", "count": 4, "namespaces": ["quiet"], "tools": ["list_pods"]},
        {"kind": "node", "count": 3, "namespaces": [], "tools": ["list_nodes"]},
    ]
    assert "0 of 0 quotes" not in terminal.stdout + markdown.stdout


def test_a_report_with_no_findings_and_a_made_up_example_is_unverified_and_says_so(tmp_path: Path) -> None:
    done = scripted_run(tmp_path, healthy_report(QUIET_PODS[1], "ghost-pod-0000000000-zzzzz"))

    assert done.returncode == 6, done.stderr
    assert footer(done.stdout) == (
        "Verification: no findings to verify; the tools showed 4 pods in namespace quiet (list_pods), "
        "3 nodes (list_nodes); UNVERIFIED: the healthy example 'ghost-pod-0000000000-zzzzz' names nothing a "
        "tool showed"
    )


@pytest.mark.parametrize("flag", ["", "--markdown"])
def test_the_offline_model_s_report_on_a_healthy_namespace_names_what_it_checked(
    flag: str, tmp_path: Path
) -> None:
    done = ask(
        "Which pods in the staging namespace are unhealthy?",
        "--quiet",
        *([flag] if flag else []),
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    line = footer(done.stdout)
    assert line.startswith("Verification: no findings to verify; the tools showed ")
    assert " pods in namespace staging (" in line and "names none of them unhealthy" in line
