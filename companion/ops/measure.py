"""The figures every bench and load command prints: percentiles of timed samples and the machine they were taken on.

One definition for all of them, so a p95 from `load` and a p99 from `bench` are computed the same way.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass


def percentiles(values: Sequence[float], points: Sequence[int]) -> dict[int, float | None]:
    """Each percentile in `points` (1 to 99) of `values`, by `statistics.quantiles(..., method="inclusive")`:
    the sorted values are spread over 0-100 %, and a point between two of them is interpolated linearly, so
    p50 is the median and no percentile leaves the range of the values. None for every point without values."""
    if len(values) < 2:  # quantiles() wants two values; one value is every percentile of itself
        return {point: values[0] if values else None for point in points}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {point: cuts[point - 1] for point in points}


@dataclass(frozen=True)
class Summary:
    """How many durations there were, their mean, median (p50), p95 and p99, in milliseconds (None: none)."""

    count: int
    mean_ms: float | None
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None

    def fields(self, prefix: str = "") -> dict[str, float | None]:
        """The percentiles as a result's entries, such as `{prefix}p95_ms`."""
        return {f"{prefix}p50_ms": self.p50_ms, f"{prefix}p95_ms": self.p95_ms, f"{prefix}p99_ms": self.p99_ms}

    def text(self) -> str:
        """The percentiles as a report says them: `p50 2.6 ms, p95 5.5 ms, p99 13.0 ms`."""
        return f"p50 {self.p50_ms} ms, p95 {self.p95_ms} ms, p99 {self.p99_ms} ms"


def summarize(seconds: Sequence[float], digits: int = 1) -> Summary:
    """The Summary of durations in seconds, each figure in milliseconds rounded to `digits` decimals."""
    cuts = percentiles(seconds, (50, 95, 99))

    def milliseconds(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, digits)

    mean = statistics.fmean(seconds) if seconds else None
    return Summary(len(seconds), milliseconds(mean), *(milliseconds(cuts[point]) for point in (50, 95, 99)))


def machine_line() -> str:
    """The machine a figure was measured on: cores and load average (figures mean little without them)."""
    try:
        one, five, fifteen = os.getloadavg()
        load = f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min)"
    except (AttributeError, OSError):  # Windows has no load average
        load = "load average not available on this system"
    return f"Machine: {os.cpu_count()} cores, {load}, Python {sys.version.split()[0]} on {sys.platform}."
