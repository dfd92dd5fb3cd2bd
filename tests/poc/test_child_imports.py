"""What `probe --versions` runs in each SDK version's environment imports only what that environment
holds: the standard library, poc/, k8s_agent_scripted_llm/, and openai-agents with its dependencies.

Those environments hold an SDK and nothing of this project's own dependencies: a module of poc/ or
k8s_agent_scripted_llm/ that imports, say, PyYAML fails every version's smoke test. Offline: the
probe runs here, in a subprocess shaped like the one in each environment.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

from poc.venvs import SMOKE_PROBE, BuildSettings, child_environ, source_dir
from tests.processes import HANG_SECONDS

# `python -m poc --json --only PROBE` (the smoke test each environment runs), then the top-level
# modules it imported, written to the file named by the second argument.
DRIVER = """
import json, runpy, sys
before = set(sys.modules)
probe, written = sys.argv[1:3]
sys.argv = ["poc", "--json", "--only", probe]
status = 0
try:
    runpy.run_module("poc", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    status = exit.code
with open(written, "w") as out:
    json.dump({"status": status, "modules": sorted({m.split(".")[0] for m in set(sys.modules) - before})}, out)
"""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sdk_closure() -> set[str]:
    """openai-agents and every distribution it requires, transitively, with the extras each
    requirement asks for (openai-agents' own extras left out)."""
    seen: set[tuple[str, str]] = set()
    pending = [("openai-agents", "")]
    while pending:
        name, extra = pending.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in requirements:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
                target = _normal(requirement.name)
                pending += [(target, "")] + [(target, wanted) for wanted in requirement.extras]
    return {name for name, _ in seen}


def test_a_probe_run_imports_only_the_sdk_its_dependencies_and_the_standard_library(tmp_path: Path) -> None:
    settings = BuildSettings(tmp_path / "sdk-venvs", Path(sys.executable), {"PATH": "/usr/bin:/bin"})
    folder = source_dir(settings)
    out = tmp_path / "imported.json"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, SMOKE_PROBE, str(out)],
        env=child_environ(settings),
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    imported = json.loads(out.read_text())
    assert imported["status"] == 0, done.stderr[-3000:]

    closure = sdk_closure()
    owners = importlib.metadata.packages_distributions()
    # A module no installed distribution provides is the standard library's, or a name a package
    # registers for a submodule of its own (cryptography's `_openssl`): only owned modules count.
    foreign = [
        module
        for module in imported["modules"]
        if module not in ("poc", "k8s_agent_scripted_llm")
        and owners.get(module)
        and not any(_normal(dist) in closure for dist in owners[module])
    ]
    assert not foreign, f"the probes import what an SDK environment lacks: {foreign}"
