"""The mock cluster's tools that change the cluster, offered only when asked for (annotated
destructive, not read-only): their names and descriptions, as the server offers them and as the
contract judge recognises them, under any name a subject gives them."""

WRITE_TOOLS = {
    "delete_pod": "Delete a pod (its controller, if any, creates a new one). Destructive.",
    "restart_pod": "Restart a pod's containers. Destructive: in-flight requests are lost.",
}
"""Each write tool's description, by name."""
