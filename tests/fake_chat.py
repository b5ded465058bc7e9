"""A local stand-in for an OpenAI-compatible chat completions API (`POST /chat/completions`), for the
language-model Reasoner's tests: it answers well, answers junk, answers too late or fails, as told."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from grimoire.graph.db.local_server import free_port

GOOD_UTILITY = 0.85
GOOD_LESSON = "Use uniswap_swap for WETH/USDC on chain 1 in low_vol regimes: it kept paying."
GOOD_INTERPRETATION = "Slippage was underestimated because liquidity thinned during the move."
GOOD_COUNTERFACTUAL = "Splitting the order would have kept slippage within tolerance."
GOOD_INSIGHT = "Slippage estimates for WETH/USDC run low when liquidity thins; add a margin."
JUNK = "Sure! I think this will be quite useful in the future."


def good_content(prompt: str) -> str:
    """A valid answer to whichever of the Reasoner's questions the prompt asks."""
    if '"utility"' in prompt:
        return json.dumps({"utility": GOOD_UTILITY})
    if '"category"' in prompt:
        return json.dumps({"category": "Heuristic", "content": GOOD_LESSON, "polarity": 1})
    if '"interpretation"' in prompt:
        return json.dumps({"interpretation": GOOD_INTERPRETATION, "counterfactual": GOOD_COUNTERFACTUAL,
                           "insight": GOOD_INSIGHT})
    return "{}"


class FakeChat:
    """`behaviour`: good (valid answers), junk (prose instead of JSON), slow (a valid answer after
    `delay` seconds), error (HTTP 500), html (a 200 that is no chat completion), content (answers
    `content` as the message, verbatim), or script (answers `script(prompt)`).
    `requests` keeps every request's JSON body and headers."""

    def __init__(self) -> None:
        self.behaviour = "good"
        self.delay = 2.0
        self.content = ""
        self.script: Callable[[str], str] = good_content
        self.requests: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.port = free_port()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @contextmanager
    def running(self) -> Iterator[FakeChat]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.requests.append((body, dict(self.headers.items())))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": "no such path"})
                if fake.behaviour == "error":
                    return self._send(500, {"error": "internal"})
                if fake.behaviour == "html":
                    return self._send(200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
                if fake.behaviour == "slow":
                    time.sleep(fake.delay)
                prompt = body["messages"][-1]["content"]
                if fake.behaviour == "script":
                    content = fake.script(prompt)
                else:
                    content = {"junk": JUNK, "content": fake.content}.get(fake.behaviour, good_content(prompt))
                self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": content}}]})

            def _send(self, status: int, payload: dict[str, Any] | bytes, kind: str = "application/json") -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


def dead_url() -> str:
    """A URL on a port nobody listens on."""
    return f"http://127.0.0.1:{free_port()}/v1"
