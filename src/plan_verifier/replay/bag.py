"""Reading the verifier's traffic out of a rosbag2 bag (sqlite3 or mcap), with rosbags only.

A bag is a rosbag2 directory (metadata.yaml plus storage files) or a single
`.db3`/`.mcap` storage file (e.g. one whose recorder died before writing the
metadata). Everything that can go wrong with a bag becomes a `BagError` with
a one-line message: a path that is not a bag, a corrupt or truncated file, a
topic of the verifier carrying another type (or another definition of our
type), a bag without the verifier's request topics.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from rosbags.interfaces import Qos
from rosbags.rosbag2 import Reader, StoragePlugin, Writer

from plan_verifier.replay import interfaces as itf

#: The suffixes by which a node's topics are recognised, and their types.
_SUFFIXES = {
    "/plan_requests": itf.PLAN_REQUEST,
    "/feedback": itf.FEEDBACK,
    "/fallback": itf.FEEDBACK,
    "/approved_actions": itf.APPROVED,
    "/verify/_service_event": itf.VERIFY_EVENT,
}


STORAGES = {"sqlite3": StoragePlugin.SQLITE3, "mcap": StoragePlugin.MCAP}


class BagError(Exception):
    """The bag cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class BagMessage:
    topic: str
    stamp_ns: int
    msg: Any


@dataclass(frozen=True)
class BagContents:
    path: str
    storage: str  # sqlite3 | mcap
    topics: itf.Topics
    robot_state_topic: str | None
    #: The node's topics present in the bag (whatever their message count).
    present: frozenset[str]
    messages: tuple[BagMessage, ...]  # in timestamp order


def read_bag(path: str | os.PathLike[str], *, node: str | None = None, robot_state_topic: str | None = None) -> BagContents:
    """The verifier traffic of one bag; BagError when the bag cannot be used."""
    name = str(path)
    if not Path(path).exists():
        raise BagError(f"{name}: no such bag (a rosbag2 directory, or a .db3/.mcap file)")
    try:
        reader = Reader(Path(path))
    except FileNotFoundError:
        raise BagError(f"{name}: not a rosbag2 bag (no metadata.yaml; give the .db3 or .mcap file itself to read it without)") from None
    except Exception as exc:  # noqa: BLE001 - rosbags raises several types for a path it cannot use
        raise BagError(f"{name}: not a rosbag2 bag: {_reason(exc)}") from None
    try:
        reader.open()
    except Exception as exc:  # noqa: BLE001
        raise BagError(f"{name}: corrupt or truncated bag: {_reason(exc)}") from None
    try:
        topics, state_topic = _select(name, reader.connections, node, robot_state_topic)
        wanted = set(topics.types()) | ({state_topic} if state_topic else set())
        connections = [c for c in reader.connections if c.topic in wanted]
        present = frozenset(c.topic for c in connections if c.topic != state_topic)
        messages = _read(name, reader, connections, {**topics.types(), **({state_topic: itf.ROBOT_STATE} if state_topic else {})})
        return BagContents(name, _storage(reader, Path(path)), topics, state_topic, present, messages)
    finally:
        try:
            reader.close()
        except Exception:  # noqa: BLE001 - closing a broken file must not hide the real message
            pass


def _select(name: str, connections: Iterable[Any], node: str | None, state_topic: str | None) -> tuple[itf.Topics, str | None]:
    connections = list(connections)
    by_topic: dict[str, str] = {}
    for c in connections:
        by_topic.setdefault(c.topic, c.msgtype)
    if node is None:
        nodes = sorted({topic[: -len(suffix)] for topic in by_topic for suffix in _SUFFIXES if topic.endswith(suffix)})
        if not nodes:
            listed = ", ".join(sorted(by_topic)) or "none"
            raise BagError(f"{name}: missing topic: no plan_verifier topics (<node>/plan_requests, <node>/verify/_service_event) in the bag (topics: {listed})")
        if len(nodes) > 1:
            raise BagError(f"{name}: the bag holds the topics of several verifier nodes ({', '.join(nodes)}); choose one with --node")
        node = nodes[0]
    topics = itf.Topics(node.rstrip("/"))
    for topic, expected in topics.types().items():
        for c in connections:
            if c.topic != topic:
                continue
            if c.msgtype != expected:
                raise BagError(f"{name}: unknown message type: {topic} carries {c.msgtype}, expected {expected}")
            if c.digest and c.digest.startswith("RIHS01_") and c.digest != itf.type_hash(expected):
                raise BagError(f"{name}: unknown message type: {topic} carries another definition of {expected} "
                               "than this plan_verifier_interfaces (recorded with another version?)")
    if topics.plan_requests not in by_topic and topics.service_events not in by_topic:
        raise BagError(f"{name}: missing topic: neither {topics.plan_requests} nor {topics.service_events} is in the bag; there is nothing to replay")
    return topics, _state_topic(name, by_topic, state_topic)


