"""House rules of the layout (docs/design.md): distinctive names, imports point down, and the SDK
stays in its corner."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.processes import HANG_SECONDS

ROOT = Path(__file__).resolve().parent.parent

# Top-level packages, highest layer first. A package may import those below it, never one above,
# and never one beside it (the two agents do not know each other).
LAYERS: list[set[str]] = [
    {"k8s_agent"},  # the face: CLI, compare, trace tools, bench
    {"handwritten_agent", "sdk_agent", "poc"},  # the agents, and the SDK probes
    {"k8s_agent_harness"},  # shared by both agents, SDK-free
    {"k8s_agent_mock_cluster", "k8s_agent_scripted_llm"},  # stand-alone: the test cluster and model
]
OURS = set().union(*LAYERS)
# Below the face, only these may import the OpenAI Agents SDK (`agents`); in the face only bench.
SDK_ALLOWED = {"sdk_agent", "poc"}
# What the harness and the agents may reach by import: the mock cluster only over MCP (a subprocess).
EXCEPTIONS = {
    "poc": {"k8s_agent_scripted_llm"},  # the probes drive the SDK against the scripted model
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


def allowed_imports(package: str) -> set[str]:
    """The project's packages `package` may import: itself and the layers below its own."""
    level = next(number for number, layer in enumerate(LAYERS) if package in layer)
    below = set().union(*LAYERS[level + 1 :]) if level + 1 < len(LAYERS) else set()
    if package in ("handwritten_agent", "sdk_agent"):
        below -= {"k8s_agent_mock_cluster", "k8s_agent_scripted_llm"}
    if package == "poc":
        below = set(EXCEPTIONS["poc"])
    if package == "k8s_agent_harness":
        below = set()
    return {package, *below}


@pytest.mark.parametrize("package", sorted(OURS))
def test_imports_point_down(package: str) -> None:
    offences = []
    for path in sorted((ROOT / package).rglob("*.py")):
        imported = imported_packages(path)
        for name in sorted((imported & OURS) - allowed_imports(package)):
            offences.append(f"{path.relative_to(ROOT)} imports {name}")
        in_bench = path.is_relative_to(ROOT / "k8s_agent" / "bench")
        if "agents" in imported and package not in SDK_ALLOWED and not in_bench:
            offences.append(f"{path.relative_to(ROOT)} imports the SDK (agents)")
    assert offences == []


# Inside the harness, lowest first: its base modules, then its subpackages, then what a run shares
# and prints. A module may import its own folder, the base and the floors below its own, never one
# above, and never one beside it.
HARNESS_FLOORS: list[set[str]] = [
    {"errors", "vocabulary", "interrupts"},  # the base: failures, the words runs are described in, signals
    {"config"},  # the settings, each defined once
    {"config_load"},  # the settings read from flags, the environment and .env
    {"evidence"},  # what the tools showed: shapes, redaction, provenance, the report, its verification
    {"traces"},  # what a run leaves behind: trace events, the writer, spans, OTLP, private files
    {"cluster", "model"},  # the two wires: the MCP client and servers; the model client and prompts
    {"guards"},  # the safety core: the gateway every call takes, read policy, budgets, review
    {"session"},  # what a run shares
    {"printout"},  # a run's result, printed
]
HARNESS = ROOT / "k8s_agent_harness"


def harness_part(module: str) -> str | None:
    """The floor's name of a `k8s_agent_harness` module (`guards` for k8s_agent_harness.guards.gateway)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "k8s_agent_harness" and len(parts) > 1 else None


def test_every_harness_module_is_on_a_floor() -> None:
    parts = {
        path.stem if path.parent == HARNESS else path.relative_to(HARNESS).parts[0]
        for path in HARNESS.rglob("*.py")
    }

    assert parts - {"__init__"} == set().union(*HARNESS_FLOORS)


def test_the_harness_imports_point_down() -> None:
    floor_of = {part: number for number, floor in enumerate(HARNESS_FLOORS) for part in floor}
    offences = []
    for path in sorted(HARNESS.rglob("*.py")):
        relative = path.relative_to(HARNESS)
        own = path.stem if len(relative.parts) == 1 else relative.parts[0]
        if own == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            modules = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else []
            )
            if isinstance(node, ast.ImportFrom) and node.module == "k8s_agent_harness":
                modules = [f"k8s_agent_harness.{alias.name}" for alias in node.names]
            for module in modules:
                part = harness_part(module)
                if part is None or part == own:
                    continue
                if floor_of[part] >= floor_of[own]:
                    offences.append(f"{relative} imports {module}")
    assert offences == []


def test_every_top_level_name_the_project_installs_is_its_own() -> None:
    installed = metadata.distribution("k8s-agent").read_text("top_level.txt") or ""

    names = set(installed.split())
    assert names == OURS
    assert not names & {"harness", "bench", "mock_cluster", "scripted_llm"}
    assert all(
        name.startswith("k8s_agent") or name in ("handwritten_agent", "sdk_agent", "poc") for name in names
    )


def test_every_package_folder_is_part_of_a_layer() -> None:
    folders = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}

    assert folders == OURS


def test_the_handwritten_path_never_imports_the_sdk(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from k8s_agent_harness.config_load import load_config\n"
        "from k8s_agent.cli import build_parser\n"
        "from k8s_agent.implementations import ask\n"
        "build_parser()\n"
        f"config = load_config({{'trace_dir': {str(tmp_path)!r}}}, {{}}, None)\n"
        "asyncio.run(ask(config, 'Which pods are unhealthy?'))\n"
        "assert 'agents' not in sys.modules, 'the SDK was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_importing_the_cli_imports_neither_openai_nor_mcp_nor_the_sdk() -> None:
    script = (
        "import sys\n"
        "from k8s_agent.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in ('agents', 'openai', 'mcp', 'pydantic') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
