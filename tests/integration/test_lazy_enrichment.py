"""Lazy enrichment of episodes (grimoire.md line 1100, iRAG; graph/enrichment.py): an ingest stores the episode
searchable at once and marked pending; the episodes.enrich job writes its mentions and FOLLOWS, idempotently, with
its audit record, and never touches an episode removed while it waited. GRIMOIRE_EPISODE_ENRICHMENT=sync does it
all in the ingest."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from grimoire.graph import enrichment
from grimoire.graph.db.connection import Database
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest, counts

WETH = {"kind": "Token", "name": "WETH lazy", "chain_id": 1, "address": "0x00000000000000000000000000000000000000e1"}


@pytest.fixture
def lazy(api: Api) -> Api:
    """The API with its queue left as it is: episodes stay pending until the test runs the job."""
    api.drain = False
    return api


def _ingest(api: Api, h: dict[str, str], eid: str, text: str, **extra: Any) -> None:
    r = api.client.post("/episodes", headers=h, json={"id": eid, "type": "observation", "text": text, **extra})
    assert r.status_code == 201 and r.json()["created"] == [eid], r.text


def _episode(api: Api, h: dict[str, str], eid: str) -> dict[str, Any]:
    r = api.client.get(f"/episodes/{eid}", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _pending(api: Api, h: dict[str, str], agent: str) -> int:
    r = api.client.get("/stats", headers=h, params={"agent_id": agent})
    assert r.status_code == 200, r.text
    return int(r.json()["episodes_pending_enrichment"])


def _enrich_records(db: Database) -> list[dict[str, Any]]:
    return [dict(r) for r in db.run("testing/audit_versions") if r["action"] == enrichment.ACTION]


def test_a_pending_episode_is_found_by_its_text_at_once_and_enriched_by_the_job(lazy: Api) -> None:
    h = lazy.headers("golem-1")
    _ingest(lazy, h, "lazy-0", "Borrow rate on the zephyrine vault spiked")
    _ingest(lazy, h, "lazy-1", "Zephyrine vault utilisation crossed ninety percent", mentions=[WETH],
            follows="lazy-0")
    # Stored and searchable at once: by its words (full text) and by meaning (its embedding was computed first).
    first = _episode(lazy, h, "lazy-1")
    assert first["enrichment"] == "pending" and first["mentions"] == [], first
    assert "pending_mentions" not in first and "pending_follows" not in first  # the job's, not the answer's
    for mode in ("fulltext", "vector"):
        hits = lazy.client.post("/search", headers=h, json={"text": "zephyrine vault utilisation", "mode": mode})
        assert hits.status_code == 200, hits.text
        assert "lazy-1" in [x["id"] for x in hits.json()], (mode, hits.json())
    assert _pending(lazy, h, "golem-1") == 2
    assert lazy.client.get("/entities/resolve", headers=h, params={"q": "WETH lazy"}).json() == []
    assert counts(lazy.db).get("FOLLOWS", 0) == 0

    ran = lazy.client.post("/episodes/enrichment", headers=lazy.admin)
    assert ran.status_code == 200, ran.text
    assert (ran.json()["enriched"], ran.json()["pending"], len(ran.json()["audit_ids"])) == (2, 0, 1), ran.json()
    done = _episode(lazy, h, "lazy-1")
    assert done["enrichment"] == "done", done
    assert [m["name"] for m in done["mentions"]] == ["WETH lazy"], done
    assert _episode(lazy, h, "lazy-0")["enrichment"] == "done"
    assert _pending(lazy, h, "golem-1") == 0
    assert [e["name"] for e in lazy.client.get("/entities/resolve", headers=h, params={"q": "WETH lazy"}).json()] \
        == ["WETH lazy"]
    assert counts(lazy.db)["FOLLOWS"] == 1
    # The job's record, by the enrichment actor: the episode it derived something for (lazy-0 had nothing: no
    # record names it, so nothing stands between its ingest and a rollback), and the entity the mention created at
    # its first version (the episodes' enrichment is bookkeeping: no version of theirs is named).
    [record] = _enrich_records(lazy.db)
    steps = dict(zip(record["target_ids"], zip(record["before_versions"], record["after_versions"], strict=True),
                     strict=True))
    assert record["actor"] == enrichment.ACTOR and record["agent_id"] == "golem-1", record
    assert "lazy-0" not in steps and steps.pop("lazy-1") == ("", ""), record
    [(entity, (before, after))] = steps.items()
    assert (before, after) == ("", f"{entity}:v1"), record


def test_the_job_is_idempotent(lazy: Api) -> None:
    h = lazy.headers("golem-1")
    for i in range(3):
        _ingest(lazy, h, f"idem-{i}", f"Pool {i} of the idem market rebalanced", mentions=[WETH])
    first = enrichment.enrich(lazy.db, batch=2)  # two transactions: UNWIND batches of at most `batch`
    assert (first.enriched, first.batches) == (3, 2)
    graph = counts(lazy.db)
    second = enrichment.enrich(lazy.db)
    assert (second.enriched, second.batches, second.audit_ids) == (0, 0, [])
    assert counts(lazy.db) == graph
    assert len(_enrich_records(lazy.db)) == 2  # one per transaction of the first run, none from the second
    # Re-sending an enriched episode creates nothing and leaves it done.
    _resent = lazy.client.post("/episodes", headers=h, json={"id": "idem-0", "type": "observation",
                                                            "text": "Pool 0 of the idem market rebalanced"})
    assert _resent.json()["existing"] == ["idem-0"]
    assert _episode(lazy, h, "idem-0")["enrichment"] == "done"
    again = counts(lazy.db)
    assert again.pop("AuditRecord") == graph.pop("AuditRecord") + 1 and again == graph  # the re-send's record only
    assert len(_enrich_records(lazy.db)) == 2


def test_an_episode_rolled_back_while_pending_is_never_enriched(lazy: Api) -> None:
    h = lazy.headers("golem-1")
    r = lazy.client.post("/episodes", headers=h, json={"id": "gone-1", "type": "observation",
                                                       "text": "A signer key leaked in the gone market",
                                                       "mentions": [{"kind": "Token", "name": "GONE token"}]})
    assert r.status_code == 201, r.text
    [audit_id] = r.json()["audit_ids"]
    undone = lazy.client.post("/agents/golem-1/rollback", headers=lazy.admin, json={"record": audit_id})
    assert undone.status_code == 200, undone.text
    assert lazy.client.get("/episodes/gone-1", headers=h).status_code == 404
    report = enrichment.enrich(lazy.db)
    assert report.enriched == 0 and not _enrich_records(lazy.db)
    assert lazy.client.get("/episodes/gone-1", headers=h).status_code == 404
    assert counts(lazy.db).get("MENTIONS", 0) == 0
    assert lazy.client.get("/entities/resolve", headers=lazy.admin, params={"q": "GONE token"}).json() == []


def test_the_job_widens_nothing(lazy: Api) -> None:
    """A confidential episode written shared (kept private) and a shared one: after the job each keeps its scope,
    and the entity only the confidential one names stays out of a clade mate's sight."""
    a, mate = lazy.headers("golem-1", "clade-a"), lazy.headers("golem-2", "clade-a")
    key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    _ingest(lazy, a, "conf-1", f"Hot wallet signer {key}", scope="shared",
            mentions=[{"kind": "Token", "name": "SECRET signer token"}])
    _ingest(lazy, a, "shared-1", "The shared vault paused", scope="shared",
            mentions=[{"kind": "Token", "name": "SHARED vault token"}])
    before = {e: _episode(lazy, a, e)["scope"] for e in ("conf-1", "shared-1")}
    assert before == {"conf-1": "private", "shared-1": "shared"}
    assert enrichment.enrich(lazy.db).enriched == 2
    assert {e: _episode(lazy, a, e)["scope"] for e in before} == before
    assert lazy.client.get("/episodes/conf-1", headers=mate).status_code == 404
    secret = lazy.client.get("/entities/resolve", headers=a, params={"q": "SECRET signer token"}).json()
    assert "SECRET signer token" in [e["name"] for e in secret], secret  # made, for its owner
    seen = lazy.client.get("/entities/resolve", headers=mate, params={"q": "SECRET signer token"}).json()
    assert "SECRET signer token" not in [e["name"] for e in seen], seen
    shared = lazy.client.get("/entities/resolve", headers=mate, params={"q": "SHARED vault token"}).json()
    assert [e["name"] for e in shared] == ["SHARED vault token"], shared


