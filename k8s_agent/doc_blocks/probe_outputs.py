"""The block `k8s-agent probe` prints: the SDK's behaviour on both wires, and the scorecard.

A test renders it from the pinned observations (poc/expected/) instead of probing the SDK:
`tests/poc/test_expectations.py` holds the installed SDK to those observations, so the page shows
what `probe` prints whenever both tests pass.
"""

from __future__ import annotations

from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import Shell
from k8s_agent.doc_blocks.views import fenced


def probe(shell: Shell) -> str:
    """`k8s-agent probe`, as it prints it."""
    return fenced(shell.k8s_agent("probe").stdout)


def pinned(shell: Shell) -> str:
    """What `probe` prints for an SDK that observes what poc/expected/ pins for the installed version."""
    import json
    from pathlib import Path

    import poc
    from poc.render import probe_table
    from poc.report import installed_versions, pinned_report

    version = installed_versions()["openai-agents"]
    pinned_file = Path(poc.__file__).resolve().parent / "expected" / f"{version}.json"
    return fenced(probe_table(pinned_report(json.loads(pinned_file.read_text(encoding="utf-8")))))


BLOCKS = (
    Block(
        "probe",
        "docs/migration.md",
        "k8s-agent probe",
        "probe: the SDK on both wires",
        probe,
        Check(pinned, how="the pinned observations, rendered as probe renders them"),
    ),
)
