"""What the agents and keys routes answer (api/routes/agents.py); an agent and a key as stored are declared
beside them (graph/agents.py)."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.agents import AgentOut, KeyOut, RevokedKey
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.transfer import Imported

__all__ = ["AgentOut", "Imported", "KeyOut", "Me", "RevokedKey"]


class Me(BaseModel):
    key_id: str
    scopes: list[KeyScope]
    admin: bool
    agent: AgentOut | None
