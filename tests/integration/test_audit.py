"""The audit trail holds typed revert operations that name what each mutation did (driven through the
API against the real database), parse_revert refuses anything else, and a retrieval for a decision
writes to the access log, not to the audit trail."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from grimoire.graph.audit import (
    BadRevert,
    DeleteNodes,
    DeleteRelationships,
    Endpoints,
    MergeUndo,
    NodeLabel,
    Noop,
    RelationshipType,
    RemoveProperties,
    RestoreKey,
    RevertAdmission,
    RevokeKey,
    SetProperties,
    SetRelationshipProperties,
    dump_revert,
    parse_revert,
)
from tests.conftest import counts

GAS = "Gas on Ethereum mainnet drops below 10 gwei between 2 and 4 AM UTC"
GAS_PARAPHRASE = "Gas on Ethereum drops below 10 gwei from 2 to 4 AM UTC"  # cosine 0.909 to GAS: merged
FUNDING = "Perpetual funding turned negative on every major venue after the liquidation cascade"
RESERVE, FEED_1, FEED_2 = "reserve:audit usdc", "oracle:audit feed one", "oracle:audit feed two"
NDJSON = {"content-type": "application/x-ndjson"}


def _records(db, action: str) -> list[dict]:
    """The audit records of one action, oldest first, each with its revert operations parsed."""
    return [{**r, "ops": parse_revert(r["revert"])} for r in db.run("testing/audit_records") if r["action"] == action]


def _last(db, action: str) -> list:
    records = _records(db, action)
    assert records, f"no {action} record"
    return records[-1]["ops"]


def test_agents_and_keys(api, db) -> None:
    h = api.headers("audit-1", "clade-a")
    assert _last(db, "agent.register") == [DeleteNodes(label=NodeLabel.Agent, ids=["audit-1"])]
    made = _records(db, "key.create")[-1]
    key_id = made["target_ids"][0]
    assert made["ops"] == [RevokeKey(key_id=key_id)]  # undoing a new key revokes it
    assert api.client.delete(f"/keys/{key_id}", headers=api.admin).status_code == 200
    assert _last(db, "key.revoke") == [RestoreKey(key_id=key_id)]  # undoing a revocation restores the key
    assert api.client.get("/entries", headers=h).status_code == 401
    # Revoking a revoked key changes nothing, and its undoing restores nothing.
    assert api.client.delete(f"/keys/{key_id}", headers=api.admin).status_code == 200
    [again] = _records(db, "key.revoke")[1:]
    assert len(again["ops"]) == 1 and isinstance(again["ops"][0], Noop)


def test_episodes_entries_votes_and_outcomes(api, db) -> None:
    h = api.headers("audit-2", "clade-a")
    eps = [{"id": f"a-ep-{i}", "type": "observation", "text": f"Gas at {3 + i} gwei at 0{2 + i}:30 UTC"}
           for i in range(2)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    assert _last(db, "episode.ingest") == [DeleteNodes(label=NodeLabel.Episode, ids=["a-ep-0", "a-ep-1"])]
    # Sent again with one new episode: only the new one is to delete.
    eps.append({"id": "a-ep-2", "type": "observation", "text": "Gas at 9 gwei at 05:30 UTC"})
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    assert _last(db, "episode.ingest") == [DeleteNodes(label=NodeLabel.Episode, ids=["a-ep-2"])]

    first = api.client.post("/entries", headers=h, json={"id": "a-gas", "category": "Insight", "content": GAS,
                                                          "parent_episode_ids": ["a-ep-0"], "tags": ["gas"]})
    assert first.status_code == 201 and first.json()["outcome"] == "admitted", first.text
    assert _last(db, "entry.admit") == [RevertAdmission(decision_ids=[first.json()["decision_id"]],
                                                        created=["a-gas"])]
    # A paraphrase merges into a-gas: the merge's new tag and source episode are what it added.
    merged = api.client.post("/entries", headers=h, json={"id": "a-gas-2", "category": "Insight",
                                                           "content": GAS_PARAPHRASE, "tags": ["gas", "timing"],
                                                           "parent_episode_ids": ["a-ep-0", "a-ep-1"]})
    assert merged.json()["outcome"] == "merged" and merged.json()["entry_id"] == "a-gas", merged.text
    assert _last(db, "entry.admit") == [RevertAdmission(
        decision_ids=[merged.json()["decision_id"]], created=[],
        merged=[MergeUndo(entry_id="a-gas", added_tags=["timing"], added_episodes=["a-ep-1"])])]

    before = api.client.get("/entries/a-gas", headers=h).json()
    assert api.client.post("/entries/a-gas/upvote", headers=h).status_code == 200
    [vote] = _last(db, "entry.upvote")
    assert isinstance(vote, SetProperties) and (vote.label, vote.id) == (NodeLabel.Entry, "a-gas")
    assert vote.before["confidence"] == pytest.approx(before["confidence"])
    assert vote.before["validated_count"] == before["validated_count"] == 1  # the merge counted once
    assert {"confidence", "validated_count", "updated_at"} <= set(vote.before)

    r = api.client.post("/entries/a-gas/outcome", headers=h, json={"used_in_decision": True, "outcome": "positive"})
    assert r.status_code == 200, r.text
    [outcome] = _last(db, "entry.outcome")
    assert isinstance(outcome, SetProperties) and outcome.id == "a-gas" and outcome.before["strength"] == 1.0
    assert outcome.before["validated_count"] == 2  # after the merge and the upvote


def test_causal_links_and_outcomes(api, db) -> None:
    h = api.headers("audit-3", "clade-c")
    for id_, text in (("a-funding", FUNDING), ("a-gas", GAS)):
        assert api.client.post("/entries", headers=h, json={"id": id_, "category": "Insight",
                                                             "content": text}).status_code == 201
    r = api.client.post("/causal/links", headers=h, json={"links": [{"cause": "a-funding", "effect": "a-gas"}]})
    assert r.status_code == 201, r.text
    [link] = r.json()["created"]
    assert _last(db, "causal.link") == [DeleteRelationships(type=RelationshipType.CAUSES, ids=[link])]
    # Linked again: nothing created, nothing to undo.
    api.client.post("/causal/links", headers=h, json={"links": [{"cause": "a-funding", "effect": "a-gas"}]})
    assert _last(db, "causal.link") == []
    r = api.client.post(f"/causal/links/{quote(link)}/outcome", headers=h, json={"confirmed": True})
    assert r.status_code == 200, r.text
    assert _last(db, "causal.outcome") == [SetRelationshipProperties(
        type=RelationshipType.CAUSES, id=link,
        before={"weight": 1.0, "evidence": 1, "confidence": 0.6,  # the counts were not set: undone, they go
                "confirmed_count": None, "contradicted_count": None})]


def test_entities_facts_and_invalidation(api, db) -> None:
    h = api.headers("audit-4", "clade-t")
    ents = [{"kind": "Reserve", "name": "audit USDC"}, {"kind": "Oracle", "name": "audit feed one"},
            {"kind": "Oracle", "name": "audit feed two"}]
    assert api.client.post("/entities", headers=h, json={"entities": ents}).json()["ids"] == [RESERVE, FEED_1, FEED_2]
    assert _last(db, "entity.upsert") == [DeleteNodes(label=NodeLabel.Entity, ids=[RESERVE, FEED_1, FEED_2])]
    # Completing one: an alias more; its previous aliases are what undoes it.
    api.client.post("/entities", headers=h, json={"entities": [{**ents[1], "aliases": ["USDC/USD"]}]})
    [completed] = _last(db, "entity.upsert")
    assert completed == SetProperties(label=NodeLabel.Entity, id=FEED_1, before={"aliases": [], "aliases_text": ""})

    oracle = {"subject": RESERVE, "predicate": "OracleDependency", "scope": "public"}
    r = api.client.post("/facts", headers=h, json={"facts": [{**oracle, "id": "a-f1", "object": FEED_1,
                                                              "valid_from": 100}]})
    assert r.status_code == 201, r.text
    dependency = RelationshipType.ORACLE_DEPENDENCY
    assert _last(db, "fact.assert") == [DeleteRelationships(type=dependency, ids=["a-f1/v1"])]
    # A new oracle closes the old one (exclusive): its version and the closed copy are deleted, the
    # version it expired is believed again.
    r = api.client.post("/facts", headers=h, json={"facts": [{**oracle, "id": "a-f2", "object": FEED_2,
                                                              "valid_from": 200}]})
    assert r.json()["closed"] == 1, r.text
    ops = _last(db, "fact.assert")
    assert len(ops) == 2
    assert ops[0].type == dependency and sorted(ops[0].ids) == ["a-f1/v2", "a-f2/v1"]
    assert ops[1] == SetRelationshipProperties(type=dependency, id="a-f1/v1",
                                               before={"expired_at": None, "superseded_by": None})
    r = api.client.post("/facts/a-f2/invalidate", headers=h, json={"at_block": 300})
    assert r.status_code == 200, r.text
    assert _last(db, "fact.invalidate") == [
        DeleteRelationships(type=dependency, ids=["a-f2/v2"]),
        SetRelationshipProperties(type=dependency, id="a-f2/v1", before={"expired_at": None})]


def test_import(api, db) -> None:
    h = api.headers("audit-5", "clade-i")
    eps = [{"id": f"i-ep-{i}", "type": "observation", "text": f"Swapped {i} WETH",
            "mentions": [{"kind": "Token", "name": "WETH"}]} for i in range(2)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    assert api.client.post("/entries", headers=h, json={"id": "i-gas", "category": "Insight", "content": GAS,
                                                         "parent_episode_ids": ["i-ep-0"]}).status_code == 201
    exported = api.client.get("/agents/audit-5/export", headers=h).text
    nodes = [json.loads(line) for line in exported.splitlines()[1:] if json.loads(line)["record"] == "node"]
    db.run("testing/delete_all")
    assert api.client.post("/agents/import", headers={**api.admin, **NDJSON}, content=exported).status_code == 200
    assert all(isinstance(op, DeleteNodes) for op in _last(db, "agent.import"))
    created = {op.label: sorted(op.ids) for op in _last(db, "agent.import")}
    base = {n["id"]: next(x for x in n["labels"] if x in NodeLabel.__members__) for n in nodes}
    assert created == {NodeLabel(b): sorted(i for i in base if base[i] == b) for b in set(base.values())}
    assert set(created) == {NodeLabel.Agent, NodeLabel.Episode, NodeLabel.Entry, NodeLabel.AdmissionDecision,
                            NodeLabel.Entity}
    # Imported again over a changed entry and a relationship gone: the entry's previous value is kept,
    # the relationship is to delete, nothing is created.
    db.run("testing/set_entry_props", id="i-gas", props={"confidence": 0.9})
    db.run("testing/delete_relationship", type="MENTIONS", start="i-ep-1")
    assert api.client.post("/agents/import", headers={**api.admin, **NDJSON}, content=exported).status_code == 200
    ops = _last(db, "agent.import")
    assert DeleteRelationships(type=RelationshipType.MENTIONS, keys=[
        Endpoints(start_label=NodeLabel.Episode, start_id="i-ep-1", end_ids=["token:weth"])]) in ops
    restored = [op for op in ops if isinstance(op, SetProperties)]
    assert len(restored) == 1 and restored[0].id == "i-gas" and restored[0].before["confidence"] == 0.9
    assert not [op for op in ops if isinstance(op, DeleteNodes)]


def test_every_record_parses(api, db) -> None:
    """Whatever a session of mutations wrote, every record's revert list parses into typed ops."""
    h = api.headers("audit-6", "clade-a")
    api.client.post("/episodes", headers=h, json={"id": "p-ep", "type": "observation", "text": "A note"})
    api.client.post("/entries", headers=h, json={"id": "p-e", "category": "Insight", "content": GAS})
    api.client.post("/entries/p-e/downvote", headers=h)
    records = db.run("testing/audit_records")
    assert len(records) >= 5
    for r in records:
        assert isinstance(parse_revert(r["revert"]), list), r


