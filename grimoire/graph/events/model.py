"""The event vocabulary, and event ids: UUIDv7s that only grow within this process, so that the
events one transaction writes (and those of successive transactions) are ordered by id as they were
made; a subscriber resumes after the last id it saw (graph/events/stream.py)."""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.common import StoredTime
from grimoire.graph.model.rows import Row


class EventType(StrEnum):
    GrimoireWrite = "GrimoireWrite"                # entries or episodes written
    GrimoireDecay = "GrimoireDecay"                # a decay pass: counts, average confidence before and after
    CuratorCycleComplete = "CuratorCycleComplete"  # a Curator cycle ended: pruned, promoted, proposed counts
    IngestResult = "IngestResult"                  # an import or an inheritance: source, stage, outcome
    # the Context Governor's (context-governor.md S6)
    ContextAssembled = "context:assembled"            # a workspace built: tick, category_count, total_tokens, route
    ContextPolicyUpdated = "context:policy_updated"   # a policy revision by a loop: revision, trigger, delta
    ContextRegimeOverride = "context:regime_override"  # the regime changed: previous, new, allocations_applied
    ContextFeedbackLoop = "context:feedback_loop"     # a loop iteration: loop_id, tick, record_count, adjustments
    ContextCompacted = "context:compacted"            # compaction: original_tokens, compacted_tokens, categories


_RAND_BITS = 74  # 12 bits of rand_a and 62 of rand_b
_RAND_B_BITS = 62
_lock = threading.Lock()
_last: tuple[int, int] = (0, -1)  # (milliseconds, random bits) of the last id made here


def _parts(value: int) -> tuple[int, int]:
    ms = value >> 80
    rand_a = (value >> 64) & 0xFFF
    rand_b = value & ((1 << _RAND_B_BITS) - 1)
    return ms, (rand_a << _RAND_B_BITS) | rand_b


def _compose(ms: int, rand: int) -> str:
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= (rand >> _RAND_B_BITS) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << _RAND_B_BITS) - 1)
    return str(uuid.UUID(int=value))


def event_id(at_ms: int | None = None) -> str:
    """A UUIDv7 (graph.ids.uuid7) greater than every event id this process made before: within one
    millisecond, the random bits count up from the last id (RFC 9562, method 2)."""
    global _last
    ms, rand = _parts(uuid.UUID(uuid7(at_ms)).int)
    with _lock:
        if (ms, rand) <= _last:
            ms, rand = _last[0], _last[1] + 1
            if rand >> _RAND_BITS:
                ms, rand = ms + 1, 0
        _last = (ms, rand)
    return _compose(ms, rand)


def id_ms(event_id_: str) -> int:
    """The milliseconds a UUIDv7 carries (its first 48 bits)."""
    return uuid.UUID(event_id_).int >> 80


def lowest_id(at_ms: int) -> str:
    """A string below every UUIDv7 of `at_ms` and later, above every earlier one: ids compare as strings
    (lower-case hex, fixed length), so `id > lowest_id(t)` starts a scan at time t."""
    return str(uuid.UUID(int=max(0, at_ms) << 80))


@dataclass(frozen=True)
class Event:
    """One event. `id` is an event id made when the event is (wall-clock time, whatever `at` says: a
    subscriber's place in the stream is an id); `at` is when it happened (epoch ms, by default now);
    `payload` is stored as a JSON string."""

    type: EventType
    agent_id: str | None
    clade: str | None
    payload: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=event_id)
    at: int = field(default_factory=now_ms)


def entry_written(entry_id: str, props: dict[str, Any]) -> Event:
    """GrimoireWrite for one entry created, from the properties it was written with."""
    return Event(EventType.GrimoireWrite, props.get("agent_id"), props.get("clade"), {
        "entry_type": "entry", "category": props.get("category"), "confidence": props.get("confidence"),
        "source": props.get("provenance"), "entry_id": entry_id})


def episodes_written(agent_id: str | None, clade: str | None, count: int, source: str = "ingest") -> Event:
    """GrimoireWrite for `count` episodes of one agent written in one transaction."""
    return Event(EventType.GrimoireWrite, agent_id, clade,
                 {"entry_type": "episode", "count": count, "category": None, "source": source})


def ingest_result(agent_id: str | None, clade: str | None, *, source: str, stage: str,
                  outcome: dict[str, Any]) -> Event:
    """IngestResult: what an import or an inheritance (`stage`) from `source` wrote (`outcome`: counts)."""
    return Event(EventType.IngestResult, agent_id, clade, {"source": source, "stage": stage, "outcome": outcome})


def _payload(value: object) -> object:
    """A stored payload is one JSON string (a map property cannot nest); none is an empty one."""
    if value is None or value == "":
        return {}
    return json.loads(value) if isinstance(value, str) else value


class EventOut(Row):
    """One event (graph/events/): what happened to an agent's memory, times in ISO 8601. The stream
    (GET /events/stream) sends the same object as each frame's `data:`. The row of cypher/events/list.cypher."""

    query = "events/list"

    id: str = Field(description="a time-ordered UUIDv7: page on, or resume a stream, after it")
    type: EventType
    agent_id: str | None = None
    clade: str | None = None
    at: StoredTime = Field(description="when it happened")
    recorded_at: StoredTime | None = Field(default=None, description="when it was stored")
    payload: Annotated[dict[str, Any], BeforeValidator(_payload)] = Field(default_factory=dict, description=(
        "GrimoireWrite: entry_type (entry|episode), category, confidence, source, entry_id or count; "
        "GrimoireDecay: counts and average confidence before and after; CuratorCycleComplete: pruned, "
        "promoted and proposed counts; IngestResult: source, stage, outcome"))
