"""The `holmesgpt` subject (placeholder until the adapter lands)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from k8s_agent.contract.subjects import Outcome, Setup


@dataclass(frozen=True)
class HolmesGPT:
    cache_dir: Path | None = None
    name: str = "holmesgpt"
    description: str = "HolmesGPT"

    async def run(self, setup: Setup) -> Outcome:
        return Outcome(error="not yet")
