"""A simulated Kubernetes cluster served over MCP stdio, loaded from a JSON fixture."""

from k8s_agent_mock_cluster.cluster import Cluster, Invalid, NotFound
from k8s_agent_mock_cluster.fixture import FixtureError, default_fixture_path, load_fixture

__all__ = ["Cluster", "FixtureError", "Invalid", "NotFound", "default_fixture_path", "load_fixture"]