def test_parse_revert_refuses_what_is_not_a_list_of_known_operations() -> None:
    ops = [DeleteNodes(label=NodeLabel.Entry, ids=["e1"]),
           DeleteRelationships(type=RelationshipType.SCORED,
                               keys=[Endpoints(start_label=NodeLabel.AnalysisRun, start_id="run", end_ids=["e1"])]),
           SetProperties(label=NodeLabel.Entry, id="e1", before={"confidence": 0.5, "validated_count": 1,
                                                                 "dream_validated": None, "tags": [" a "]}),
           SetRelationshipProperties(type=RelationshipType.CAUSES, id="l1", before={"weight": 1.0}),
           RemoveProperties(label=NodeLabel.Entity, ids=["x"], properties=["public", "creators"]),
           RevokeKey(key_id="k1"), RestoreKey(key_id="k1"),
           RevertAdmission(decision_ids=["d1"], created=["e1"], merged=[MergeUndo(entry_id="e0", added_tags=["t"])]),
           Noop(reason="nothing")]
    parsed = parse_revert(dump_revert(ops))
    assert parsed == ops and isinstance(parsed[2].before["validated_count"], int)
    assert parsed[2].before["tags"] == [" a "]  # values kept exactly
    # Operations with nothing to do are left out of the record.
    assert parse_revert(dump_revert([DeleteNodes(label=NodeLabel.Episode, ids=[]), ops[0]])) == [ops[0]]
    for bad in [
        "{not json",
        '{"op": "noop", "reason": "a dict, as records were once"}',
        '[{"op": "drop_database"}]',
        '[{"op": "delete_nodes", "label": "AuditRecord", "ids": ["a"]}]',
        '[{"op": "delete_relationships", "type": "OWNS", "ids": ["a"]}]',
        '[{"op": "delete_nodes", "label": "Entry"}]',
        '[{"op": "set_properties", "label": "Entry", "id": "e", "before": {"a b": 1}}]',
        '[{"op": "set_properties", "label": "Entry", "id": "e", "before": {"x": {"nested": 1}}}]',
        '[{"op": "revoke_key", "key_id": "k", "extra": 1}]',
        '[{"op": "delete_relationships", "type": "CAUSES", "ids": ["a"], '
        '"keys": [{"start_label": "Entry", "start_id": "a", "end_ids": ["b"]}]}]',
    ]:
        with pytest.raises(BadRevert):
            parse_revert(bad)


