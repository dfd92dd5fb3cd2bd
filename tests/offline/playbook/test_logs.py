"""The deciding line of a crash (playbook/logs.py): noise is never the cause, what a process logs once
it says it stops is a consequence, and a configuration error before the stop beats the exception at
the end. Each rule on logs written for it, read through the playbook's report on a small cluster."""

from __future__ import annotations

from typing import Any

import pytest

from k8s_agent_scripted_llm.playbook.logs import (
    deciding_line,
    is_config_error,
    is_noise,
    is_stopping,
    signature,
)
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on

NAMESPACE = "billing"
QUESTION = "Which pods in the billing namespace are unhealthy, and why?"


def crashing(name: str, logs: list[str], **fields: Any) -> dict[str, Any]:
    """A crash-looping pod of namespace billing whose container last exited with code 1."""
    return pod(
        name,
        NAMESPACE,
        "CrashLoopBackOff",
        container(
            name.split("-")[0],
            restarts=6,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=logs,
        ),
        **fields,
    )


def back_off(name: str) -> dict[str, Any]:
    return event(NAMESPACE, f"pod/{name}", "BackOff", "Back-off restarting failed container")


CONFIG_THEN_PANIC = [
    "2026-03-02T10:00:00Z INFO invoicer 4.1 starting",
    "2026-03-02T10:00:00Z ERROR settings: unknown parameter 'batch_windw' in /etc/invoicer.toml",
    "2026-03-02T10:00:00Z INFO shutting down",
    "panic: send on closed channel",
    "goroutine 7 [running]:",
]


def test_a_configuration_error_before_the_process_stops_beats_the_panic_on_its_way_out() -> None:
    """Rule `is_config_error`: a configuration error refused at start-up decides a crash over the panic that
    follows it."""
    name = "invoicer-5d8c7b6f4-x2k9q"
    fixture = cluster([crashing(name, CONFIG_THEN_PANIC)], [back_off(name)])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{name}": "crash_config"}
    assert quotes(report, name)[0] == CONFIG_THEN_PANIC[1]


UNUSABLE_VALUE_THEN_CRASH = [
    "2026-03-02T10:00:00Z INFO  quota-keeper 0.7 starting",
    '2026-03-02T10:00:00Z WARN  limits: QUOTA_RESET="weekly" (known: hourly, daily); reset left unset',
    "Traceback (most recent call last):",
    '  File "/srv/keeper.py", line 40, in <module>',
    "TypeError: unsupported operand type(s) for +: 'datetime.datetime' and 'NoneType'",
]


def test_a_value_the_process_cannot_use_said_as_a_warning_beats_the_exception_it_leads_to() -> None:
    name = "quota-keeper-6b8d7c5f9-m3n7p"
    fixture = cluster([crashing(name, UNUSABLE_VALUE_THEN_CRASH)], [back_off(name)])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{name}": "crash_config"}
    assert quotes(report, name)[0] == UNUSABLE_VALUE_THEN_CRASH[1]


TELEMETRY_FIRST = [
    "level=info msg=starting version=2.0.3",
    'level=error msg="push to metrics gateway failed (ignored)" err="dial tcp: i/o timeout"',
    'level=error msg="ledger check failed" err="account 4471 balance does not match its journal"',
    'level=error msg="http server stopped" err="server closed"',
    "level=info msg=exiting code=1",
]


def test_noise_and_the_lines_after_the_stop_are_passed_over_for_the_error_between_them() -> None:
    """Rules `is_noise` and `is_stopping`: noise is passed over, and the line saying the process stops marks
    where the consequences begin."""
    name = "reconciler-7f9b8c6d5-q4w8n"
    fixture = cluster([crashing(name, TELEMETRY_FIRST)], [back_off(name)])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{name}": "crash_application"}
    assert quotes(report, name)[0] == TELEMETRY_FIRST[2]
    assert TELEMETRY_FIRST[1] not in quotes(report, name)


def test_an_error_line_a_healthy_pod_of_the_same_workload_logs_too_is_noise() -> None:
    """Rule `noise_signatures`: an error line that healthy pods log too is noise."""
    shared = "ERROR cache warm-up: upstream returned 503 after 3 tries"
    broken, healthy = "statement-api-6c5d4b8f7-b7x2m", "statement-api-6c5d4b8f7-n4r8t"
    logs = [
        "INFO statement-api 3.3 starting",
        "ERROR pdf renderer: font directory /usr/share/fonts/acme is empty",
        shared.replace("3 tries", "5 tries"),
        "INFO exiting",
    ]
    fixture = cluster(
        [
            crashing(broken, logs),
            pod(healthy, NAMESPACE, "Running", container("statement", logs=["INFO ready", shared])),
        ],
        [back_off(broken)],
    )

    report, calls = report_on(fixture, "Why is statement-api failing?")

    assert ("get_pod_logs", {"name": healthy, "namespace": NAMESPACE, "tail": 20}) in calls
    assert quotes(report, broken)[0] == logs[1]


