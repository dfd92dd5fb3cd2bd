"""The shared harness: everything both agents use, and nothing of either (SDK-free).

    config        the run's settings, each defined once (flags, environment, help derive from it)
    config_load   reading them: flags, the environment and a .env file, each value checked and coerced
    vocabulary    the enums runs are described in (outcomes, rejections, guardrails, stop reasons)
    errors        the run failures and their exit codes
    interrupts    SIGTERM and SIGHUP end a command as Ctrl-C does (the trace closed, exit 128 + the signal)
    evidence/     what the tools showed and what a report may rest on: shapes, redaction, provenance,
                  grounding, the verifiable report
    traces/       what a run leaves behind: the trace schema and writer, spans, OTLP export, private files
    cluster/      the MCP client (its transport, listing, content) and the servers a run starts
    model/        the model's wire: the client, provider differences, streams, the conversation, the
                  context budget, the prompts
    guards/       the safety core: the tool gateway, the read policy, budgets, approval, the review
    session       what a run shares: trace, budgets, server, gateway, model client
    printout      a run's result as printed by `k8s-agent ask` (the terminal) and as markdown for a ticket

Each folder's `__init__.py` lists its modules. Modules are imported one by one
(`from k8s_agent_harness.guards.gateway import ToolGateway`): no package here imports anything by
itself, so that a command pays only for what it uses.
"""