def test_a_retrieval_writes_an_access_record_not_an_audit_record(api, db) -> None:
    h = api.headers("audit-7", "clade-r")
    texts = ["Curve stETH pool depegged to 0.94 during the unlock", "stETH depeg recovered to 0.99 on Curve",
             "Gas fees fell below 5 gwei over the weekend"]
    eps = [{"id": f"r-ep-{i}", "type": "observation", "text": text} for i, text in enumerate(texts)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    audits = counts(db)["AuditRecord"]
    query = {"text": "stETH depeg on Curve", "k": 3, "no_budget": True}
    plain = api.client.post("/retrieve", headers=h, json=query)
    assert plain.status_code == 200 and counts(db).get("AccessRecord", 0) == 0  # not for a decision: no access
    r = api.client.post("/retrieve", headers=h, json={**query, "for_decision": True})
    assert r.status_code == 200, r.text
    returned = [x["id"] for x in r.json()["results"]]
    assert len(returned) >= 2
    assert counts(db)["AuditRecord"] == audits  # the audit trail is for mutations
    [access] = [row["record"] for row in db.run("testing/access_records")]
    assert access["action"] == "retrieval.for_decision" and access["agent_id"] == "audit-7"
    assert access["ids"] == returned and access["count"] == access["touched"] == len(returned)
    assert access["at"] <= access["recorded_at"]
    for i in returned:
        assert api.client.get(f"/episodes/{i}", headers=h).json()["access_count"] == 1
