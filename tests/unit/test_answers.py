"""Answers built from stored nodes: one time type (epoch ms in, an aware datetime in the model, ISO 8601 on the wire),
no embedding in any answer, and what only an owner may read left out for everyone else."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.testclient import TestClient

from grimoire.api.presentation import for_viewer
from grimoire.graph.events.model import EventOut, EventType
from grimoire.graph.knowledge.answers import EntryOut, EntryRow, EntryVersionOut
from grimoire.graph.model.common import LATEST
from grimoire.graph.model.episode import EpisodeOut
from grimoire.graph.visibility import Visibility

MS = 1_700_000_000_123


def test_a_stored_time_is_an_aware_datetime_and_iso_on_the_wire() -> None:
    e = EntryOut.model_validate({"id": "e1", "recorded_at": MS, "valid_from": 0})
    assert e.recorded_at == datetime.fromtimestamp(MS / 1000, tz=UTC) and e.recorded_at.tzinfo is UTC
    wire = json.loads(e.model_dump_json(exclude_unset=True))
    assert wire == {"id": "e1", "recorded_at": "2023-11-14T22:13:20.123000+00:00",
                    "valid_from": "1970-01-01T00:00:00+00:00"}
    assert EntryOut.model_validate(wire).recorded_at == e.recorded_at  # the wire reads back as the same time


def test_a_time_beyond_what_a_datetime_holds_is_the_nearest_it_can() -> None:
    far = EpisodeOut.model_validate({"id": "x", "valid_until": 2**62, "valid_from": -2**62})
    assert far.valid_until == LATEST and far.valid_from is not None and far.valid_from.year == 1


def test_the_openapi_schema_says_date_time() -> None:
    schema = EntryOut.model_json_schema(mode="serialization")
    assert {"type": "string", "format": "date-time"} in schema["properties"]["recorded_at"]["anyOf"]


def test_no_answer_carries_an_embedding() -> None:
    e = EpisodeOut.model_validate({"id": "x", "embedding": [0.1] * 4, "embedding_semantic": [0.2], "extra": 1})
    assert e.model_dump(exclude_unset=True) == {"id": "x", "extra": 1}
    row = EntryRow.model_validate({"entry": {"id": "e", "embedding": [0.3]}, "effective_confidence": 0.5,
                                   "parent_episode_ids": ["p"], "decision_ids": []})
    assert row.answer().model_dump(exclude_unset=True) == {"id": "e", "effective_confidence": 0.5,
                                                          "parent_episode_ids": ["p"], "decision_ids": []}


def test_only_the_owner_reads_what_only_an_owner_may() -> None:
    e = EntryOut.model_validate({"id": "e", "agent_id": "a", "source_owner_address": "0xabc", "recorded_at": MS})
    owner, other = Visibility.of("a", None), Visibility.of("b", None)
    assert for_viewer(e, owner) is e
    hidden = for_viewer(e, other)
    assert "source_owner_address" not in hidden.model_dump(exclude_unset=True)
    assert hidden.recorded_at == e.recorded_at and hidden.model_fields_set == {"id", "agent_id", "recorded_at"}
    assert "source_owner_address" not in for_viewer(e, None).model_dump(exclude_unset=True)  # no caller: nobody's


def test_an_event_answers_as_the_route_and_the_stream_send_it() -> None:
    app = FastAPI()
    event = EventOut(id="0190-a", type=EventType.GrimoireWrite, agent_id="a", at=MS, recorded_at=MS + 1,
                     payload='{"count": 2}')

    @app.get("/e", response_model=list[EventOut])
    def one() -> list[EventOut]:
        return [event]

    [got] = TestClient(app).get("/e").json()
    assert got == json.loads(json.dumps(event.model_dump(mode="json")))
    assert got["at"] == "2023-11-14T22:13:20.123000+00:00" and got["payload"] == {"count": 2}


def test_a_versions_kept_state_hides_what_only_the_owner_may_read() -> None:
    state = json.dumps({"content": "c", "source_owner_address": "0xabc", "agent_id": "a"})
    v = EntryVersionOut.model_validate({"id": "v1", "entry_id": "e", "revision": 1, "content": "c", "state": state})
    shown = for_viewer(v, Visibility.of("b", None), owner="a").model_dump(exclude_unset=True)
    assert json.loads(shown["state"]) == {"content": "c", "agent_id": "a"}
    assert for_viewer(v, Visibility.of("a", None), owner="a") is v  # the owner reads it whole


def test_an_entry_without_a_confidence_reads_as_null_not_an_error() -> None:
    row = EntryRow.model_validate({"entry": {"id": "imported"}, "effective_confidence": None,
                                   "parent_episode_ids": [], "decision_ids": []})
    assert row.answer().effective_confidence is None
