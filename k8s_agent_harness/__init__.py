"""The shared harness: everything both agents use, and nothing of either (SDK-free).

    config        the run's settings, each defined once (flags, environment, help derive from it)
    vocabulary    the enums runs are described in (outcomes, rejections, guardrails, stop reasons)
    errors        the run failures and their exit codes
    servers       which MCP server a run starts (presets), with discovery.py and kubeconfig.py
    served        a preset started listening over HTTP on loopback (--mcp-transport), stopped at the end
    mcp_client    the MCP client (stdio, Streamable HTTP, SSE): tools, calls, restarts, reconnects; failures as data
    mcp_stdio     the stdio transport: the server's process, its stdout read in bounded lines, its stderr's tail
    mcp_listing   a server's tool list: every page, each tool once, what changed between two listings
    mcp_content   a result's content blocks as the model reads them, and what only the user sees
    tools         tool specifications and their Chat Completions form
    tool_names    the names the model knows tools by (an alias where the server's cannot be a function name)
    gateway       the one path of every tool call: allowlist, JSON, schema, cache, call, redact, trace
    schemas       argument validation against a tool's JSON Schema
    supervisor    budgets outside the conversation: steps, time, repeats
    review        the review policy: accept an answer or push back (zero-tool, evidence)
    grounding     which pod, node and namespace names an answer uses, and which no tool returned
    provenance    what each tool result shows and what a quote in it is about (for findings.py)
    findings      the verifiable report: its schema, its verification, its renderings
    prompts       every text the harness says to the model
    model_client  the openai client both agents use: its transport reads and traces every answer once
    provider_wire what providers send that differs: repairs, errors in a 200, calls they could not parse
    streams       a streamed answer read as the one response it amounts to
    conversation  the run's conversation, whichever wire carries it, with each provider's own fields
    session       what a run shares: trace, budgets, server, gateway, model client
    events        the trace schema (typed events) and the one reader of trace files
    trace         the trace writer and the run's counters
    private       files that may hold cluster data or credentials: 0600, in folders made 0700
    spans         a run's trace events as a tree of OpenTelemetry GenAI spans (no OpenTelemetry import)
    otel          sending runs as spans over OTLP/HTTP: settings, the process's exporter (the otel extra)
    redact        secret redaction before anything reaches the model, a trace or a terminal
    approval      asking the operator before a write tool runs
    interrupts    SIGTERM and SIGHUP end a command as Ctrl-C does (the trace closed, exit 128 + the signal)
    report        the terminal report

Modules are imported one by one (`from k8s_agent_harness.gateway import ToolGateway`): this
package imports nothing by itself, so that a command pays only for what it uses.
"""
