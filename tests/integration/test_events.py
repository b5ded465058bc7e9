"""Events against the real database: written with the mutations they report, listed by type, agent
and time, visible to their own agent only, and streamed live (Server-Sent Events) with resume.

The stream tests run the app under uvicorn on a free port and read it with httpx: Starlette's
TestClient hands a streaming body over only once it has ended."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from grimoire.graph.ids import now_ms
from tests.conftest import ADMIN_KEY, Api, served

TEXTS = [
    "Aave v3 WETH variable borrow rate doubles when utilisation passes the 90% kink",
    "Curve stETH/ETH pool depth halves within 6 hours of a Lido withdrawal queue spike",
    "Chainlink ETH/USD heartbeat is 3600 seconds with a 0.5% deviation threshold on mainnet",
]


def _episodes(prefix: str, n: int) -> dict[str, Any]:
    return {"episodes": [{"id": f"{prefix}-{i}", "type": "observation",
                          "text": f"{prefix}: WETH borrow rate read {i + 3}% at block {19_000_000 + i}"}
                         for i in range(n)]}


def _list(api: Api, headers: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    r = api.client.get("/events", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return list(r.json())


def _pause() -> int:
    """A moment between two writes, as epoch ms: events before it are at or before it, after it after."""
    time.sleep(0.01)
    at = now_ms()
    time.sleep(0.01)
    return at


def test_events_are_listed_by_type_agent_and_time(api: Api) -> None:
    h = api.headers("ev-a", "clade-e")
    assert api.client.post("/episodes/batch", headers=h, json=_episodes("ev-a", 3)).status_code == 201
    assert api.client.post("/episodes/batch", headers=h, json=_episodes("ev-a", 3)).status_code == 201  # nothing new
    mid = _pause()
    entries = [{"id": f"ev-e{i}", "category": "Insight", "content": t, "parent_episode_ids": ["ev-a-0"]}
               for i, t in enumerate(TEXTS[:2])]
    assert api.client.post("/entries/batch", headers=h, json={"entries": entries}).status_code == 201
    r = api.client.post("/causal/links", headers=h, json={"links": [{"cause": "ev-e0", "effect": "ev-e1"}]})
    assert r.status_code == 201, r.text
    graph = api.client.get("/agents/ev-a/causal-graph", headers=h).json()
    heir = api.headers("ev-heir", "clade-e")
    assert api.client.post("/agents/ev-heir/inherit-causal-graph", headers=heir, json=graph).status_code == 201
    late = _pause()
    exported = api.client.get("/agents/ev-a/export", headers=h).text
    imported = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                               content=exported)
    assert imported.status_code == 200, imported.text

    mine = _list(api, h)
    assert [(e["type"], e["payload"]["entry_type"] if e["type"] == "GrimoireWrite" else e["payload"]["stage"])
            for e in mine] == [("GrimoireWrite", "episode"), ("GrimoireWrite", "entry"), ("GrimoireWrite", "entry"),
                               ("IngestResult", "import")]
    assert [e["id"] for e in mine] == sorted(e["id"] for e in mine)  # oldest first, by id
    assert all(e["agent_id"] == "ev-a" and e["clade"] == "clade-e" for e in mine)
    assert mine[0]["payload"] == {"entry_type": "episode", "count": 3, "category": None, "source": "ingest"}
    stored = api.client.get("/entries/ev-e0", headers=h).json()
    assert mine[1]["payload"] == {"entry_type": "entry", "category": "Insight", "confidence": stored["confidence"],
                                  "source": "SelfLearned", "entry_id": "ev-e0"}
    assert mine[3]["payload"] == {"source": "import", "stage": "import", "outcome": {
        "nodes": imported.json()["nodes"], "relationships": imported.json()["relationships"],
        "relationships_skipped": 0}}
    assert datetime.fromisoformat(mine[0]["at"]) <= datetime.fromisoformat(mine[0]["recorded_at"])

    # By type (repeatable), by agent (the admin's view), by time: ISO 8601 or epoch milliseconds.
    assert [e["id"] for e in _list(api, h, type="IngestResult")] == [mine[3]["id"]]
    assert len(_list(api, h, type=["IngestResult", "GrimoireWrite"])) == 4
    assert _list(api, h, type="CuratorCycleComplete") == []
    *admitted, inherited = _list(api, api.admin, agent_id="ev-heir")  # its copies passed the Admission Gate first
    assert [(e["type"], e["payload"]["source"]) for e in admitted] == [("GrimoireWrite", "Predecessor")] * 2
    assert inherited["type"] == "IngestResult" and inherited["payload"] == {
        "source": "ev-a", "stage": "inherit", "outcome": {"entries": 2, "links": 1}}
    assert len(_list(api, api.admin)) == 7
    assert [e["id"] for e in _list(api, h, since=mid)] == [e["id"] for e in mine[1:]]
    iso = lambda ms: datetime.fromtimestamp(ms / 1000, UTC).isoformat()  # noqa: E731
    assert [e["id"] for e in _list(api, h, until=iso(mid))] == [mine[0]["id"]]
    assert [e["id"] for e in _list(api, h, since=iso(mid), until=str(late))] == [e["id"] for e in mine[1:3]]
    # Pages: after the last id of the one before.
    first = _list(api, h, limit=3)
    assert first == mine[:3] and _list(api, h, after=first[-1]["id"], limit=3) == mine[3:]
    assert api.client.get("/events", headers=h, params={"limit": 1_001}).status_code == 422
    assert api.client.get("/events", headers=h, params={"type": "Gossip"}).status_code == 422
    assert api.client.get("/events", headers=h, params={"after": "no such id!"}).status_code == 422


def test_a_failed_write_leaves_no_event(api: Api, db) -> None:
    """The event is written in the mutation's transaction: what the database refuses leaves neither."""
    h = api.headers("ev-f", "clade-e")
    api.client.post("/episodes/batch", headers=h, json=_episodes("ev-f", 1))
    exported = api.client.get("/agents/ev-f/export", headers=h).text.splitlines()
    bad = json.dumps({"record": "node", "labels": ["Episode"], "id": "mixed",
                      "properties": {"agent_id": "ev-f", "tags": [1, "one"]}})  # Neo4j cannot store it
    r = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                        content="\n".join([*exported, bad]))
    assert r.status_code == 422
    assert [e["type"] for e in _list(api, api.admin)] == ["GrimoireWrite"]


