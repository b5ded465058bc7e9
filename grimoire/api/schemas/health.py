"""What GET /health answers (api/routes/health.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from grimoire.graph.health import IndexInfo, Neo4jInfo


class EmbeddingInfo(BaseModel):
    model: str
    dimension: int


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description="`degraded`: serving, with what works less well listed in `degraded`")
    replica: str = Field(description="which of the service's processes answered (also the X-Grimoire-Replica header)")
    degraded: list[str] = Field(default_factory=list, description="what works less well right now, each in a sentence")
    neo4j: Neo4jInfo
    gds_version: str | None
    apoc_version: str | None
    indexes: list[IndexInfo]
    embedding: EmbeddingInfo


class Unavailable(BaseModel):
    """Every 503's body: RFC 9457 problem details (api/errors.py), as every error's, with a Retry-After header."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    instance: str | None = None
    request_id: str | None = None
