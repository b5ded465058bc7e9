"""The typed client sends a request again after a broken connection only where that is safe: always when it never
reached the service, and after it did only for reads and writes keyed by the caller's ids (issue 37, section 7)."""

from __future__ import annotations

import httpx
import pytest

from grimoire.client import Grimoire
from grimoire.client.base import Request

ENTRY = {"category": "Insight", "content": "Funding flips precede squeezes"}


def _post(client: Grimoire, template: str, body: object) -> object:
    return client._send(Request("POST", template, {}, {}, body, None))


def _client(failures: list[Exception]) -> tuple[Grimoire, list[str]]:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if failures:
            raise failures.pop(0)
        return httpx.Response(200, json={"ok": True})

    http = httpx.Client(base_url="http://replica", transport=httpx.MockTransport(answer))
    return Grimoire("http://replica", "k", http=http, retries=3, backoff=0.001), seen


def test_a_read_whose_connection_broke_is_sent_again() -> None:
    client, seen = _client([httpx.RemoteProtocolError("peer closed connection"), httpx.ReadError("reset")])
    assert _post(client, "/retrieve", {"text": "q"}) == {"ok": True}
    assert seen == ["POST /retrieve"] * 3


def test_a_write_that_may_have_run_is_not_sent_twice() -> None:
    client, seen = _client([httpx.RemoteProtocolError("peer closed connection")])
    with pytest.raises(httpx.RemoteProtocolError):
        _post(client, "/entries", ENTRY)
    assert seen == ["POST /entries"]


def test_a_write_keyed_by_its_ids_is_sent_again() -> None:
    client, seen = _client([httpx.ReadError("reset")])
    _post(client, "/episodes/batch", {"episodes": [{"id": "e-1", "type": "observation", "text": "WETH rate rose"}]})
    assert seen == ["POST /episodes/batch"] * 2


def test_a_request_that_never_left_is_always_sent_again() -> None:
    client, seen = _client([httpx.ConnectError("refused"), httpx.ConnectError("refused")])
    assert _post(client, "/entries", ENTRY) == {"ok": True}
    assert seen == ["POST /entries"] * 3


def test_episodes_without_their_ids_are_not_sent_twice() -> None:
    client, seen = _client([httpx.ReadError("reset")])
    with pytest.raises(httpx.ReadError):  # the service gives each an id: sent again, they would be stored twice
        _post(client, "/episodes/batch", {"episodes": [{"type": "observation", "text": "WETH rate rose"}]})
    assert seen == ["POST /episodes/batch"]


def test_a_put_is_not_sent_twice() -> None:
    client, seen = _client([httpx.RemoteProtocolError("peer closed connection")])
    with pytest.raises(httpx.RemoteProtocolError):  # a second revision of the policy, a second audit record
        client._send(Request("PUT", "/agents/{agent_id}/context/policy", {"agent_id": "a"}, {}, {}, None))
    assert seen == ["PUT /agents/a/context/policy"]


def test_retries_end() -> None:
    client, seen = _client([httpx.ConnectError("refused")] * 5)
    with pytest.raises(httpx.ConnectError):
        _post(client, "/episodes/batch", {"episodes": []})
    assert len(seen) == 4  # the first and three retries


def test_every_repeatable_post_is_a_route() -> None:
    from pathlib import Path

    from grimoire.client import base

    generated = (Path(base.__file__).parent / "routes.py").read_text()
    posts = base.SAFE_POSTS | base.KEYED_POSTS
    assert all(f"Request('POST', '{t}'," in generated for t in posts), posts
