"""What a run leaves behind: its trace file, its spans, and the private files that hold them.

events        the trace schema (typed events) and the one reader of trace files
trace         the trace writer and the run's counters
spans         a run's trace events as a tree of OpenTelemetry GenAI spans (no OpenTelemetry import)
otel          sending runs as spans over OTLP/HTTP: settings, the process's exporter (the otel extra)
private       files that may hold cluster data or credentials: 0600, in folders made 0700
"""
