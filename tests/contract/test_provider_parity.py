"""One parity table: every recorded shape under tests/providers, replayed through both agents on
the wire it belongs to (streamed when it is a stream), ends the same way on both, as
docs/providers.md says it does.

A provider's conversation (`wires`: a call, two parallel calls, the answer) is the provider matrix
of tests/contract/test_providers.py. The rest are single answers (`shapes` in `provider.json`: an
error body, a filtered answer, an item for a tool the agent never offered, a body that is not
JSON ...), each with the outcome the docs give it (`outcome`: the exit code, what the error says,
the guardrails it fires first). Each is the model's first answer here, followed by plain answers; for
each, on both agents: the documented exit code and message, the same guardrail events, and every
request valid (each call answered once, no call id used twice: tests.conftest checks every run);
on the Responses API the items of an answer the run went on from come back as they came.
The two agents' requests are the same JSON (the accepted differences of tests/wire.py `said`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.invariants import calls_answered
from k8s_agent.scenarios import PAYMENT
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS
from k8s_agent_scripted_llm import Recorded, text
from tests.conftest import AgentRun, run_scenario
from tests.wire import said

PROVIDERS = Path(__file__).parent.parent / "providers"
ANSWER = f"{PAYMENT} in production is in CrashLoopBackOff."
TYPES = {".json": "application/json", ".sse": "text/event-stream"}


def manifests() -> dict[str, dict[str, Any]]:
    """Every provider's `provider.json`, by directory."""
    return {
        path.parent.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(PROVIDERS.glob("*/provider.json"))
    }


SHAPES = [
    pytest.param(provider, shape, id=f"{provider}/{shape['file']}")
    for provider, described in manifests().items()
    for shape in described.get("shapes", [])
]


def test_every_recorded_file_is_in_a_conversation_or_the_parity_table() -> None:
    listed = set()
    for provider, described in manifests().items():
        for wire in described["wires"].values():
            listed |= {f"{provider}/{name}" for name in [*wire["answers"], *wire["streams"]]}
        listed |= {f"{provider}/{shape['file']}" for shape in described.get("shapes", [])}
    recorded = {
        f"{path.parent.name}/{path.name}"
        for path in PROVIDERS.glob("*/*")
        if path.is_file() and path.name != "provider.json"
    }

    assert recorded - listed == set(), "recorded shapes no test replays"
    assert listed - recorded == set(), "shapes named but not recorded"
    assert all((PROVIDERS / name.split("/")[0] / "provider.json").is_file() for name in recorded)


def replay(impl: str, provider: str, shape: dict[str, Any], workdir: Path) -> AgentRun:
    """`impl` on the shape as the model's first answer, then plain answers."""
    body = (PROVIDERS / provider / shape["file"]).read_text(encoding="utf-8")
    content_type = shape.get("content_type") or TYPES.get(Path(shape["file"]).suffix, "text/plain")
    first = Recorded(body, content_type, shape.get("status", 200))
    return run_scenario(
        impl,
        [first, *[text(ANSWER)] * 4],
        workdir,
        report_format="prose",
        api=shape["wire"],
        stream=content_type == "text/event-stream",
        max_retries=1,
        check_script=False,
    )


def outcome(run: AgentRun) -> tuple[int, str]:
    """The run's exit code and its error, the endpoint's address left out."""
    if run.error is None:
        return 0, ""
    return run.error.exit_code, re.sub(r"http://127\.0\.0\.1:\d+", "ENDPOINT", str(run.error))


@pytest.mark.parametrize(("provider", "shape"), SHAPES)
def test_a_recorded_shape_ends_the_same_documented_way_on_both_agents(
    provider: str, shape: dict[str, Any], tmp_path: Path
) -> None:
    expected = shape["outcome"]
    runs = {impl: replay(impl, provider, shape, tmp_path / impl) for impl in IMPLEMENTATIONS}

    ends = {impl: outcome(run) for impl, run in runs.items()}
    guardrails = {
        impl: [(e["guardrail"], e.get("message")) for e in run.events("guardrail")]
        for impl, run in runs.items()
    }
    for impl, run in runs.items():
        code, error = ends[impl]
        assert code == expected["exit"], (impl, error)
        assert expected.get("error", "") in error, (impl, error)
        assert "Traceback" not in error and "\n" not in error
        fired = [name for name, _ in guardrails[impl]]
        assert fired[: len(expected.get("guardrails", []))] == expected.get("guardrails", []), impl
        assert calls_answered(run.sent).held, impl
        if code == 0:
            assert run.answer == ANSWER, impl
            assert_items_went_back(provider, shape, run)
        assert run.trace and run.trace[-1]["kind"] == "run_end", impl  # the trace is written either way
    handwritten, sdk = IMPLEMENTATIONS
    assert ends[handwritten] == ends[sdk]
    assert guardrails[handwritten] == guardrails[sdk]
    assert [said(b) for b in runs[handwritten].sent] == [said(b) for b in runs[sdk].sent]


def assert_items_went_back(provider: str, shape: dict[str, Any], run: AgentRun) -> None:
    """On the Responses API every item of an answer the run went on from (reasoning, a search the
    provider ran itself, a message) is in the next request, as it came."""
    if shape["wire"] != "responses" or not shape["file"].endswith(".json"):
        return
    body = json.loads((PROVIDERS / provider / shape["file"]).read_text(encoding="utf-8"))
    for item in body["output"]:
        if item.get("status", "") is None:
            item = {key: value for key, value in item.items() if key != "status"}
        assert item in run.sent[1]["input"], json.dumps(item)[:300]


GUARDRAILS = {
    "unparsable_call": "the model is told what the provider could not parse (C8)",
    "zero_tool": "pushed back for a tool call (C2)",
}


def row(provider: str, shape: dict[str, Any], cites: str) -> str:
    """A shape's row of docs/providers.md's table of single answers."""
    expected = shape["outcome"]
    if expected["exit"]:
        ends = f"exit {expected['exit']}: ``{expected['error']}``"
    else:
        first = expected.get("guardrails", [])
        ends = "the run goes on" + (f": {GUARDRAILS[first[0]]}" if first else "")
    wire = {"chat": "Chat Completions", "responses": "Responses"}[shape["wire"]]
    status = shape.get("status", 200)
    return f"| `{provider}/{shape['file']}` | {wire}, HTTP {status} | {shape['what']} | {ends} | {cites} |"


def test_the_providers_page_lists_every_single_answer_with_what_both_agents_do() -> None:
    page = (PROVIDERS.parent.parent / "docs" / "providers.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0][3:-1]: line for line in page.splitlines() if line.startswith("| `")}

    for provider, described in manifests().items():
        for shape in described.get("shapes", []):
            line = rows.get(f"{provider}/{shape['file']}", "")
            assert line.startswith(row(provider, shape, "")[:-3]), (provider, shape["file"])
            for source in shape["learned_from"]:
                assert f"<{source.split(' ')[0]}>" in page, source


def test_the_readme_counts_the_providers_and_answers_tested() -> None:
    readme = (PROVIDERS.parent.parent / "README.md").read_text(encoding="utf-8")
    described = manifests().values()
    conversations = sum(any(wire["answers"] for wire in d["wires"].values()) for d in described)
    single = sum(len(d.get("shapes", [])) for d in described)

    assert f"{conversations} providers and {single} recorded odd answers are tested on both agents" in readme
