"""`k8s-agent bench --otel`: what sending a run as OpenTelemetry spans costs the run, side by side.

Each round asks the offline model the same question twice on the embedded mock cluster, once with
span export off and once on (the order alternating between rounds), for each implementation. A run
with export on is measured as a command pays for it: the exporter's start, the run, then the final
flush. The spans go to a receiver on loopback: a minimal OTLP/HTTP receiver of this module (it
acknowledges each export) unless `--otel-endpoint` names another (Phoenix, a collector).

Two figures per run: its wall time, and the CPU time of this process (every thread: the span
builder on the run's path, the exporter's thread encoding and sending). On a busy machine the wall
times of two identical runs differ by more than the export costs, so the target is judged on the CPU
time export adds (the difference of the medians) over the median wall time of a run without it:
under 2 %. The wall times are printed beside it. Exit 1 when the target is missed.
"""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from k8s_agent.bench import EXIT_TARGET_MISSED
from k8s_agent.bench.stats import Samples
from k8s_agent_harness.config import Config
from k8s_agent_harness.traces import otel
from k8s_agent_harness.vocabulary import Impl

TARGET = 0.02
QUESTION = "Which pods in the production namespace are unhealthy, and why?"


class _Receiver(BaseHTTPRequestHandler):
    """Acknowledges an OTLP/HTTP export (an empty ExportTraceServiceResponse)."""

    received = 0
    exports = 0

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).received += len(body)
        type(self).exports += 1
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def loopback_receiver(handler: type[BaseHTTPRequestHandler] = _Receiver) -> Iterator[str]:
    """An OTLP/HTTP receiver on a free loopback port, answering as `handler` does (by default: every
    export acknowledged); its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="otlp-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _run(impl: Impl, trace_dir: Path) -> None:
    from k8s_agent.implementations import ask

    result = await ask(Config(impl=impl, trace_dir=trace_dir), QUESTION)
    if not result.answer:
        raise RuntimeError("a benchmark run wrote no report")


def time_run(impl: Impl, trace_dir: Path, settings: otel.OtelSettings | None) -> tuple[float, float, int]:
    """One run: its wall and CPU milliseconds (with export: the start, the run and the final flush),
    and the spans sent."""
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    exporter = otel.start(settings) if settings is not None else None
    try:
        asyncio.run(_run(impl, trace_dir))
    finally:
        if exporter is not None:
            otel.finish()
    elapsed, used = (time.perf_counter() - started) * 1e3, (time.process_time() - cpu) * 1e3
    if exporter is not None and exporter.failure is not None:
        raise RuntimeError(f"the spans were not sent: {exporter.failure}")
    return elapsed, used, exporter.sent_spans if exporter is not None else 0


def measure(rounds: int, endpoint: str) -> dict[str, dict[str, Samples]]:
    """Per implementation: wall and CPU milliseconds of a run without and with export, interleaved."""
    settings = otel.OtelSettings.read(endpoint, {})
    assert settings is not None
    trace_dir = Path(tempfile.mkdtemp(prefix="k8s-agent-bench-otel-"))
    figures: dict[str, dict[str, Samples]] = {}
    try:
        for impl in (Impl.HANDWRITTEN, Impl.SDK):
            time_run(impl, trace_dir, settings)  # warm-up: imports, caches, the first connection
            per = {name: Samples(name, "ms") for name in ("wall off", "wall on", "cpu off", "cpu on")}
            per["spans"] = Samples("spans", "")
            for round_number in range(rounds):
                order = (None, settings) if round_number % 2 == 0 else (settings, None)
                for chosen in order:
                    elapsed, used, sent = time_run(impl, trace_dir, chosen)
                    state = "on" if chosen is not None else "off"
                    per[f"wall {state}"].add(elapsed)
                    per[f"cpu {state}"].add(used)
                    if chosen is not None:
                        per["spans"].add(sent)
            figures[impl.value] = per
    finally:
        shutil.rmtree(trace_dir, ignore_errors=True)
    return figures


def cost(figures: dict[str, Samples]) -> float:
    """What export adds to a run: the CPU time it adds (difference of the medians) over the median wall
    time of a run without it."""
    return (figures["cpu on"].median - figures["cpu off"].median) / figures["wall off"].median


def main(*, quick: bool = False, as_json: bool = False, endpoint: str | None = None) -> int:
    """Measure, print the table (or JSON), and exit 1 when the target is missed."""
    if not otel.available():
        print(f"error: bench --otel needs the otel extra: {otel.INSTALL_HINT}", file=sys.stderr)
        return 2
    rounds = 3 if quick else 10
    if endpoint is None:
        with loopback_receiver() as url:
            figures = measure(rounds, url)
            receiver = "a minimal OTLP/HTTP receiver on loopback"
    else:
        figures = measure(rounds, endpoint)
        receiver = endpoint
    costs = {impl: cost(samples) for impl, samples in figures.items()}
    met = all(value < TARGET for value in costs.values())
    if as_json:
        print(
            json.dumps(
                {
                    "receiver": receiver,
                    "rounds": rounds,
                    "target": TARGET,
                    "met": met,
                    "runs": {
                        impl: {name: samples.summary() for name, samples in per.items()}
                        | {"cost": costs[impl]}
                        for impl, per in figures.items()
                    },
                },
                indent=2,
            )
        )
    else:
        print(f"span export, {rounds} rounds, to {receiver} (ms per run: median (min-max))")
        print(
            f"{'implementation':<13} {'wall, export off':>22} {'wall, export on':>22} "
            f"{'CPU, export off':>22} {'CPU, export on':>22} {'spans':>6} {'cost':>7}"
        )
        for impl, per in figures.items():
            print(
                f"{impl:<13} {per['wall off'].cell():>22} {per['wall on'].cell():>22} {per['cpu off'].cell():>22} "
                f"{per['cpu on'].cell():>22} {per['spans'].median:>6.0f} {costs[impl]:>+7.2%}"
            )
        print(
            f"cost: the CPU time export adds over a run's wall time; target under {TARGET:.0%}: "
            f"{'met' if met else 'MISSED'}"
        )
    return 0 if met else EXIT_TARGET_MISSED
