"""A node of its own, spinning in a background thread, for the command-line tools that record and replay."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Iterator

import rclpy
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node


@contextmanager
def spinning_node(prefix: str, threads: int = 2) -> Iterator[Node]:
    """A node in its own context (no signal handlers installed: the caller decides what Ctrl-C does).

    On exit the executor is shut down and its thread joined before the
    context goes: a spin thread outliving the context aborts the process.
    """
    context = rclpy.Context()
    rclpy.init(context=context)
    executor = MultiThreadedExecutor(num_threads=threads, context=context)
    node = rclpy.create_node(f"{prefix}_{os.getpid()}", context=context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, name=f"{prefix} executor", daemon=True)
    spinner.start()
    try:
        yield node
    finally:
        executor.shutdown()
        spinner.join(10)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
