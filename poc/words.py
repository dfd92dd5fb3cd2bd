"""The words every probe and the scripted models share: what an absent feature is observed as, and
a text made fit for a table cell."""

from __future__ import annotations

ABSENT = "absent"
"""The observation for a feature (or a request field) that does not exist."""


def one_line(text: str, limit: int = 300) -> str:
    """Whitespace (newlines included) collapsed, cut at `limit`: fit for a table cell or a reason."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
