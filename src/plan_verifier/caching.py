"""In-memory caches the execution level shares across verifications in one process.

Two needs recur: a cache key that holds an unhashable but immutable object (a robot spec, an
`Arm`) by identity, and a least-recently-used map bounded by the bytes its values hold rather
than by their count (a swept motion is a few kB, a followed run of linear moves can be a few
hundred), safe to use from the node's worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Generic, Hashable, TypeVar

V = TypeVar("V")


class ByIdentity:
    """Compares and hashes by identity; keeps the object alive as long as the key lives."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ByIdentity) and other.value is self.value


class BytesLRU(Generic[V]):
    """Values by key, least recently used dropped beyond `limit` bytes (as the caller sizes them);
    a value larger than the whole limit is not kept; safe across threads."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def store(self, key: Hashable, value: V, size: int) -> None:
        with self._lock:
            if key in self._items or size > self.limit:
                return
            self._items[key] = (value, size)
            self._size += size
            while self._size > self.limit:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0