def test_the_sync_setting_writes_everything_in_the_ingest(db: Database, neo4j_server: Neo4jUnderTest,
                                                          embedder) -> None:
    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, episode_enrichment="sync"), db=db,
                     embedder=embedder)
    with TestClient(app) as c:  # no drain: what the ingest wrote is all there is
        api = Api(c, db)
        api.drain = False
        h = api.headers("golem-1")
        _ingest(api, h, "sync-0", "Gas spiked on the sync chain")
        _ingest(api, h, "sync-1", "Sync vault paused", mentions=[WETH], follows="sync-0")
        got = _episode(api, h, "sync-1")
        assert got["enrichment"] == "done" and [m["name"] for m in got["mentions"]] == ["WETH lazy"], got
        assert counts(db)["FOLLOWS"] == 1 and _pending(api, h, "golem-1") == 0
        assert enrichment.enrich(db).enriched == 0 and not _enrich_records(db)


def test_a_lazy_turn_leaves_its_follows_to_the_job(lazy: Api) -> None:
    h = lazy.headers("golem-1")
    r = lazy.client.post("/hooks/after_turn", headers=h, json={"turn_id": "t-lazy", "items": [
        {"kind": "message", "role": "user", "text": "What moved the lazy market?"},
        {"kind": "message", "role": "assistant", "text": "The lazy market moved on an oracle update."}]})
    assert r.status_code == 201, r.text
    assert counts(lazy.db).get("FOLLOWS", 0) == 0 and _pending(lazy, h, "golem-1") == 2
    assert enrichment.enrich(lazy.db).enriched == 2
    assert counts(lazy.db)["FOLLOWS"] == 1 and _pending(lazy, h, "golem-1") == 0


