"""A real HTTP server on loopback that speaks the chat-completions protocol, for the llm grader's tests.

It answers `POST .../chat/completions` with queued answers, in order (the last
one repeats), and records every request it received. An answer is the
assistant's text, or a dict: `{"content": str, "delay": seconds, "body":
raw bytes, "status": int}` for slow, malformed or failing answers.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer:
    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                    answer = server.answers[min(len(server.requests), len(server.answers)) - 1]
                if not isinstance(answer, dict):
                    answer = {"content": answer}
                if answer.get("delay") and server._stop.wait(answer["delay"]):
                    return
                payload = answer.get("body")
                if payload is None:
                    payload = json.dumps({"id": "test", "object": "chat.completion", "model": body.get("model"),
                                          "choices": [{"index": 0, "finish_reason": "stop",
                                                       "message": {"role": "assistant", "content": answer["content"]}}]}).encode()
                try:
                    self.send_response(answer.get("status", 200))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
