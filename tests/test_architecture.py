"""House rules of the layout (DESIGN.md): imports point down, and the SDK stays in its corner."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> top-level packages of this project it must not import
FORBIDDEN = {
    "harness": {
        "k8s_agent",
        "handwritten_agent",
        "sdk_agent",
        "poc",
        "mock_cluster",
        "scripted_llm",
        "agents",
    },
    "handwritten_agent": {"sdk_agent", "k8s_agent", "poc", "mock_cluster", "agents"},
    "sdk_agent": {"handwritten_agent", "k8s_agent", "poc", "mock_cluster"},
    "mock_cluster": {"harness", "k8s_agent", "handwritten_agent", "sdk_agent", "scripted_llm", "agents"},
    "scripted_llm": {"harness", "k8s_agent", "handwritten_agent", "sdk_agent", "mock_cluster", "agents"},
    "k8s_agent": {"agents"},
}


def imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_down(package: str) -> None:
    offences = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in sorted(imported_packages(path) & FORBIDDEN[package])
    ]
    assert offences == []


def test_the_handwritten_path_never_imports_the_sdk(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from harness.config import load_config\n"
        "from k8s_agent.cli import build_parser\n"
        "from k8s_agent.runner import run_question\n"
        f"config = load_config({{'trace_dir': {str(tmp_path)!r}}}, {{}}, None)\n"
        "asyncio.run(run_question(config, 'Which pods are unhealthy?'))\n"
        "assert 'agents' not in sys.modules, 'the SDK was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
