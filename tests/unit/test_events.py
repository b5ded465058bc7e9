"""Events without a database: ids, frames, and the stream's polling rules over an in-memory store
(late commits, resume, keep-alive, an end)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest

from grimoire.graph.events import Event, EventType, event_id, format_comment, format_event, id_ms, lowest_id
from grimoire.graph.events import stream as stream_module
from grimoire.graph.events.model import EventOut
from grimoire.graph.events.store import rows
from grimoire.graph.ids import now_ms
from grimoire.graph.visibility import EVERYONE


def test_event_ids_are_uuid7s_that_only_grow() -> None:
    at = now_ms()
    ids = [event_id(at) for _ in range(2_000)]  # one millisecond: the random bits count up
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(uuid.UUID(i).version == 7 and uuid.UUID(i).variant == uuid.RFC_4122 for i in ids)
    assert id_ms(ids[0]) == at
    assert event_id(at - 60_000) > ids[-1]  # a clock that steps back does not reorder them


def test_lowest_id_splits_ids_by_time() -> None:
    at = now_ms()
    assert lowest_id(at - 1) < event_id(at - 1) < lowest_id(at) < event_id() < lowest_id(now_ms() + 1_000)


def test_an_event_stores_its_payload_as_json() -> None:
    e = Event(EventType.GrimoireWrite, "golem-1", "clade-a", {"entry_type": "entry", "confidence": 0.5})
    assert uuid.UUID(e.id).version == 7 and abs(e.at - now_ms()) < 1_000
    [row] = rows([e])
    assert row == {"id": e.id, "type": "GrimoireWrite", "agent_id": "golem-1", "clade": "clade-a", "at": e.at,
                   "payload": '{"confidence": 0.5, "entry_type": "entry"}'}


def test_frames() -> None:
    event = EventOut(id="0190-a", type=EventType.IngestResult, agent_id="a", at=0, payload='{"stage": "import"}')
    assert format_event(event) == (
        'id: 0190-a\nevent: IngestResult\ndata: {"agent_id":"a","at":"1970-01-01T00:00:00+00:00","clade":null,'
        '"id":"0190-a","payload":{"stage":"import"},"recorded_at":null,"type":"IngestResult"}\n\n')
    assert format_event(event, "0190-b").startswith("id: 0190-b\n")
    assert format_event(event, "x\ny").split("\n")[0] == "id: x y"  # one line per field
    assert EventOut(id="b", type=EventType.GrimoireWrite, at=0, payload=None).payload == {}  # none stored
    assert format_comment("keep-alive") == ": keep-alive\n\n"
    assert format_comment("two\nlines") == ": two\n: lines\n\n"


class FakeStore:
    """The events committed so far, as list_events reads them."""

    def __init__(self) -> None:
        self.events: list[EventOut] = []
        self.polls = 0

    def add(self, type_: EventType = EventType.GrimoireWrite, agent_id: str = "a", id_: str | None = None) -> str:
        e = EventOut(id=id_ or event_id(), type=type_, agent_id=agent_id, at=now_ms())
        self.events.append(e)
        return e.id

    def list_events(self, db: Any, visibility: Any, *, types: Any = None, agent_id: str | None = None,
                    since: int | None = None, until: int | None = None, after_id: str | None = None,
                    limit: int = 100) -> list[EventOut]:
        self.polls += 1
        found = sorted((e for e in self.events if e.id > (after_id or "")
                        and (not types or e.type in types) and (agent_id is None or e.agent_id == agent_id)),
                       key=lambda e: e.id)
        return found[:limit]


def _frames(text: str) -> list[dict[str, str]]:
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
                      and ": " in line)
        if "data" in fields:
            out.append(fields)
    return out


async def _collect(store: FakeStore, during: list[tuple[float, Any]], **kwargs: Any) -> str:
    """Run a stream while `during`'s actions happen at their times (seconds); return what it sent."""
    chunks: list[str] = []

    async def consume() -> None:
        async for frame in stream_module.subscribe(None, EVERYONE, poll_seconds=0.02, **kwargs):  # type: ignore[arg-type]
            chunks.append(frame)

    async def act() -> None:
        for delay, action in during:
            await asyncio.sleep(delay)
            action()

    await asyncio.gather(consume(), act())
    return "".join(chunks)


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> FakeStore:
    fake = FakeStore()
    monkeypatch.setattr(stream_module, "list_events", fake.list_events)
    return fake


def test_a_stream_sends_what_is_made_while_subscribed_in_order(store: FakeStore) -> None:
    store.add()  # before the subscription (a millisecond earlier at least): not sent
    time.sleep(0.002)
    made: list[str] = []
    text = asyncio.run(_collect(store, [(0.05, lambda: made.append(store.add())),
                                        (0.05, lambda: made.extend([store.add(), store.add()]))], max_seconds=0.3))
    assert text.startswith("retry: 2000\n: subscribed\n\n")
    frames = _frames(text)
    assert [f["id"] for f in frames] == made and [json.loads(f["data"])["id"] for f in frames] == made
    assert all(f["event"] == "GrimoireWrite" for f in frames)


def test_a_late_commit_is_sent_once_and_a_resume_repeats_nothing(store: FakeStore) -> None:
    made: list[str] = []  # the first made first, committed after the second

    def make_two() -> None:
        made.append(event_id())
        made.append(store.add())

    text = asyncio.run(_collect(store, [(0.05, make_two), (0.1, lambda: store.add(id_=made[0]))], max_seconds=0.4))
    frames = _frames(text)
    assert made[0] < made[1] and [json.loads(f["data"])["id"] for f in frames] == [made[1], made[0]]
    assert [f["id"] for f in frames] == [made[1], made[1]]  # resume after the greatest id sent
    # Resuming after that id sends what came after it, and nothing sent before.
    newer: list[str] = []
    text = asyncio.run(_collect(store, [(0.05, lambda: newer.append(store.add()))], max_seconds=0.2,
                                after_id=frames[-1]["id"]))
    assert [json.loads(f["data"])["id"] for f in _frames(text)] == newer


def test_a_resume_catches_up_in_pages(store: FakeStore) -> None:
    ids = [store.add() for _ in range(25)]
    text = asyncio.run(_collect(store, [], max_seconds=0.05, after_id=ids[4], batch=10))
    assert [f["id"] for f in _frames(text)] == ids[5:]


def test_filters_pass_through_and_since_replays(store: FakeStore) -> None:
    a = store.add(EventType.IngestResult, "a")
    store.add(EventType.GrimoireWrite, "a")
    store.add(EventType.IngestResult, "b")
    text = asyncio.run(_collect(store, [], max_seconds=0.05, since=0, types=[EventType.IngestResult], agent_id="a"))
    assert [f["id"] for f in _frames(text)] == [a]


def test_keep_alive_and_end(store: FakeStore) -> None:
    text = asyncio.run(_collect(store, [], max_seconds=0.2, keepalive_seconds=0.05))
    assert text.count(": keep-alive\n\n") >= 2 and not _frames(text)
    # `until` in the past (beyond the grace period): one poll, then the end, without max_seconds.
    before = store.polls
    asyncio.run(_collect(store, [], until=now_ms() - 60_000))
    assert store.polls == before + 1
