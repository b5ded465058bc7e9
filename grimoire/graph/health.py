"""What /health reports: versions of Neo4j, GDS and APOC, index states, the embedding model."""

from __future__ import annotations

from typing import Any

from neo4j.exceptions import ClientError
from pydantic import BaseModel

from grimoire.graph.db.connection import Database


class Neo4jInfo(BaseModel):
    version: str | None
    edition: str | None
    uri: str
    database: str


class IndexInfo(BaseModel):
    name: str
    type: str
    state: str
    population_percent: float


class ServerInfo(BaseModel):
    """What the server says of itself: /health's answer less the service's own fields (api/schemas/health.py)."""

    neo4j: Neo4jInfo
    gds_version: str | None
    apoc_version: str | None
    indexes: list[IndexInfo]


def _optional_version(db: Database, name: str) -> str | None:
    """GDS or APOC may be absent on a user's own server (Aura without GDS); say so, don't fail."""
    try:
        rows = db.run(name)
    except ClientError:
        return None
    return rows[0]["version"] if rows else None


def server_info(db: Database) -> ServerInfo:
    kernel = next((r for r in db.fetch("health/components") if r["name"] == "Neo4j Kernel"), None)
    indexes = db.fetch("schema/show_indexes")
    return ServerInfo(
        neo4j=Neo4jInfo(version=kernel and kernel["version"], edition=kernel and kernel["edition"],
                        uri=db.target.uri, database=db.name),
        gds_version=_optional_version(db, "health/gds_version"),
        apoc_version=_optional_version(db, "health/apoc_version"),
        indexes=[IndexInfo(name=r["name"], type=r["type"], state=r["state"],
                           population_percent=r["populationPercent"]) for r in indexes],
    )


def degraded(indexes: list[IndexInfo], rebuilding: frozenset[str], jobs: list[Any],
             scheduler_expected: bool, scheduler_running: bool) -> list[str]:
    """What works less well than it should right now, each in a sentence a person can act on (empty: nothing).
    `jobs` are the scheduler's JobStates (graph/scheduler.py)."""
    reasons: list[str] = []
    for ix in indexes:
        if ix.state != "ONLINE":
            reasons.append(f"index {ix.name} is {ix.state.lower()} ({ix.population_percent:.0f}%)"
                           + (": exact search answers meanwhile" if ix.type == "VECTOR" else ""))
    for name in sorted(rebuilding - {ix.name for ix in indexes if ix.state != "ONLINE"}):
        reasons.append(f"vector index {name} is being rebuilt: exact search answers meanwhile")
    if scheduler_expected and not scheduler_running:
        reasons.append("the scheduler is not running on this replica: its periodic jobs run on the others only")
    for job in jobs:
        if job.last_error:  # the error itself only to the admin (GET /scheduler/jobs): /health asks for no key
            reasons.append(f"job {job.name} failed on its last run (its error: GET /scheduler/jobs)")
    return reasons
