"""Counters and latency figures for /diagnostics, safe to update from many threads."""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Mapping

#: Latency percentiles are computed over this many most recent requests.
LATENCY_WINDOW = 1000


@dataclass(frozen=True)
class StatsSnapshot:
    counts: Mapping[str, int]
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    latency_max_ms: float | None
    graph_ok: bool | None
    graph_message: str

    def level(self, active: bool) -> tuple[str, str]:
        """(OK | WARN | ERROR, one-line summary) for a DiagnosticStatus."""
        if self.graph_ok is False:
            return "ERROR", f"knowledge graph unavailable: {self.graph_message}"
        if not active:
            return "WARN", "not active: requests are refused"
        if self.counts.get("internal_error", 0):
            return "WARN", f"{self.counts['internal_error']} internal errors since configure"
        return "OK", f"{self.counts.get('verified', 0)} plans verified, {self.counts.get('rejected', 0)} rejected"


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (q in [0, 100])."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(min(rank, len(sorted_values))) - 1]


class ServiceStats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._latency: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self._graph: tuple[bool | None, str] = (None, "")
        self._graph_seen: float | None = None

    def count(self, *names: str) -> None:
        with self._lock:
            self._counts.update(names)

    def latency(self, milliseconds: float) -> None:
        with self._lock:
            self._latency.append(milliseconds)

    def graph(self, ok: bool, message: str = "") -> None:
        with self._lock:
            self._graph = (ok, message)
            self._graph_seen = time.monotonic()

    def graph_age_s(self) -> float | None:
        """Seconds since the graph's state was last learned, None if never."""
        with self._lock:
            return None if self._graph_seen is None else time.monotonic() - self._graph_seen

    def snapshot(self) -> StatsSnapshot:
        with self._lock:
            counts = dict(self._counts)
            values = sorted(self._latency)
            graph_ok, graph_message = self._graph
        return StatsSnapshot(
            counts=counts,
            latency_p50_ms=percentile(values, 50) if values else None,
            latency_p99_ms=percentile(values, 99) if values else None,
            latency_max_ms=values[-1] if values else None,
            graph_ok=graph_ok,
            graph_message=graph_message,
        )
