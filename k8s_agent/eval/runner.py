"""Running an eval: every (implementation, model, incident, repeat) once, concurrently in one process.

- The run pool of every command (k8s_agent.pool), `concurrency` investigations at a time, each on
  its incident's cluster and the model. The cluster: one server per incident over Streamable HTTP,
  shared by every run of the incident (`hosting`), or with `serve=None` a stdio server of each
  run's own, reaped when the run ends. The model: the offline model from one shared in-process
  server, or a real endpoint through the pool's rate-limit gate (a 429 pauses every run).
- Results append to a JSONL file, one complete line per finished run (flushed), so an interrupted
  eval loses only the runs in flight; `--resume` skips the keys already there.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k8s_agent.eval.corpus import Incident
from k8s_agent.eval.hosting import Serve, SharedServers, serve_mock_cluster
from k8s_agent.eval.score import score
from k8s_agent.pool import RateGate, run_pool
from k8s_agent_harness.config import BASELINE_MODELS, Config
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces.private import open_private, private_dirs
from k8s_agent_harness.vocabulary import Impl

RECORD_KIND = "k8s-agent-eval-run"
RECORD_VERSION = 1


@dataclass(frozen=True)
class Job:
    """One investigation of the eval."""

    impl: Impl
    model: str
    incident: Incident
    repeat: int
    surface: str = "mock"
    """What serves the incident's cluster: `mock` or `kubernetes-mcp-server`."""
    api: str = "chat"
    """The model endpoint's API the run speaks: `chat` or `responses`."""

    @property
    def key(self) -> str:
        return key_of(self.impl.value, self.model, self.incident.id, self.repeat, self.surface, self.api)


def key_of(
    impl: str, model: str, incident: str, repeat: int, surface: str = "mock", api: str = "chat"
) -> str:
    """A run's key in the results (the surface named unless it is the mock cluster's, the wire
    unless it is Chat Completions)."""
    key = f"{impl}|{model}|{incident}|{repeat}"
    key = key if surface == "mock" else f"{key}|{surface}"
    return key if api == "chat" else f"{key}|{api}"


def plan(
    impls: Sequence[Impl],
    models: Sequence[str],
    incidents: Sequence[Incident],
    repeat: int,
    surface: str = "mock",
    api: str = "chat",
) -> list[Job]:
    """Every job, incident-major: an incident's runs (repeats, models, implementations) run close
    together, so its shared server lives only while they run. A baseline is deterministic: it runs
    once per incident and implementation, whatever `repeat`."""
    return [
        Job(impl, model, incident, number, surface, api)
        for incident in incidents
        for number in range(1, repeat + 1)
        for model in models
        if number == 1 or model not in BASELINE_MODELS
        for impl in impls
    ]


def shard(incidents: Sequence[Incident], spec: str | None) -> list[Incident]:
    """`i/n`: the i-th of n interleaved slices of the corpus (1-based); all when no spec."""
    if not spec:
        return list(incidents)
    index, sep, count = spec.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise ConfigError(f"--shard expects i/n (e.g. 2/4), got {spec!r}") from None
    if not sep or n < 1 or not 1 <= i <= n:
        raise ConfigError(f"--shard {spec}: i must be between 1 and n")
    return [incident for number, incident in enumerate(incidents) if number % n == i - 1]


# -- the results file ---------------------------------------------------------------------------------


class Results:
    """The JSONL results of an eval: read (to resume, to report) and appended to, a line per run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> tuple[dict[str, dict[str, Any]], list[str]]:
        """The records by key, and a note per line that could not be read (a torn last line after a
        kill is one: that run is simply run again)."""
        return read_results(self.path)

    def end_torn_line(self) -> None:
        """A line cut short by a kill is ended, so the next record starts on a line of its own."""
        try:
            with self.path.open("rb") as existing:
                existing.seek(0, os.SEEK_END)
                if existing.tell() == 0:
                    return
                existing.seek(-1, os.SEEK_END)
                torn = existing.read(1) != b"\n"
        except FileNotFoundError:
            return
        if torn:
            with open_private(self.path, "a") as out:
                out.write("\n")

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, open_private(self.path, "a") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())


def read_results(path: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Records by key (the first of a key wins), and notes on lines that are not records."""
    records: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return records, notes
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read the results {path}: {error}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            notes.append(f"{path}:{number}: not a complete JSON line (skipped)")
            continue
        except RecursionError:
            notes.append(f"{path}:{number}: a line that nests JSON values too deeply (skipped)")
            continue
        if not isinstance(record, dict) or record.get("kind") != RECORD_KIND:
            notes.append(f"{path}:{number}: not an eval result (skipped)")
            continue
        if record.get("version") != RECORD_VERSION:
            raise ConfigError(
                f"{path}:{number}: eval results version {record.get('version')!r}; this k8s-agent reads "
                f"version {RECORD_VERSION}"
            )
        records.setdefault(str(record.get("key")), record)
    return records, notes


