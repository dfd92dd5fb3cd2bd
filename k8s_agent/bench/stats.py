"""Repeated measurements: median, min and max, and ratios between them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Samples:
    """Repeated measurements of one figure."""

    name: str
    unit: str
    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        """Record one measurement."""
        self.values.append(value)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else float("nan")

    def summary(self) -> dict[str, object]:
        """Median, min, max and count, rounded for reading."""
        if not self.values:
            return {"median": None, "min": None, "max": None, "n": 0, "unit": self.unit}
        return {
            "median": round(self.median, 3),
            "min": round(min(self.values), 3),
            "max": round(max(self.values), 3),
            "n": len(self.values),
            "unit": self.unit,
        }

    def cell(self) -> str:
        """`median (min-max)` for a table."""
        if not self.values:
            return "n/a"
        return f"{self.median:.2f} ({min(self.values):.2f}-{max(self.values):.2f})"


def ratio(numerator: Samples, denominator: Samples) -> float:
    """Ratio of two medians."""
    return numerator.median / denominator.median if denominator.median else float("nan")
