"""Progress lines: plain when piped, coloured on a terminal unless NO_COLOR, a waiting line while
the model thinks."""

from __future__ import annotations

import io
import itertools
import time

from k8s_agent.progress import ProgressPrinter
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Outcome
from tests.processes import HANG_SECONDS


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


CALL = events.ToolCall(
    request_id="c1", tool="list_pods", arguments={}, fingerprint="f", outcome=Outcome.EXECUTED
)
FAILED = events.ToolCall(
    request_id="c2",
    tool="list_pods",
    arguments={},
    fingerprint="f",
    outcome=Outcome.FAILED,
    result="Tool call failed (list_pods): boom",
)


def test_piped_output_is_plain_lines() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})

    printer(
        events.ModelRequest(step=1, message_count=2, tools_sent=True, tool_count=7, tool_choice="required")
    )
    printer(CALL)

    assert stream.getvalue() == (
        "step 1: asking the model (2 messages, tools required)\n  ✓ list_pods(): 1 line, 0 ms\n"
    )


def test_on_the_responses_wire_the_request_is_counted_in_input_items() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})

    printer(events.ModelRequest(step=2, api="responses", message_count=17, tools_sent=True, tool_count=7))
    printer(events.ModelRequest(step=3, api="responses", message_count=1, tools_sent=True, tool_count=0))

    assert stream.getvalue().splitlines() == [
        "step 2: asking the model (17 input items, tools offered)",
        # an empty tools list (the SDK's Responses model once tools are withdrawn) offers none
        "step 3: asking the model (1 input item, summary, no tools)",
    ]


def test_the_first_line_names_the_responses_api_and_says_nothing_of_chat() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})

    for api in ("responses", "chat"):
        printer(events.RunStart(impl="sdk", model="m", question="q?", started_at="now", api=api))

    assert stream.getvalue().splitlines() == [
        "k8s-agent · sdk agent · model m on the responses API · question: q?",
        "k8s-agent · sdk agent · model m · question: q?",
    ]


def test_a_terminal_gets_colour_unless_no_color_is_set() -> None:
    coloured, plain = Terminal(), Terminal()

    ProgressPrinter(coloured, environ={"TERM": "xterm"})(FAILED)
    ProgressPrinter(plain, environ={"TERM": "xterm", "NO_COLOR": "1"})(FAILED)

    assert "\x1b[31m✗\x1b[0m list_pods()" in coloured.getvalue()
    assert "\x1b[" not in plain.getvalue() and "✗ list_pods()" in plain.getvalue()


def test_a_terminal_shows_the_seconds_while_the_model_thinks_and_clears_the_line() -> None:
    stream = Terminal()
    frozen = itertools.repeat(100.0)  # a clock that stands still: the line says 0 s however slow the machine
    printer = ProgressPrinter(stream, environ={"TERM": "xterm"}, tick=0.01, clock=lambda: next(frozen))

    printer(events.ModelRequest(step=1, message_count=2, tools_sent=True, tool_count=7))
    deadline = time.monotonic() + HANG_SECONDS
    while "waiting for the model" not in stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    printer(events.ModelResponse(step=1, text="done"))
    printer.close()

    out = stream.getvalue()
    assert "  … waiting for the model (0 s)" in out
    assert out.endswith("\r\x1b[2K  model answers (4 characters) (0 ms)\n")  # cleared, then the line


def test_piped_output_never_draws_the_waiting_line() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={}, tick=0.01)

    printer(events.ModelRequest(step=1, message_count=2, tools_sent=True, tool_count=7))
    time.sleep(0.05)
    printer(events.ModelResponse(step=1, text="done"))

    assert "waiting" not in stream.getvalue() and "\r" not in stream.getvalue()


def test_a_streamed_answer_shows_its_text_as_it_comes_in_a_margin_ended_before_the_next_line() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})

    printer(events.ModelRequest(step=3, message_count=9, tools_sent=True, tool_count=7, tool_choice="auto"))
    printer(events.StreamedText(text="payment-service is in "))
    shown_so_far = stream.getvalue()
    printer(events.StreamedText(text="CrashLoopBackOff:\nDB_PASSWORD is missing."))
    printer(events.ModelResponse(text="payment-service is in CrashLoopBackOff:\nDB_PASSWORD is missing."))

    assert shown_so_far.endswith("  │ payment-service is in ")  # printed before the answer was whole
    assert stream.getvalue().splitlines()[1:] == [
        "  │ payment-service is in CrashLoopBackOff:",
        "  │ DB_PASSWORD is missing.",
        "  model answers (63 characters) (0 ms)",
    ]


def test_streamed_text_is_printed_without_the_escapes_it_may_carry() -> None:
    stream = Terminal()
    printer = ProgressPrinter(stream, environ={"NO_COLOR": "1"})

    printer(events.StreamedText(text="evil \x1b]0;title\x07 text"))
    printer.close()

    assert "\x1b]" not in stream.getvalue() and "\\x1b" in stream.getvalue()
    assert stream.getvalue().endswith("\n")


def test_a_streamed_structured_report_shows_each_finding_once_it_is_complete_not_its_json() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={}, command_clock=lambda: 9.5)
    report = (
        '  {"scope": "pods", "findings": [{"kind": "pod", "name": "api-1", "namespace": "shop", '
        '"status": "CrashLoopBackOff", "cause": "crash_config", "evidence": [{"text": "a ] or } in a quote"}]},'
        ' {"kind": "node", "name": "n1", "status": "NotReady", "cause": "node_not_ready"}], "healthy": {"count": 2}}'
    )
    start = events.RunStart(
        run_id="r", impl="handwritten", question="q", started_at="now", report_format="json_schema"
    )

    printer(start)
    printer(events.ModelRequest(step=3, message_count=9, tools_sent=True, tool_count=7, tool_choice="auto"))
    seen = []
    for piece in (report[at : at + 7] for at in range(0, len(report), 7)):  # a stream in small pieces
        printer(events.StreamedText(text=piece))
        seen.append(stream.getvalue().count("finding:"))
    printer(events.ModelResponse(step=3, text=report.strip()))
    printer(events.RunEnd(run_id="r", impl="handwritten", status="ok", wall_seconds=1.25))

    lines = stream.getvalue().splitlines()[2:]
    assert lines == [
        "  │ writing the report; each finding as it is written:",
        "  │ finding: pod api-1 (shop): CrashLoopBackOff · crash_config",
        "  │ finding: node n1: NotReady · node_not_ready",
        f"  model answers ({len(report.strip())} characters) (0 ms)",
        "run ended after 1.2 s; 9.5 s since the command started (the rest: loading the agent and checking the "
        "request)",
    ]
    assert seen[0] == 0 and seen[-1] == 2 and seen == sorted(seen)  # each as it completes


def test_a_streamed_prose_answer_in_a_structured_run_is_shown_as_text() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})
    printer(
        events.RunStart(run_id="r", impl="sdk", question="q", started_at="now", report_format="json_text")
    )

    printer(events.StreamedText(text="  "))
    printer(events.StreamedText(text="Let me look at the pods."))
    printer.close()

    assert stream.getvalue().splitlines()[1:] == ["  │   Let me look at the pods."]