# ---------------------------------------------------------------- the stream, over a real socket


@pytest.fixture
def live(db, neo4j_server, embedder):
    """The app under uvicorn in a thread, on a free port, and an httpx client for it."""
    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)
    with served(app, "events") as url, httpx.Client(base_url=url, timeout=30) as client:
        yield Api(client, db)


class Subscriber(threading.Thread):
    """Reads GET /events/stream until it has `want` events (then hangs up) or the stream ends."""

    def __init__(self, api: Api, headers: dict[str, str], want: int, max_seconds: float = 20,
                 **params: Any) -> None:
        super().__init__(daemon=True)
        self.api, self.headers, self.want = api, headers, want
        self.params = {"max_seconds": max_seconds, **params}
        self.frames: list[dict[str, str]] = []
        self.comments: list[str] = []
        self.status: int | None = None
        self.content_type = ""
        self.subscribed = threading.Event()

    def run(self) -> None:
        try:
            with self.api.client.stream("GET", "/events/stream", headers=self.headers, params=self.params) as r:
                self.status, self.content_type = r.status_code, r.headers.get("content-type", "")
                block: dict[str, str] = {}
                for line in r.iter_lines():
                    if line.startswith(":"):
                        self.comments.append(line)
                        self.subscribed.set()
                    elif line:
                        name, _, value = line.partition(": ")
                        block[name] = value
                    elif "data" in block:
                        self.frames.append(block)
                        block = {}
                        if len(self.frames) >= self.want:
                            return
                    else:
                        block = {}
        finally:
            self.subscribed.set()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(f["data"]) for f in self.frames]

    def start_and_wait(self) -> Subscriber:
        self.start()
        assert self.subscribed.wait(30) and self.status == 200, self.status
        return self

    def finish(self, timeout: float = 30) -> Subscriber:
        self.join(timeout)
        assert not self.is_alive(), f"the stream did not deliver {self.want} events: {self.frames}"
        return self


