"""Sending runs as OpenTelemetry spans over OTLP/HTTP: off unless asked for, never in a run's way.

Export is on when the standard variables name a receiver (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
`OTEL_EXPORTER_OTLP_ENDPOINT`) or a command is given `--otel-endpoint URL`; it needs the `otel`
extra (`pip install 'k8s-agent[otel]'`). Off, nothing of the OpenTelemetry SDK is imported.

`OtelSettings.read` turns the flag and the environment into settings (once, at the entry point);
`start` opens the exporter for the process, which every run's session then finds (`active`) and
feeds through a `spans.SpanBuilder`; `finish` flushes it at the end. The exporter is the SDK's
batch processor with a bounded queue and a short timeout, on a tracer provider of its own (never
the global one: libraries that trace through the global provider, as `mcp` does, stay as they
were). A receiver that is down, refuses or hangs costs one warning line on stderr at the end.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.evidence.redact import public_url
from k8s_agent_harness.traces.spans import Attributes, SpanBuilder

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider

INSTALL_HINT = "pip install 'k8s-agent[otel]'"
TRACES_PATH = "/v1/traces"
DEFAULT_SERVICE = "k8s-agent"
EXPORT_TIMEOUT = 3.0
"""Seconds one export may take (the OTLP exporter's own retries included), and the end of a command
waits for the spans still queued, unless the environment says otherwise."""
MAX_QUEUE = 4096
"""Spans kept waiting for export at most; past that they are dropped (and counted), never waited for."""
SCHEDULE_DELAY_MS = 1000
CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True)
class OtelSettings:
    """Where spans go and what they may hold, read once from the flag and the environment."""

    endpoint: str
    """The OTLP/HTTP traces URL (`.../v1/traces`)."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Sent with every export (API keys): never shown, never in a span."""
    service_name: str = DEFAULT_SERVICE
    capture_content: bool = False
    """Message and result contents in the spans (redacted as the trace is)."""
    timeout: float = EXPORT_TIMEOUT
    """Seconds an export, and the flush at the end, may take (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT or
    OTEL_EXPORTER_OTLP_TIMEOUT, in milliseconds as the specification says)."""

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as messages show it (no user info, no query)."""
        return public_url(self.endpoint)

    @classmethod
    def read(cls, flag: str | None, environ: Mapping[str, str]) -> OtelSettings | None:
        """The settings, or None when export is off; ConfigError for a URL or header that cannot
        be used, or a protocol other than OTLP over HTTP."""
        if flag is None and environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return None
        if flag is not None:
            endpoint = _traces_url(
                flag.strip(), "--otel-endpoint", base=not flag.rstrip("/").endswith(TRACES_PATH)
            )
        elif value := environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
            endpoint = _traces_url(value, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", base=False)
        elif value := environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
            endpoint = _traces_url(value, "OTEL_EXPORTER_OTLP_ENDPOINT", base=True)
        else:
            return None
        protocol = (
            environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
            or ""
        ).strip()
        if protocol and protocol != "http/protobuf":
            raise ConfigError(
                f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: k8s-agent sends OTLP over HTTP (http/protobuf) only"
            )
        header_variable = (
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
            if environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
            else "OTEL_EXPORTER_OTLP_HEADERS"
        )
        return cls(
            endpoint=endpoint,
            headers=_headers(environ.get(header_variable, ""), header_variable),
            service_name=environ.get("OTEL_SERVICE_NAME", "").strip() or DEFAULT_SERVICE,
            capture_content=environ.get(CAPTURE_VARIABLE, "").strip().lower() == "true",
            timeout=_timeout(environ),
        )

    def secrets(self) -> tuple[str, ...]:
        """The header values: redacted wherever they could show."""
        return tuple(value for value in self.headers.values() if value)


def _traces_url(value: str, source: str, *, base: bool) -> str:
    """The traces URL from a base URL (`/v1/traces` added) or a full one; ConfigError if unusable."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{source} must be an http:// or https:// URL, got {public_url(value)!r}")
    if parts.username or parts.password:
        raise ConfigError(
            f"{source} must not carry a user or password: send them as OTEL_EXPORTER_OTLP_HEADERS"
        )
    if not base:
        return value
    return value.rstrip("/") + TRACES_PATH


def _headers(value: str, source: str) -> dict[str, str]:
    """`key=value,key2=value2` (values URL-encoded), as the OTLP exporter variables have them."""
    headers: dict[str, str] = {}
    for item in value.split(","):
        if not item.strip():
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{source} expects key=value pairs separated by commas (a pair has no '=')")
        headers[unquote(key.strip()).lower()] = unquote(raw.strip())
    return headers


