"""`probe --versions` with a version that cannot be installed: its half-built environment goes, and the
command says so in its exit status. Offline: a stand-in interpreter whose venv's pip always fails."""

from __future__ import annotations

import io
import stat
from pathlib import Path

from poc.matrix import EXIT_NOT_PROBED, MatrixConfig, run_matrix
from poc.steps import Progress
from poc.venvs import BuildSettings, build

FAKE_PYTHON = """#!/bin/sh
# `python -m venv PATH` makes PATH/bin/python, whose pip finds no such version.
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin" "$3/lib"
    head -c 100000 /dev/zero > "$3/lib/payload"
    printf '#!/bin/sh\\necho "ERROR: No matching distribution found for openai-agents" >&2\\nexit 1\\n' > "$3/bin/python"
    chmod +x "$3/bin/python"
    exit 0
fi
exit 1
"""


def fake_python(folder: Path) -> Path:
    python = folder / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return python


def test_a_version_that_cannot_be_installed_leaves_no_environment(tmp_path: Path) -> None:
    settings = BuildSettings(tmp_path / "cache", fake_python(tmp_path), {"PATH": "/usr/bin:/bin"})
    env = build("0.0.999", settings, Progress(quiet=True, stream=io.StringIO()))
    assert env.status == "install failed" and "No matching distribution" in env.reason
    assert not env.path.exists()


def test_the_matrix_exits_5_when_a_version_was_not_probed(tmp_path: Path) -> None:
    config = MatrixConfig(
        versions=("0.0.999",),
        cache_dir=tmp_path / "cache",
        environ={"PATH": "/usr/bin:/bin"},
        quiet=True,
        python=fake_python(tmp_path),
    )
    assert run_matrix(config, as_json=True) == EXIT_NOT_PROBED
    assert not list((tmp_path / "cache").rglob("openai-agents-0.0.999"))
