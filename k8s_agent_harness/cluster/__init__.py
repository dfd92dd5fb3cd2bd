"""The cluster side: the MCP client and the servers it talks to.

client        the MCP client (stdio, Streamable HTTP, SSE): tools, calls, restarts, reconnects; failures as data
results       what a call gives back: a result, or a failure as data (retryable, after how long); a tool listing
stdio         the stdio transport: the server's process, its stdout read in bounded lines, its stderr's tail
listing       a server's tool list: every page, each tool once, what changed between two listings
content       a result's content blocks as the model reads them, and what only the user sees
servers       which MCP server a run starts (presets)
discovery     finding the real Kubernetes MCP servers on this machine, without running them
kubeconfig    the kubeconfig files a server will read, and the credentials in them to redact
served        a preset started listening over HTTP on loopback (--mcp-transport), stopped at the end
tools         tool specifications and their Chat Completions form
tool_names    the names the model knows tools by (an alias where the server's cannot be a function name)
schemas       argument validation against a tool's JSON Schema
"""
