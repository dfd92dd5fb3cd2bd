"""What the CLI tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_ask import DEFAULT_QUESTION, ask


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `ask` run's trace (the offline model on the shipped mock cluster), copied by each test."""
    folder = tmp_path_factory.mktemp("recorded")
    done = ask(DEFAULT_QUESTION, "--quiet", cwd=folder)
    assert done.returncode == 0, done.stderr
    (path,) = (folder / "traces").glob("*.jsonl")
    return path
