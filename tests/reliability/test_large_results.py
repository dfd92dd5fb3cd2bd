"""A result of megabytes costs the trace a bounded size: the trace keeps its first
`STORED_TEXT_MAX` characters, says how large the whole was, and reads back. Both agents."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from k8s_agent_harness.traces.events import STORED_TEXT_MAX, read_trace, sha256_of
from k8s_agent_scripted_llm import call, text
from tests.conftest import read_jsonl, run_scenario

CANNED_SERVER = Path(__file__).with_name("canned_server.py")
LINE = "production  web-{n:07d}  1/1  Running  0  5d\n"
ROWS = 150_000
"""About 6.9 MB of table: larger than a trace keeps of one text."""


def test_a_result_larger_than_a_trace_keeps_is_kept_cut_and_the_trace_still_reads(
    impl: str, tmp_path: Path
) -> None:
    whole = "NAMESPACE  NAME  READY  STATUS  RESTARTS  AGE\n" + "".join(LINE.format(n=n) for n in range(ROWS))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tools": [{"name": "pods_list", "text": whole}]}), encoding="utf-8")
    command = (sys.executable, str(CANNED_SERVER), str(spec), "--log", str(tmp_path / "calls.jsonl"))

    run = run_scenario(
        impl,
        [call("pods_list"), text("Every pod runs.")],
        tmp_path / "run",
        mcp_command=command,
        allow_read=("pods_list",),
    )

    assert run.answer == "Every pod runs." and run.trace_path is not None
    assert run.trace_path.stat().st_size < STORED_TEXT_MAX + 1_000_000  # not the 7 MB, nor twice it
    (stored,) = [
        record for record in read_jsonl(run.trace_path) if record["kind"] == "result" and record.get("bytes")
    ]
    assert stored["sha256"] == sha256_of(whole) and stored["bytes"] == len(whole.encode())
    assert stored["text"] == whole[:STORED_TEXT_MAX] and stored["kept_sha256"] == sha256_of(stored["text"])
    assert read_trace(run.trace_path).events  # the project's own reader takes it
