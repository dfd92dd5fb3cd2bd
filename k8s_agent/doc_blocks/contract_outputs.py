"""The blocks of `k8s-agent contract` that run here: the judge's mutation test, and the scorecard of
our agents and the plain SDK on the Responses wire (the scorecard with HolmesGPT is a recorded run:
HolmesGPT is installed from the network)."""

from __future__ import annotations

import json
import re
from typing import Any

from k8s_agent.doc_blocks.block import Block
from k8s_agent.doc_blocks.shell import BlockError, Shell
from k8s_agent.doc_blocks.tables import table
from k8s_agent.doc_blocks.views import fenced

PAGE = "docs/contract.md"
FAILS_SOMEWHERE = (0, 5)
"""`contract` exits 5 when an item fails for a subject (the plain SDK fails several by design)."""
ON_RESPONSES = (
    "--subject",
    "handwritten",
    "--subject",
    "sdk",
    "--subject",
    "plain-sdk",
    "--api",
    "responses",
)


def mutants(shell: Shell) -> str:
    """`k8s-agent contract --mutants`, as it prints it."""
    return shell.k8s_agent("contract", "--mutants").stdout.rstrip()


def responses_scorecard(shell: Shell) -> str:
    """The matrix of our agents and the plain SDK on the Responses wire, then its last lines (the
    scratch folder named in them left out)."""
    printed = shell.k8s_agent("contract", *ON_RESPONSES, codes=FAILS_SOMEWHERE).stdout
    lines = printed.rstrip().split("\n")
    matrix = lines[: lines.index("")] if "" in lines else lines
    ran, wires = lines[-2], lines[-1]
    if not wires.startswith("Wire:"):
        raise BlockError("contract printed no Wire: line")
    return (
        "\n".join(matrix) + "\n\n" + fenced(re.sub(r"; each run's files in .*\.$", ".", ran) + "\n" + wires)
    )


def plain_sdk_wires(shell: Shell) -> str:
    """The plain SDK's verdicts on each wire, side by side."""
    from k8s_agent.contract.render import MARKS

    verdicts = {api: _verdicts(shell, api) for api in ("chat", "responses")}
    items = json.loads(shell.path("plain-sdk-chat.json").read_text(encoding="utf-8"))["items"]
    rows = [
        [item, behaviour, *(MARKS[verdicts[api][item]] for api in ("chat", "responses"))]
        for item, behaviour in items.items()
    ]
    return table(["item", "behaviour", "plain-sdk (chat)", "plain-sdk (responses)"], rows)


def _verdicts(shell: Shell, api: str) -> dict[str, Any]:
    out = f"plain-sdk-{api}.json"
    shell.k8s_agent("contract", "--subject", "plain-sdk", "--api", api, "--out", out, codes=FAILS_SOMEWHERE)
    report = json.loads(shell.path(out).read_text(encoding="utf-8"))
    subject = next((s for s in report["subjects"] if s["subject"] == "plain-sdk"), None)
    if subject is None:
        raise BlockError(f"the contract on {api} has no plain-sdk column")
    verdicts: dict[str, Any] = subject["verdicts"]
    return verdicts


BLOCKS = (
    Block(
        "contract-mutants",
        PAGE,
        "k8s-agent contract --mutants",
        "contract --mutants: the judge's test",
        mutants,
    ),
    Block(
        "contract-responses",
        PAGE,
        "k8s-agent contract " + " ".join(ON_RESPONSES),
        "contract: our agents and plain-sdk on Responses",
        responses_scorecard,
    ),
    Block(
        "contract-plain-sdk-wires",
        PAGE,
        "k8s-agent contract --subject plain-sdk --api API --out FILE.json, on each wire",
        "contract: plain-sdk on each wire",
        plain_sdk_wires,
    ),
)
