"""Integration tests: the agents against real Kubernetes MCP servers and a fake Kubernetes API."""