@pytest.mark.parametrize(
    ("logs", "deciding"),
    [
        # a chain of causes: the deepest is the root
        (
            [
                "Error: could not open the archive store",
                "Caused by:",
                "    0: invalid configuration",
                '    1: bucket "acme-archive-eu" is not a valid bucket name',
            ],
            '1: bucket "acme-archive-eu" is not a valid bucket name',
        ),
        # the cause and the exit said in one line
        (
            ["FATAL: required setting STORE_URL is not set, exiting"],
            "FATAL: required setting STORE_URL is not set, exiting",
        ),
        # a warning that the configuration is missing, then a crash on it
        (
            [
                "WARNING: no configuration file found in /srv/app/conf.d",
                "TypeError: Cannot read properties of undefined (reading 'port')",
            ],
            "WARNING: no configuration file found in /srv/app/conf.d",
        ),
        # a warning that the process goes on with a default is not why it stopped
        (
            [
                "WARN CACHE_TTL not set, using the default 300s",
                "Exception in thread main java.lang.IllegalStateException: queue store corrupt",
            ],
            "Exception in thread main java.lang.IllegalStateException: queue store corrupt",
        ),
        # a JSON line's level decides, not a word of its message
        (
            [
                '{"level":"info","msg":"error budget report sent"}',
                '{"level":"error","msg":"cannot open ledger","err":"permission denied"}',
            ],
            '{"level":"error","msg":"cannot open ledger","err":"permission denied"}',
        ),
        # a framework's failure report printed after its banner that the start failed
        (
            [
                "2026-04-02 08:00:01 ERROR [main] FailureReporter :",
                "START FAILED: application failed to start",
                "Description: the property 'batch.window' could not be bound",
                "Reason: '90x' is not a valid duration",
            ],
            "Reason: '90x' is not a valid duration",
        ),
        # a value the process cannot use, said as a warning, then the exception it leads to
        (
            [
                "2026-02-11 09:14:00 INFO  scheduler 1.9 starting",
                "2026-02-11 09:14:00 WARN  settings: BATCH_WINDOW_SECONDS='ten' is not an integer; window left at 0",
                "ZeroDivisionError: integer division or modulo by zero",
            ],
            "2026-02-11 09:14:00 WARN  settings: BATCH_WINDOW_SECONDS='ten' is not an integer; window left at 0",
        ),
        # a name that is none of the ones the process knows, then the failure it leads to
        (
            [
                "level=warn msg=\"no storage driver registered under 'gcs2' (valid options: gcs, s3, local)\"",
                'level=error msg="upload failed" err="invalid memory address or nil pointer dereference"',
                "panic: runtime error: invalid memory address or nil pointer dereference",
            ],
            "level=warn msg=\"no storage driver registered under 'gcs2' (valid options: gcs, s3, local)\"",
        ),
        # a template reading a key its input does not have, then the tally of the failure
        (
            [
                "rendering 2 files",
                'template: app.ini.tmpl:3:9: executing "app.ini.tmpl" at <.Values.queue>: map has no entry '
                'for key "queue"',
                "renderer: 1 of 2 files failed, exiting",
            ],
            'template: app.ini.tmpl:3:9: executing "app.ini.tmpl" at <.Values.queue>: map has no entry '
            'for key "queue"',
        ),
        # a runtime's advice on seeing more of a crash says nothing about this one
        (
            [
                "thread 'worker' panicked at src/index.rs:40:5:",
                "index out of bounds: the len is 0 but the index is 3",
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            ],
            "index out of bounds: the len is 0 but the index is 3",
        ),
    ],
    ids=[
        "caused-by",
        "one-line",
        "config-warning",
        "default-warning",
        "json-level",
        "failure-report",
        "value-not-usable",
        "unknown-name",
        "template-key",
        "runtime-hint",
    ],
)
def test_the_deciding_line_of_a_log(logs: list[str], deciding: str) -> None:
    assert deciding_line("\n".join(logs)) == deciding.strip()


def test_the_named_rules_on_their_own_words() -> None:
    assert is_noise("ERROR tracer: failed to export 12 spans: connection refused")
    assert is_noise("sentry_sdk.errors: Internal error: failed to send event")
    assert is_noise("ERROR StatusLogger No Log4j 2 configuration file found")
    assert not is_noise("ERROR export job 88 failed: disk full")  # an export of its own work
    assert not is_noise("WARN config: unknown field retry_ms, ignored")  # a setting ignored is missing
    assert is_noise("ERROR cache miss for 88", frozenset({signature("ERROR cache miss for 12")}))
    assert is_noise("Run with --stacktrace option to get the stack trace.")
    assert not is_noise("ERROR could not print the stack trace of worker 3: pipe closed")
    assert is_stopping("2026-01-01 INFO Shutdown initiated...")
    assert is_stopping("npm error command failed")
    assert not is_stopping("INFO stopped 3 idle workers")
    assert is_config_error("ERROR unrecognized option '--max-heap'")
    assert not is_config_error("INFO loading config from /etc/app.yaml")
    assert is_config_error('WARN REPLICAS="three" is not a number, using 0')
    assert is_config_error("ERROR log format 'jsn' unknown: must be one of text, json")
    assert is_config_error('Error: executing "x.tmpl" at <.Env.TOKEN>: map has no entry for key "TOKEN"')
    assert not is_config_error("WARN PAGE_SIZE='x' is not a number, using the default 50")
    assert not is_config_error("INFO no plugin registered under 'audit', skipping")
