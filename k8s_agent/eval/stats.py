"""Small statistics for the eval report, dependency-free and deterministic.

- `bootstrap_mean`: a percentile bootstrap interval of a mean score, resampling incidents (the unit
  that varies) rather than runs, since the repeats of one incident are not independent;
- `solved_interval`: the interval of a solved rate, the same cluster bootstrap over incidents (the
  repeats of one incident are one cluster: five repeats of a deterministic model give the interval
  one run per incident gives); where every incident has the same rate (all solved, or none) the
  resampling sees no variation and would give a zero-width interval, so the Wilson interval of the
  per-incident rates over the number of incidents (not runs) is given instead;
- `wilson`: the Wilson score interval of a rate (that fallback);
- `sign_test`: the exact two-sided sign test on paired per-incident differences: whether one
  implementation beats the other on more incidents than chance would give.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

Z95 = 1.959963984540054
RESAMPLES = 2000
SEED = 20261201


def wilson(successes: float, total: int, z: float = Z95) -> tuple[float, float]:
    """The 95 % Wilson interval of successes/total ((0, 1) when total is 0)."""
    if total == 0:
        return (0.0, 1.0)
    rate = successes / total
    denominator = 1 + z * z / total
    centre = (rate + z * z / (2 * total)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def bootstrap_mean(
    groups: Mapping[str, Sequence[float]], resamples: int = RESAMPLES
) -> tuple[float, float] | None:
    """A 95 % interval of the mean over every value, resampling the groups (incidents) with replacement."""
    keys = [key for key, values in groups.items() if values]
    if not keys:
        return None
    if len(keys) == 1 and len(set(groups[keys[0]])) == 1:
        value = groups[keys[0]][0]
        return (value, value)
    chance = random.Random(SEED)
    means = []
    for _ in range(resamples):
        picked = [groups[chance.choice(keys)] for _ in keys]
        total = sum(len(values) for values in picked)
        means.append(sum(sum(values) for values in picked) / total)
    means.sort()
    return (means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))])


def solved_interval(groups: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """A 95 % interval of a solved rate (values 0 or 1 per run, grouped by incident): the cluster
    bootstrap over incidents; the Wilson interval over incidents where that has no width."""
    rates = [sum(values) / len(values) for values in groups.values() if values]
    if not rates:
        return (0.0, 1.0)
    found = bootstrap_mean(groups)
    if found is not None and found[1] > found[0]:
        return found
    return wilson(sum(rates), len(rates))


def sign_test(wins: int, losses: int) -> float:
    """The exact two-sided p-value of `wins` against `losses` under no difference (ties left out)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)