def _state_topic(name: str, by_topic: dict[str, str], chosen: str | None) -> str | None:
    if chosen is not None:
        if chosen not in by_topic:
            raise BagError(f"{name}: missing topic: {chosen} is not in the bag")
        if by_topic[chosen] != itf.ROBOT_STATE:
            raise BagError(f"{name}: unknown message type: {chosen} carries {by_topic[chosen]}, expected {itf.ROBOT_STATE}")
        return chosen
    candidates = sorted(t for t, kind in by_topic.items() if kind == itf.ROBOT_STATE)
    if len(candidates) > 1:
        raise BagError(f"{name}: several RobotState topics ({', '.join(candidates)}); choose the node's with --robot-state-topic")
    return candidates[0] if candidates else None


def _read(name: str, reader: Reader, connections: list[Any], types: dict[str, str]) -> tuple[BagMessage, ...]:
    out: list[BagMessage] = []
    if not connections:
        return ()
    try:
        for connection, stamp, raw in reader.messages(connections=connections):
            out.append(BagMessage(connection.topic, int(stamp), itf.deserialize(raw, types[connection.topic])))
    except Exception as exc:  # noqa: BLE001 - any decoding failure means the file is damaged
        raise BagError(f"{name}: corrupt or truncated bag: {_reason(exc)} (after {len(out)} messages)") from None
    out.sort(key=lambda m: m.stamp_ns)  # stable: messages with one stamp keep the storage order
    return tuple(out)


def _storage(reader: Reader, path: Path) -> str:
    if path.is_file():
        return "mcap" if path.suffix == ".mcap" else "sqlite3"
    storages = getattr(reader.storage, "storages", [])
    kind = type(storages[0]).__name__.lower() if storages else ""
    return "mcap" if "mcap" in kind else "sqlite3"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


class BagWriter:
    """A rosbag2 bag (format version 9) being written; topics carry our type definitions and hashes.

    Safe to use from several threads (a recorder's subscription callbacks,
    the live replay's sender): one writer thread owns the storage (sqlite3
    connections belong to the thread that opened them) and writes queued
    messages in arrival order. `close` writes metadata.yaml and raises
    BagError if any write failed; until then the bag is only readable through
    its storage file.
    """

    def __init__(self, path: str | os.PathLike[str], storage: str = "sqlite3") -> None:
        if storage not in STORAGES:
            raise BagError(f"unknown storage {storage!r} (expected {' or '.join(STORAGES)})")
        if Path(path).exists():
            raise BagError(f"{path} exists already; a bag is never overwritten")
        self.path = Path(path)
        self.storage = storage
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._types: dict[str, str] = {}
        self._queue: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._failure: str | None = None
        opened: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, args=(opened,), name=f"bag writer {self.path.name}", daemon=True)
        self._thread.start()
        problem = opened.get()
        if problem is not None:
            raise BagError(f"cannot create {path}: {problem}")

    def add_topic(self, topic: str, typename: str, qos: Qos | None = None) -> None:
        with self._lock:
            if topic in self._types:
                return
            self._types[topic] = typename
        done: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._queue.put(("topic", topic, typename, qos, done))
        problem = done.get()
        if problem is not None:
            raise BagError(f"{self.path}: cannot add {topic}: {problem}")

    def write_raw(self, topic: str, stamp_ns: int, raw: bytes | memoryview) -> None:
        with self._lock:
            self.counts[topic] += 1
        self._queue.put(("write", topic, stamp_ns, bytes(raw)))

    def write(self, topic: str, stamp_ns: int, message: Any) -> None:
        self.write_raw(topic, stamp_ns, itf.serialize(message, self._types[topic]))

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if self._failure is not None:
            raise BagError(f"writing {self.path} failed: {self._failure}")

    def __enter__(self) -> "BagWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _run(self, opened: "queue.SimpleQueue[str | None]") -> None:
        try:
            writer = Writer(self.path, version=Writer.VERSION_LATEST, storage_plugin=STORAGES[self.storage])
            writer.open()
        except Exception as exc:  # noqa: BLE001 - rosbags or the file system refused
            opened.put(_reason(exc))
            return
        opened.put(None)
        connections: dict[str, Any] = {}
        while (item := self._queue.get()) is not None:
            try:
                if item[0] == "topic":
                    _, topic, typename, qos, done = item
                    try:
                        connections[topic] = itf.add_connection(writer, topic, typename, qos)
                    except Exception as exc:  # noqa: BLE001
                        done.put(_reason(exc))
                    else:
                        done.put(None)
                elif self._failure is None:
                    _, topic, stamp_ns, raw = item
                    writer.write(connections[topic], stamp_ns, raw)
            except Exception as exc:  # noqa: BLE001 - reported by close(); later messages are dropped
                self._failure = self._failure or _reason(exc)
        try:
            writer.close()
        except Exception as exc:  # noqa: BLE001
            self._failure = self._failure or _reason(exc)
