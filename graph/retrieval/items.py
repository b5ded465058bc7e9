"""What retrieval knows of a candidate: built from the properties every backend query returns
with its rows (so no second round trip for the rerank), or fetched by id when a candidate came
without them (replay, contrarian). Embeddings are fetched apart, only for the few items that need
one (MMR's head, the four-factor and Generative Agents relevance): reading and shipping 384 floats
per candidate was the largest cost of a retrieval in the database."""

from __future__ import annotations

from typing import Any

from graph.db.connection import Database


def from_row(row: dict[str, Any]) -> dict[str, Any]:
    """A backend row (id, kind, item: the node's properties) as the rerank reads it."""
    p = row["item"]
    return {
        "id": row["id"], "kind": row["kind"], "text": p.get("content") or p.get("text"),
        "category": p.get("category"), "status": p.get("status"), "agent_id": p.get("agent_id"),
        "valid_from": p.get("valid_from"), "recorded_at": p.get("recorded_at"), "block": p.get("block"),
        "last_accessed_at": p.get("last_accessed_at"), "confidence": p.get("confidence"),
        "half_life_ms": p.get("half_life_ms"), "strength": p.get("strength"),
        "quality_score": p.get("quality_score"), "importance": p.get("importance"),
        "regime": p.get("regime") or p.get("market_regime"), "pad": p.get("pad"),
        "is_bloodstain": bool(p.get("is_bloodstain")), "gain": p.get("gain"),
    }


def fetch(db: Database, ids: list[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    return {r["id"]: from_row(r) for r in db.rows("retrieval/items", ids=ids)}


def embeddings(db: Database, ids: list[str]) -> dict[str, list[float]]:
    return {r["id"]: r["embedding"] for r in db.rows("retrieval/embeddings", ids=ids)} if ids else {}


def with_embeddings(db: Database, items: list[dict[str, Any]]) -> None:
    """Sets each item's `embedding`, fetched in one round trip for those that lack one."""
    found = embeddings(db, [it["id"] for it in items if it.get("embedding") is None])
    for it in items:
        if it["id"] in found:
            it["embedding"] = found[it["id"]]
