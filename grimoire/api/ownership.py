"""Whose a write is: an agent writes only its own items; the admin names the agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from fastapi import HTTPException
from pydantic import BaseModel

from grimoire.graph import agents
from grimoire.graph.agents import Principal
from grimoire.graph.crystals import hormonal_state
from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Invalid

T = TypeVar("T", bound=BaseModel)


def claim(db: Database, who: Principal, items: Sequence[T]) -> tuple[list[T], str, str | None]:
    """The items with their owner filled in, the owner's id and the owner's clade. The network cortisol override
    does not stop an agent's own writes (`guard` says what it halts)."""
    named = {getattr(item, "agent_id", None) for item in items}
    if who.is_admin:
        if len(named) != 1 or None in named:
            raise Invalid("the admin key writes for one agent: give the same agent_id on every item")
        owner = named.pop()
        agent = agents.get(db, owner)  # type: ignore[arg-type]
        if agent is None:
            raise Invalid(f"no agent {owner!r}: register it first (POST /agents)")
        clade = agent.clade
    else:
        assert who.agent_id is not None
        others = {n for n in named if n is not None and n != who.agent_id}
        if others:
            raise HTTPException(403, f"this key writes only for agent {who.agent_id!r}, not {sorted(others)}")
        owner, clade = who.agent_id, who.clade
    return [item.model_copy(update={"agent_id": owner}) for item in items], owner, clade  # type: ignore[return-value]


def guard(db: Database, who: Principal) -> None:
    """What the network cortisol override halts (knowledge-crystals.md: "haltUntrustedIngestion ... reject skills
    from peers whose trust level is below trusted"): skill ingestion — a skill crystallized, a skill's or frozen
    crystal's new version, a crystal forked in from another agent — by an agent below the trusted level (a 409);
    the admin's never. An agent's own episodes, entries, memories and a sub-agent's proposals go on."""
    if not who.is_admin:
        hormonal_state.guard_ingestion(db, {"id": who.agent_id, "kind": who.kind, "trust_level": who.trust_level})
