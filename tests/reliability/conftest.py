"""What the reliability tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _warm(warm: None) -> None:
    """Nearly every test here runs agents: the warm processes are started for the first."""
