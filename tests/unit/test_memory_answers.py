"""Agent memory's and proposals' answers typed (issue 38 §1), without a database: the OpenAPI document says what
the memory, recall, reflection and proposal routes return, and the models keep the answers' JSON as it was (a
memory shows the properties it has, no null for those it lacks; never its embedding)."""

from __future__ import annotations

from typing import Any

from grimoire.api.app import create_app
from grimoire.graph.memory.proposals import Proposal
from grimoire.graph.memory.recall import RecallAnswer
from grimoire.graph.memory.reflection_format import Reflection
from grimoire.graph.memory.stores import StoredMemory, as_memory
from grimoire.graph.settings import Settings

NOW = 1_770_000_000_000
STORED = {"id": "m1", "agent_id": "a", "store": "semantic", "text": "Alex prefers tea", "base_relevance": 1.0,
          "access_count": 1, "last_accessed_at": NOW, "valid_from": NOW, "embedding": None,
          "hormone_dopamine": 0.1}  # a crystal field the engines keep: carried as stored


def _schema(path: str, method: str) -> dict[str, Any]:
    doc = create_app(Settings()).openapi()
    content = doc["paths"][path][method]["responses"]
    ok = content.get("200") or content["201"]
    return dict(ok["content"]["application/json"]["schema"])


def _names(schema: dict[str, Any]) -> str:
    return str(schema.get("$ref") or schema.get("items", {}).get("$ref"))


def test_the_routes_name_their_models() -> None:
    a = "/agents/{agent_id}"
    assert _names(_schema(f"{a}/memories", "get")).endswith("/Memory")
    assert _names(_schema(f"{a}/memories/{{memory_id}}", "get")).endswith("/Memory")
    assert _names(_schema(f"{a}/recall", "get")).endswith("/RecallAnswer")
    assert _names(_schema(f"{a}/reflections", "get")).endswith("/Reflection")
    assert _names(_schema(f"{a}/reflections/{{reflection_id}}/decision", "post")).endswith("/Reflection")
    assert _names(_schema(f"{a}/proposals", "get")).endswith("/Proposal")
    assert _names(_schema(f"{a}/forget/preview", "post")).endswith("/ForgetPreview")


def test_a_memory_shows_what_it_has_and_never_its_embedding() -> None:
    memory = as_memory(StoredMemory.model_validate(STORED), NOW, entities=[])
    shown = memory.model_dump(exclude_unset=True)
    assert "embedding" not in shown and "said" not in shown and "archived_at" not in shown
    assert shown["hormone_dopamine"] == 0.1 and shown["entities"] == []
    assert shown["relevance"] == {"score": 1.0, "status": "active", "raw": 1.2, "days_since_access": 0.0}


def test_a_recall_keeps_the_relations_from_key() -> None:
    answer = RecallAnswer.model_validate({
        "query": "alex", "query_type": "entity", "strategy": "entity", "explicit": False, "results": [],
        "context": None, "entities": [{"entity": {"id": "person--alex", "name": "Alex"}, "score": 2.0, "around": [
            {"id": "tool--tea", "depth": 1, "relations": [{"from": "person--alex", "relation": "prefers",
                                                          "to": "tool--tea"}]}]}]})
    hop = answer.model_dump(by_alias=True)["entities"][0]["around"][0]["relations"][0]
    assert hop == {"from": "person--alex", "relation": "prefers", "to": "tool--tea"}


def test_a_reflection_reads_its_stored_json_and_a_decision_says_what_was_skipped() -> None:
    stored = {"id": "r1", "agent_id": "a", "number": 1, "status": "partial", "trigger": "manual", "markdown": "# R",
              "items": [{"id": "f1-1", "kind": "fact", "line": "A fact", "data": {"relations": []}}],
              "evolution": {}, "tokens_used": 10, "budget": 8000, "valid_from": NOW, "recorded_at": NOW,
              "changes": None, "skipped": {"f1-1": "archived or gone"}}
    r = Reflection.model_validate(stored)
    assert r.evolution is None and r.items[0].kind.value == "fact"
    assert r.model_dump(exclude_unset=True)["skipped"] == {"f1-1": "archived or gone"}


def test_a_proposal_refuses_an_unknown_status() -> None:
    base = {"id": "p1", "agent_id": "a", "number": 1, "from_agent": "s", "at": NOW, "trigger": "explicit",
            "store": "semantic", "content": "x", "confidence": "high"}
    assert Proposal.model_validate({**base, "status": "pending"}).status.value == "pending"
    try:
        Proposal.model_validate({**base, "status": "lost"})
    except ValueError:
        return
    raise AssertionError("an unknown status passed")