# -- the pool -------------------------------------------------------------------------------------------


@dataclass
class Progress:
    """A progress bar with the rate and ETA on a terminal, a line per run otherwise.

    The rate and ETA are measured from when the first `jobs` runs (the first wave, as many as run
    at a time) have ended: those paid for the start (imports, servers, a model's warm-up) and would
    make the ETA of a long eval many times too long. Until a second wave has ended too, the ETA is
    "estimating...". The last line says how long the command took.
    """

    total: int
    quiet: bool = False
    stream: Any = None
    done: int = 0
    failed: int = 0
    solved: int = 0
    jobs: int = 1
    clock: Callable[[], float] = time.monotonic
    command_clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        self.stream = self.stream or sys.stderr
        self.started = self.clock()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._warm: tuple[int, float] | None = None  # (runs ended, when) once the first wave ended
        if self.command_clock is None:
            from k8s_agent.uptime import command_seconds

            self.command_clock = command_seconds

    def estimate(self) -> tuple[float, float] | None:
        """(runs a second, seconds left), measured after the first wave; None while estimating."""
        now = self.clock()
        wave = max(1, min(self.jobs, self.total))
        if self._warm is None and self.done >= wave:
            self._warm = (self.done, now)
        if self._warm is None:
            return None
        ended, since = self._warm
        measured = self.done - ended
        if measured < wave or now <= since:
            return None
        rate = measured / (now - since)
        return rate, (self.total - self.done) / rate

    def say(self, line: str) -> None:
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r\x1b[2K")
        self.stream.write(line + "\n")
        self.stream.flush()

    def finished(self, job: Job, record: dict[str, Any]) -> None:
        self.done += 1
        self.failed += bool(record.get("error"))
        self.solved += bool(record["score"].get("solved"))
        estimate = self.estimate()
        if self.quiet:
            return
        outcome = f"error: {str(record['error'])[:80]}" if record.get("error") else _outcome(record["score"])
        width = len(str(self.total))
        head = f"[{self.done:>{width}}/{self.total}] {100 * self.done // max(1, self.total):>3}%"
        if self.done >= self.total:
            assert self.command_clock is not None
            tail = f"done in {_duration(self.command_clock())}"
        elif estimate is None:
            tail = "ETA estimating..."
        else:
            rate, left = estimate
            tail = f"{rate:.2f} runs/s · ETA {_duration(left)}"
        if self.tty:
            filled = 24 * self.done // max(1, self.total)
            bar = "#" * filled + "-" * (24 - filled)
            if record.get("error"):
                self.say(f"{job.impl.value} {job.model} {job.incident.id} #{job.repeat}: {outcome}")
            self.stream.write(f"\r\x1b[2K{head} [{bar}] {tail} · {self.solved} solved, {self.failed} failed")
            self.stream.flush()
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.say(
                f"{head} {tail} · {job.impl.value} {job.model} {job.incident.id} #{job.repeat}: {outcome}"
            )


def _outcome(scored: dict[str, Any]) -> str:
    if scored.get("solved"):
        return "solved"
    parts = []
    for name in ("recall", "precision", "cause"):
        value = scored.get(name)
        if value is not None:
            parts.append(f"{name} {value:.2f}")
    return ", ".join(parts) or scored.get("why_not", "")


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _endpoint(config: Config) -> str:
    if config.offline:
        return config.model
    return urllib.parse.urlsplit(config.base_url or "https://api.openai.com/v1").netloc


async def run_one(
    job: Job, config: Config, trace_dir: Path, servers: SharedServers | None = None
) -> dict[str, Any]:
    """One investigation, scored; never raises for a failed run (the error is the record's). With
    `servers`, the run reaches its incident's shared server; else it starts a server of its own."""
    from k8s_agent.implementations import ask_function
    from k8s_agent_harness.errors import AgentError

    run_config = dataclasses.replace(
        config,
        impl=job.impl,
        cluster=job.incident.cluster,
        mcp_command=(),
        cluster_server=None,
        trace_dir=trace_dir,
        keep_traces=0,
    )
    started = time.perf_counter()
    result, error, trace = None, None, None
    try:
        async with contextlib.AsyncExitStack() as stack:
            if servers is not None:
                url = await stack.enter_async_context(servers.url(job.incident))
                run_config = dataclasses.replace(run_config, cluster=None, mcp_url=url)
            outcome = await ask_function(job.impl)(run_config, job.incident.question)
        result, trace = outcome.as_json(), str(outcome.trace)
    except AgentError as failure:
        error = f"{type(failure).__name__}: {failure}"
        trace = str(failure.trace_path) if failure.trace_path else None
    except Exception as failure:  # boundary: a bug in one run is that run's result, not the eval's end
        error = f"internal error: {type(failure).__name__}: {failure}"
    scored = score(result, job.incident, error)
    return {
        "kind": RECORD_KIND,
        "version": RECORD_VERSION,
        "key": job.key,
        "impl": job.impl.value,
        "model": job.model,
        "endpoint": _endpoint(run_config),
        "report_format": run_config.report_mode.value,
        "incident": job.incident.id,
        "incident_digest": job.incident.digest,
        "cluster_server": job.surface,
        "api": run_config.api,
        "repeat": job.repeat,
        "error": error,
        "score": scored.as_dict(),
        "report": (result or {}).get("report"),
        "answer": (result or {}).get("answer"),
        "run": _rest(result),
        "trace": trace,
        "seconds": round(time.perf_counter() - started, 3),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _rest(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """The `ask --json` object but its report and answer (the record holds those beside it): with
    them, what `eval report` needs to score the run again against the truth as it is then."""
    if result is None:
        return None
    return {key: value for key, value in result.items() if key not in ("report", "answer")}


class MadeFolders:
    """The folders an eval makes, each one that did not exist before, so that those it leaves empty
    (a Ctrl-C before the first run started) are removed again; a folder the user had is never
    touched."""

    def __init__(self) -> None:
        self._made: set[Path] = set()
        self._lock = threading.Lock()

    def make(self, folder: Path) -> None:
        """`mkdir -p folder`, noting each folder it creates (0700: private.py); OSError as mkdir raises it."""
        made = private_dirs(folder.absolute())
        with self._lock:
            self._made.update(made)

    def remove_empty(self) -> None:
        """Remove the folders made here that are empty, the deepest first (rmdir removes only an
        empty folder: one that holds a trace, or anything the user put there, stays)."""
        with self._lock:
            made = sorted(self._made, key=lambda path: len(path.parts), reverse=True)
            self._made.clear()
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()


async def run_jobs(
    jobs: Iterable[Job],
    configs: dict[str, Config],
    results: Results,
    trace_root: Path,
    *,
    concurrency: int,
    progress: Progress,
    on_record: Callable[[dict[str, Any]], None] = lambda record: None,
    serve: Serve | None = serve_mock_cluster,
) -> None:
    """Run the jobs `concurrency` at a time, appending each record as it finishes. `serve` serves
    an incident to all its runs from one server (None: each run starts its own stdio server). A run's
    trace folder is made as the run begins; the ones left empty (interrupted) are removed."""
    jobs = list(jobs)
    servers = SharedServers((job.incident for job in jobs), serve) if serve is not None else None
    folders = MadeFolders()

    async def one(job: Job) -> None:
        folder = trace_root / job.impl.value / _safe(job.model)
        await asyncio.to_thread(folders.make, folder)
        record = await run_one(job, configs[job.model], folder, servers)
        # Written, then let go: the records of a long eval live in its results file, not in memory.
        await asyncio.to_thread(results.append, record)
        on_record(record)
        progress.finished(job, record)

    try:
        await run_pool(jobs, one, concurrency=concurrency)
    finally:
        if servers is not None:
            await servers.aclose()
        folders.remove_empty()


def _safe(name: str) -> str:
    return "".join(char if char.isalnum() or char in "-_." else "_" for char in name) or "model"


@contextlib.contextmanager
def model_endpoints(configs: dict[str, Config]) -> Any:
    """Serve what the configs need for the whole eval: one offline model server, one gate per
    endpoint; yields the configs pointed at them, and the gates."""
    from k8s_agent_scripted_llm import ScriptedModelServer, responder_for

    with contextlib.ExitStack() as stack:
        pointed: dict[str, Config] = {}
        gates: dict[str, RateGate] = {}
        embedded: dict[str, str] = {}
        for name, config in configs.items():
            if config.offline:
                if config.model not in embedded:
                    server = stack.enter_context(
                        ScriptedModelServer(
                            responder=responder_for(config.model), model=config.model, record=False
                        )
                    )
                    embedded[config.model] = server.url
                pointed[name] = dataclasses.replace(config, base_url=embedded[config.model])
                continue
            upstream = config.base_url or "https://api.openai.com/v1"
            if upstream not in gates:
                gates[upstream] = stack.enter_context(RateGate(upstream))
            pointed[name] = dataclasses.replace(config, base_url=gates[upstream].url)
        yield pointed, list(gates.values())