def test_rolling_back_an_enriched_ingest_undoes_the_enrichment_with_it(lazy: Api) -> None:
    """The enrichment's record (system:enrichment) names the ingest's episodes, later: a rollback of the ingest
    undoes it too, newest first (its MENTIONS and FOLLOWS), instead of refusing over it. An enrichment record that
    also covers another ingest's episodes stays for those (they keep their mentions), and is no conflict either."""
    h = lazy.headers("golem-1")
    r = lazy.client.post("/episodes/batch", headers=h, json={"episodes": [
        {"id": "rb-0", "type": "observation", "text": "The rb vault paused withdrawals",
         "mentions": [{"kind": "Token", "name": "RB vault token"}]},
        {"id": "rb-1", "type": "observation", "text": "The rb vault resumed", "follows": "rb-0",
         "mentions": [{"kind": "Token", "name": "RB vault token"}, WETH]}]})
    assert r.status_code in (200, 201), r.text
    [ingest] = r.json()["audit_ids"]
    first = enrichment.enrich(lazy.db)
    assert first.enriched == 2 and len(first.audit_ids) == 1
    assert counts(lazy.db)["MENTIONS"] == 3 and counts(lazy.db)["FOLLOWS"] == 1
    preview = lazy.client.post("/agents/golem-1/rollback", headers=lazy.admin, json={"record": ingest,
                                                                                     "dry_run": True})
    assert preview.status_code == 200, preview.text
    assert preview.json()["conflicts"] == []
    assert [c["id"] for c in preview.json()["changes"]] == [first.audit_ids[0], ingest]  # newest first
    undone = lazy.client.post("/agents/golem-1/rollback", headers=lazy.admin, json={"record": ingest})
    assert undone.status_code == 200, undone.text
    assert [c["id"] for c in undone.json()["undone"]] == [first.audit_ids[0], ingest]
    assert lazy.client.get("/episodes/rb-0", headers=h).status_code == 404
    assert counts(lazy.db).get("MENTIONS", 0) == 0 and counts(lazy.db).get("FOLLOWS", 0) == 0
    # One enrichment record over two ingests: rolling back one leaves the other's mentions and the record.
    r = lazy.client.post("/episodes", headers=h, json={"id": "rb-a", "type": "observation",
                                                       "text": "The rb pool drained",
                                                       "mentions": [{"kind": "Token", "name": "RB pool token"}]})
    assert r.status_code == 201, r.text
    [ingest_a] = r.json()["audit_ids"]
    _ingest(lazy, h, "rb-b", "The rb bridge halted", mentions=[{"kind": "Token", "name": "RB bridge token"}])
    both = enrichment.enrich(lazy.db)
    assert both.enriched == 2 and len(both.audit_ids) == 1
    r = lazy.client.post("/agents/golem-1/rollback", headers=lazy.admin, json={"record": ingest_a})
    assert r.status_code == 200, r.text
    assert [c["id"] for c in r.json()["undone"]] == [ingest_a] and r.json()["forced_over"] == []
    assert lazy.client.get("/episodes/rb-a", headers=h).status_code == 404
    assert [m["name"] for m in _episode(lazy, h, "rb-b")["mentions"]] == ["RB bridge token"]
