"""A simulated Kubernetes cluster served over MCP stdio, loaded from a JSON fixture."""

from mock_cluster.cluster import Cluster, Invalid, NotFound
from mock_cluster.fixture import FixtureError, default_fixture_path, load_fixture

__all__ = ["Cluster", "FixtureError", "Invalid", "NotFound", "default_fixture_path", "load_fixture"]
