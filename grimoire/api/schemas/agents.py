"""What the agents and keys routes answer (api/routes/agents.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from grimoire.graph.model.enums import AgentKind, KeyScope


class AgentOut(BaseModel):
    """An agent as stored. Open: an import (POST /agents/import) restores an agent's properties as
    exported, which may be more than these."""

    model_config = ConfigDict(extra="allow")

    id: str
    name: str | None = None
    kind: AgentKind | None = None
    clade: str | None = None
    generation: int | None = None
    parent_id: str | None = None
    created_at: int | None = None
    audit_id: str | None = None
    retrievals: int | None = None  # retrievals for a decision so far (contrarian injection counts them)


class Me(BaseModel):
    key_id: str
    scopes: list[KeyScope]
    admin: bool
    agent: AgentOut | None


class KeyOut(BaseModel):
    key: str | None = None  # present once, when the key is made
    id: str
    agent_id: str
    scopes: list[str]
    created_at: int
    revoked_at: int | None = None
    label: str | None = None


class RevokedKey(BaseModel):
    id: str
    agent_id: str
    revoked_at: int


class Imported(BaseModel):
    agent_id: str
    nodes: int
    relationships: int
    audit_ids: list[str]
    relationships_skipped: int