def available() -> bool:
    """Whether the `otel` extra is installed (the SDK and the OTLP/HTTP exporter)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http")
        )
    except ModuleNotFoundError:  # a parent package is missing (find_spec imports the parents)
        return False


def require() -> None:
    """ConfigError (exit 2), in one line, when export was asked for without the extra."""
    if not available():
        raise ConfigError(f"sending spans over OTLP needs the otel extra: {INSTALL_HINT}")


# -- the exporter ------------------------------------------------------------------------------


class Exporter:
    """One process's span export: a tracer provider of its own, a batch processor, an OTLP/HTTP
    exporter wrapped so that a failure is counted, never raised or logged."""

    def __init__(self, settings: OtelSettings, span_exporter: Any = None) -> None:
        """`span_exporter` replaces the OTLP exporter (the tests keep the spans in memory)."""
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        _quiet_sdk_logs()
        self.settings = settings
        self.failure: str | None = None
        self.failed_spans = 0
        self.sent_spans = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        if span_exporter is None:
            span_exporter = OTLPSpanExporter(
                endpoint=settings.endpoint, headers=dict(settings.headers), timeout=settings.timeout
            )
        self._exporter = _Counted(span_exporter, self)
        self._provider: TracerProvider = TracerProvider(
            resource=Resource.create({"service.name": settings.service_name})
        )
        self._processor = BatchSpanProcessor(
            self._exporter,  # type: ignore[arg-type]  # a SpanExporter by its methods
            max_queue_size=MAX_QUEUE,
            schedule_delay_millis=SCHEDULE_DELAY_MS,
            export_timeout_millis=int(settings.timeout * 1000),
        )
        self._provider.add_span_processor(self._processor)
        self._tracer = self._provider.get_tracer("k8s_agent_harness.traces.spans")

    def builder(self) -> SpanBuilder:
        """A span builder for one run, writing to this exporter."""
        return SpanBuilder(_OtelSink(self._tracer), capture_content=self.settings.capture_content)

    def note_failure(self, spans: int, reason: str) -> None:
        with self._lock:
            self.failed_spans += spans
            self.failure = self.failure or reason

    def note_sent(self, spans: int) -> None:
        with self._lock:
            self.sent_spans += spans

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def finish(self) -> str | None:
        """Send what is queued, waiting at most the export timeout, and stop; the one warning line to
        show when spans could not be sent, else None.

        The SDK's flush waits for every queued batch whatever its timeout says, so it runs in a
        thread of its own that is waited for at most that long; past it, what is left is
        dropped (and counted) and the exporter's daemon threads are left to end with the process.
        """
        flushing = threading.Thread(target=self._provider.force_flush, name="otel-flush", daemon=True)
        flushing.start()
        flushing.join(self.settings.timeout)
        if flushing.is_alive():
            self._closing.set()  # batches still queued fail at once instead of waiting in turn
            self._exporter.inner.shutdown()
            self.note_failure(0, f"no answer within {self.settings.timeout:g} s")
        else:
            self._provider.shutdown()
        if self.failure is None:
            return None
        return f"warning: could not send spans to {self.settings.shown_endpoint}: {self.failure}"


class _Counted:
    """The OTLP exporter, its failures kept as data: the batch processor never sees an exception,
    and the SDK's own logging stays quiet (finish says it once)."""

    def __init__(self, inner: Any, owner: Exporter) -> None:
        self.inner = inner
        self._owner = owner

    def export(self, spans: Sequence[ReadableSpan]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        if self._owner.closing:
            self._owner.note_failure(len(spans), "the receiver did not answer in time")
            return SpanExportResult.FAILURE
        try:
            result = self.inner.export(spans)
        except Exception as error:  # boundary: a receiver's failure is never the run's
            self._owner.note_failure(len(spans), _reason(error))
            return SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self._owner.note_sent(len(spans))
        else:
            self._owner.note_failure(len(spans), "the receiver refused them or could not be reached")
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))


def _reason(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200] if text else type(error).__name__


def _quiet_sdk_logs() -> None:
    """The SDK and its exporter log each failed attempt (with tracebacks): `finish` says it once."""
    for name in ("opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.attributes"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


class _OtelSink:
    """spans.SpanSink on an OpenTelemetry tracer: explicit times, explicit parents."""

    def __init__(self, tracer: Any) -> None:
        from opentelemetry import trace
        from opentelemetry.context import Context
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self._tracer = tracer
        self._root = Context()
        self._trace = trace
        self._kinds = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
        self._status = Status
        self._error = StatusCode.ERROR

    def start(
        self, name: str, *, kind: str, start_ns: int, attributes: Attributes, parent: object | None
    ) -> object:
        # A run's span is a root whatever span is current (never a child of another library's).
        context = self._trace.set_span_in_context(parent) if parent is not None else self._root  # type: ignore[arg-type]
        return self._tracer.start_span(
            name, context=context, kind=self._kinds[kind], attributes=attributes, start_time=start_ns
        )

    def event(self, span: object, name: str, time_ns: int, attributes: Attributes) -> None:
        span.add_event(name, attributes=attributes, timestamp=time_ns)  # type: ignore[attr-defined]

    def update(self, span: object, attributes: Attributes) -> None:
        span.set_attributes(attributes)  # type: ignore[attr-defined]

    def end(self, span: object, end_ns: int, error: str | None) -> None:
        if error is not None:
            span.set_status(self._status(self._error, error))  # type: ignore[attr-defined]
        span.end(end_time=end_ns)  # type: ignore[attr-defined]


# -- the process's exporter ----------------------------------------------------------------------

_active: Exporter | None = None


def start(settings: OtelSettings, span_exporter: Any = None) -> Exporter:
    """Open the process's exporter (ConfigError without the extra); runs started from now on are sent."""
    global _active
    require()
    _active = Exporter(settings, span_exporter)
    return _active


def active() -> Exporter | None:
    """The process's exporter, when export is on."""
    return _active


def finish() -> None:
    """Flush and stop the process's exporter, if one is open; a failure is one line on stderr."""
    global _active
    exporter, _active = _active, None
    if exporter is None:
        return
    warning = exporter.finish()
    if warning is not None:
        print(warning, file=sys.stderr)


def _timeout(environ: Mapping[str, str]) -> float:
    """The export timeout the environment sets, in seconds (its value is milliseconds), else the default."""
    for variable in ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"):
        value = environ.get(variable, "").strip()
        if not value:
            continue
        try:
            milliseconds = float(value)
        except ValueError:
            milliseconds = -1.0
        if not 0 < milliseconds < float("inf"):
            raise ConfigError(f"{variable}={value}: expects a positive number of milliseconds")
        return milliseconds / 1000
    return EXPORT_TIMEOUT