def test_the_stream_delivers_events_written_while_subscribed_and_resumes(live: Api) -> None:
    h = live.headers("ev-s", "clade-s")
    live.client.post("/episodes/batch", headers=h, json=_episodes("ev-s-before", 2))  # before: not streamed
    time.sleep(0.01)
    sub = Subscriber(live, h, want=3).start_and_wait()
    assert sub.content_type.startswith("text/event-stream")
    assert live.client.post("/episodes/batch", headers=h, json=_episodes("ev-s-1", 2)).status_code == 201
    entries = [{"id": f"ev-s-e{i}", "category": "Insight", "content": t} for i, t in enumerate(TEXTS[:2])]
    assert live.client.post("/entries/batch", headers=h, json={"entries": entries}).status_code == 201
    got = sub.finish().events()
    listed = _list(live, h)
    assert got == listed[1:]  # the same objects as the listing, in the same order
    assert [f["id"] for f in sub.frames] == [e["id"] for e in got]
    assert [f["event"] for f in sub.frames] == ["GrimoireWrite"] * 3
    assert [e["payload"].get("entry_id") for e in got] == [None, "ev-s-e0", "ev-s-e1"]

    # Written while nobody listened; a resume after the last id seen gets exactly these.
    assert live.client.post("/episodes/batch", headers=h, json=_episodes("ev-s-2", 1)).status_code == 201
    live.client.post("/entries", headers=h, json={"id": "ev-s-e2", "category": "Insight", "content": TEXTS[2]})
    missed = [e["id"] for e in _list(live, h, after=got[-1]["id"])]
    assert len(missed) == 2
    resumed = Subscriber(live, {**h, "Last-Event-ID": sub.frames[-1]["id"]}, want=2).start_and_wait().finish()
    assert [e["id"] for e in resumed.events()] == missed
    # `after` does the same for a client that cannot set the header; the header wins over it.
    by_param = Subscriber(live, h, want=1, after=missed[0]).start_and_wait().finish()
    assert [e["id"] for e in by_param.events()] == missed[1:]
    both = Subscriber(live, {**h, "Last-Event-ID": missed[0]}, want=1, after=got[0]["id"]).start_and_wait().finish()
    assert [e["id"] for e in both.events()] == missed[1:]
    # Filters apply to the stream too; max_seconds ends it.
    typed = Subscriber(live, h, want=99, max_seconds=1.5, since=0, type="IngestResult").start_and_wait()
    assert typed.finish(10).frames == [] and typed.comments[0] == ": subscribed"
    assert live.client.get("/events/stream", headers=h, params={"max_seconds": 3_601}).status_code == 422


def test_events_are_isolated(live: Api) -> None:
    """An agent sees only its own events, listed or streamed, even from an agent of its own clade and
    even when it names that agent; the admin sees everyone's."""
    a, b = live.headers("ev-iso-a", "clade-i"), live.headers("ev-iso-b", "clade-i")
    sub_a = Subscriber(live, a, want=1).start_and_wait()
    sub_a_for_b = Subscriber(live, a, want=1, max_seconds=3, agent_id="ev-iso-b").start_and_wait()
    sub_admin = Subscriber(live, live.admin, want=2).start_and_wait()
    assert live.client.post("/episodes/batch", headers=b, json=_episodes("ev-iso-b", 2)).status_code == 201
    assert live.client.post("/episodes/batch", headers=a, json=_episodes("ev-iso-a", 1)).status_code == 201
    assert [e["agent_id"] for e in sub_a.finish().events()] == ["ev-iso-a"]
    assert sub_a_for_b.finish(10).frames == []
    assert sorted(e["agent_id"] for e in sub_admin.finish().events()) == ["ev-iso-a", "ev-iso-b"]
    assert [e["agent_id"] for e in _list(live, a)] == ["ev-iso-a"]
    assert [e["agent_id"] for e in _list(live, b)] == ["ev-iso-b"]
    assert _list(live, a, agent_id="ev-iso-b") == []
    b_event = _list(live, b)[0]["id"]
    assert _list(live, a, after="0") == _list(live, a) and b_event not in {e["id"] for e in _list(live, a)}
    assert sorted(e["agent_id"] for e in _list(live, live.admin)) == ["ev-iso-a", "ev-iso-b"]
    # Resuming from the other agent's event id shows nothing of it either.
    resumed = Subscriber(live, a, want=99, max_seconds=1.5, after="0").start_and_wait().finish(10)
    assert [e["agent_id"] for e in resumed.events()] == ["ev-iso-a"]
