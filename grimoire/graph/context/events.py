"""The Governor's events (context-governor.md S6), written through the event store in the transaction of what
they report, so the stream and the listing (GET /events) carry them as they carry the Grimoire's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grimoire.graph.events.model import Event, EventType


def assembled(agent_id: str, clade: str | None, *, assembly_id: str, tick: int | None, category_count: int,
              total_tokens: int, route: str, source: str, revision: int) -> Event:
    return Event(EventType.ContextAssembled, agent_id, clade, {
        "tick": tick, "category_count": category_count, "total_tokens": total_tokens, "route": route,
        "assembly_id": assembly_id, "source": source, "policy_revision": revision})


def compacted(agent_id: str, clade: str | None, *, assembly_id: str, report: Mapping[str, Any]) -> Event:
    return Event(EventType.ContextCompacted, agent_id, clade, {"assembly_id": assembly_id, **report})


def regime_override(agent_id: str, clade: str | None, *, previous: str | None, new: str | None,
                    applied: Mapping[str, float]) -> Event:
    return Event(EventType.ContextRegimeOverride, agent_id, clade, {
        "previous_regime": previous, "new_regime": new, "allocations_applied": dict(applied)})


def policy_updated(agent_id: str, clade: str | None, *, revision: int, trigger: str,
                   delta: Mapping[str, float]) -> Event:
    return Event(EventType.ContextPolicyUpdated, agent_id, clade, {
        "revision": revision, "trigger": trigger, "delta": dict(delta)})


def feedback_loop(agent_id: str, clade: str | None, *, loop_id: int, tick: int | None, record_count: int,
                  adjustments: Mapping[str, Any]) -> Event:
    return Event(EventType.ContextFeedbackLoop, agent_id, clade, {
        "loop_id": loop_id, "tick": tick, "record_count": record_count, "adjustments": dict(adjustments)})
