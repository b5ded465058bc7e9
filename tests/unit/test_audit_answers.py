"""The audit routes say what they answer (issue 38 §1): each declares its model in the OpenAPI document, and the
models read what the database stores (a record's redaction stamps and a version's state, both stored as JSON)."""

from __future__ import annotations

import json

import pytest

from grimoire.api.app import create_app
from grimoire.graph.audit.trail import KeyedRecord, Stamp, shaped
from grimoire.graph.audit.versions import ItemVersion
from grimoire.graph.settings import Settings

ANSWERS = {
    ("get", "/agents/{agent_id}/audit"): "TrailRecord",
    ("get", "/audit"): "TrailRecord",
    ("get", "/agents/{agent_id}/audit/reflections/{reflection_id}"): "TrailRecord",
    ("get", "/agents/{agent_id}/audit/forgotten"): "Forgotten",
    ("get", "/agents/{agent_id}/audit/items/{item_id}"): "ItemChanges",
    ("get", "/agents/{agent_id}/audit/critical"): "CriticalChanges",
    ("get", "/agents/{agent_id}/audit/digests"): "AuditDigest",
    ("get", "/audit/digests"): "AuditDigest",
    ("post", "/agents/{agent_id}/sessions"): "SessionStart",
    ("post", "/agents/{agent_id}/sessions/end"): "SessionEnded",
    ("get", "/agents/{agent_id}/alerts"): "AlertRecord",
    ("post", "/agents/{agent_id}/alerts/{alert_id}/acknowledge"): "AlertRecord",
    ("get", "/agents/{agent_id}/versions/{item_id}"): "ItemHistory",
    ("post", "/agents/{agent_id}/rollback"): "RollbackDone",
}


@pytest.fixture(scope="module")
def spec() -> dict[str, object]:
    return create_app(Settings()).openapi()


@pytest.mark.parametrize(("method", "path"), list(ANSWERS))
def test_each_audit_route_names_its_answer(spec: dict, method: str, path: str) -> None:
    answer = json.dumps(spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"])
    assert f"#/components/schemas/{ANSWERS[(method, path)]}" in answer


def test_a_trail_record_says_its_fields(spec: dict) -> None:
    fields = spec["components"]["schemas"]["TrailRecord"]["properties"]
    assert {"id", "at", "verb", "tag", "approval", "target_ids", "critical", "line", "redaction"} <= set(fields)


def _stored(**record: object) -> KeyedRecord:
    base = {"id": "r1", "at": 1_767_225_600_000, "actor": "key-1", "agent_id": "a", "action": "memory.archive",
            "verb": None, "tag": None, "trigger": None, "approval": None, "target_ids": ["mem-1"], "summary": "x",
            "before_versions": None, "after_versions": None, "reverted_by": None, "channel": "rest",
            "redaction": None}
    return KeyedRecord.model_validate({"record": {**base, **record}, "key_agent": "a", "key_scopes": ["person"]})


def test_a_record_reads_its_redaction_stamps_and_says_its_line() -> None:
    stamp = {"redacted": True, "erased_at": "2026-01-01T00:00Z", "erased_by": "key-1", "erasure": "e1",
             "items": ["mem-1"], "sha256": {"mem-1": "ab"}, "fields": ["summary"]}
    out = shaped(_stored(redaction=json.dumps([stamp])), critical={"mem-1"})
    assert out.redaction == [Stamp(**stamp)] and out.critical and out.verb == "ARCHIVE" and out.tag == "manual"
    assert out.line.startswith("2026-01-01T00:00Z | ARCHIVE | mem-1 | manual")
    assert shaped(_stored()).redaction is None and not shaped(_stored()).critical


def test_a_record_with_a_key_the_model_does_not_declare_is_refused() -> None:
    with pytest.raises(ValueError, match="extra"):
        _stored(session_id="s1")


def test_a_version_reads_its_state_from_json() -> None:
    v = ItemVersion.model_validate({"id": "mem-1:v1", "n": 1, "state": json.dumps({"text": "x", "pinned": None})})
    assert v.state == {"text": "x", "pinned": None} and v.block is None
    assert ItemVersion.model_validate({"id": "mem-1:v2", "n": 2, "state": None}).state is None
