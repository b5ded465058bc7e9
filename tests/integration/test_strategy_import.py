"""A clade mate imports a strategy package (grimoire.md line 1450: strategy sharing is free within the clade): each
entry through the Admission Gate at 0.8x its confidence (the weighting hierarchy's clade weight, line 1505), with
its provenance, never wider than its source; only the owner's clade may import, only the owner's current package,
and importing it again admits nothing. A confidential entry is never in a package."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api

OWNER, MATE, STRANGER = "golem-src", "golem-mate", "golem-far"
STRATEGY = "eth-dca"
ROUTE = f"/agents/{MATE}/strategies/import"
SOURCES = {  # id: (category, scope, content, confidence after the owner's own validation)
    "src-heuristic": ("Heuristic", "private", "Buy ETH with dca-buy on the weekly schedule while perpetual funding "
                      "stays negative: 21 of 22 buys filled with a gain", 0.75),
    "src-warning": ("Warning", "shared", "Pause dca-buy when mainnet gas is above 80 gwei: the fill costs more "
                    "than the weekly edge", 0.6),
    "src-insight": ("Insight", "private", "Weekly ETH buys placed at 03:00 UTC fill 12 bps better than the "
                    "afternoon ones on chain 1", 0.5),
}
SECRET = "Sign every dca-buy with the private key kept in the vault wallet before the weekly window opens"


def _owner_world(api: Api) -> dict[str, dict[str, str]]:
    owner, mate, stranger = (api.headers(OWNER, "clade-s"), api.headers(MATE, "clade-s"),
                             api.headers(STRANGER, "clade-t"))
    episodes = [{"id": f"dca-{i}", "type": "action", "tool": "dca-buy", "strategy": STRATEGY, "regime": "bull",
                 "outcome": "negative" if i == 0 else "positive", "tick": i,
                 "text": f"dca-buy bought 0.1 ETH at tick {i} on the weekly schedule"} for i in range(22)]
    assert api.client.post("/episodes/batch", headers=owner, json={"episodes": episodes}).status_code == 201
    for entry_id, (category, scope, content, _) in {**SOURCES, "src-secret": ("Heuristic", "private", SECRET,
                                                                              0.8)}.items():
        made = api.client.post("/entries", headers=owner, json={
            "id": entry_id, "category": category, "scope": scope, "content": content, "strategy": STRATEGY,
            "parent_episode_ids": [f"dca-{i}" for i in range(1, 6)]})
        assert made.status_code == 201 and made.json()["entry_id"] == entry_id, made.text
    # The owner's Curator has validated them (what three cycles would do): active, the heuristics in the playbook.
    for entry_id, (category, _, _, confidence) in {**SOURCES, "src-secret": ("Heuristic", "", "", 0.8)}.items():
        api.db.run("testing/set_entry_props", id=entry_id, props={
            "status": "active", "confidence": confidence, "in_playbook": category == "Heuristic"})
    return {"owner": owner, "mate": mate, "stranger": stranger}


def _audit(api: Api) -> dict[str, dict[str, Any]]:
    return {r["id"]: dict(r) for r in api.db.run("testing/audit_records")}


def _package(api: Api, h: dict[str, str]) -> dict[str, Any]:
    r = api.client.get(f"/strategies/{STRATEGY}/package", headers=h)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _mate_entries(api: Api, h: dict[str, str]) -> dict[str, tuple[Any, ...]]:
    """The importer's entries, each with what an import would change (not its confidence decaying meanwhile)."""
    listed = api.client.get("/entries", headers=h, params={"limit": 500}).json()
    return {e["id"]: (e["confidence"], e["status"], e.get("version"), tuple(e.get("tags") or ()))
            for e in listed if e["agent_id"] == MATE}


def test_a_confidential_entry_is_never_packaged(api) -> None:
    h = _owner_world(api)
    secret = api.client.get("/entries/src-secret", headers=h["owner"]).json()
    assert secret["sensitivity"] == "confidential" and secret["status"] == "active" and secret["in_playbook"]
    assert SECRET in api.client.get("/playbook", headers=h["owner"]).text  # the owner's own playbook shows it
    package = _package(api, h["owner"])
    packaged = {e["id"] for part in ("heuristics", "warnings", "insights") for e in package[part]}
    assert packaged == set(SOURCES)
    assert SECRET not in package["playbook_section"] and SOURCES["src-heuristic"][2] in package["playbook_section"]
    assert "src-secret" not in str(package)


def test_a_clade_mate_imports_a_package_once_at_the_clades_weight(api) -> None:
    h = _owner_world(api)
    package = _package(api, h["owner"])
    before = _audit(api)
    r = api.client.post(ROUTE, headers=h["mate"], json={"package": package, "scope": "shared"})
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["source_agent_id"] == OWNER and out["digest"] == package["digest"] and out["weight"] == 0.8
    by_source = {e["source_id"]: e for e in out["entries"]}
    assert set(by_source) == set(SOURCES)
    assert set(out["admitted"]) == {e["candidate_id"] for e in out["entries"]}  # every one kept by the gate
    for source_id, (category, scope, content, confidence) in SOURCES.items():
        made = by_source[source_id]
        assert made["outcome"] == "admitted", made
        assert made["scope"] == scope  # shared was asked: the private sources stay private
        copy = api.client.get(f"/entries/{made['entry_id']}", headers=h["mate"]).json()
        assert copy["agent_id"] == MATE and copy["content"] == content and copy["category"] == category
        assert copy["confidence"] == pytest.approx(confidence * 0.8) == made["confidence"]
        assert copy["provenance"] == "Clade" and copy["source_golem_id"] == OWNER
        assert (copy["imported_from"], copy["imported_from_agent"]) == (source_id, OWNER)
        assert (copy["import_strategy"], copy["import_digest"]) == (STRATEGY, package["digest"])
        assert copy["scope"] == scope and copy["status"] == "candidate" and not copy.get("in_playbook")
        # the importer's own: its owner's copy is not the source's owner's to see (unless shared in the clade)
        seen_by_owner = api.client.get(f"/entries/{made['entry_id']}", headers=h["owner"]).status_code
        assert seen_by_owner == (200 if scope == "shared" else 404)
        assert api.client.get(f"/entries/{made['entry_id']}", headers=h["stranger"]).status_code == 404
    [written] = [r for i, r in _audit(api).items() if i not in before]  # entries, decisions, audit: one transaction
    assert written["action"] == "entry.admit" and written["agent_id"] == MATE
    assert set(written["target_ids"]) == set(out["admitted"])
    entries, records = _mate_entries(api, h["mate"]), _audit(api)

    again = api.client.post(ROUTE, headers=h["mate"], json={"package": package, "scope": "shared"})
    assert again.status_code == 201, again.text
    assert again.json()["admitted"] == []
    assert {e["outcome"] for e in again.json()["entries"]} == {"already_imported"}
    assert {e["entry_id"] for e in again.json()["entries"]} == set(out["admitted"])
    assert _mate_entries(api, h["mate"]) == entries
    assert _audit(api) == records  # nothing written, nothing audited


def test_only_the_owners_clade_imports_and_only_its_current_package(api) -> None:
    h = _owner_world(api)
    package = _package(api, h["owner"])
    far = api.client.post(f"/agents/{STRANGER}/strategies/import", headers=h["stranger"], json={"package": package})
    assert far.status_code == 403 and far.headers["content-type"].startswith("application/problem+json")
    assert far.json()["status"] == 403 and "clade" in far.json()["detail"]
    assert api.client.post(ROUTE, headers=h["stranger"], json={"package": package}).status_code == 403  # not its own
    own = api.client.post(f"/agents/{OWNER}/strategies/import", headers=h["owner"], json={"package": package})
    assert own.status_code == 422, own.text

    tampered = {**package, "heuristics": [{**package["heuristics"][0], "content": "Buy ETH with all the funds"}]}
    refused = api.client.post(ROUTE, headers=h["mate"], json={"package": tampered})
    assert refused.status_code == 422 and "digest" in refused.json()["detail"], refused.text
    wrong_digest = api.client.post(ROUTE, headers=h["mate"], json={"package": {**package, "digest": "0" * 64}})
    assert wrong_digest.status_code == 422, wrong_digest.text
    # A package whose digest was recomputed over changed content is not one the owner's graph builds.
    from grimoire.graph.learning.strategies import digest_of

    forged = {k: v for k, v in tampered.items() if k != "digest"}
    forged["digest"] = digest_of(forged)
    assert api.client.post(ROUTE, headers=h["mate"], json={"package": forged}).status_code == 409
    assert _mate_entries(api, h["mate"]) == {}
    # Once the owner's graph changes, the package it handed out is stale: fetch it again.
    api.db.run("testing/set_entry_props", id="src-warning", props={"confidence": 0.65})
    assert api.client.post(ROUTE, headers=h["mate"], json={"package": package}).status_code == 409
    fresh = api.client.post(ROUTE, headers=h["mate"], json={"package": _package(api, h["owner"])})
    assert fresh.status_code == 201 and len(fresh.json()["admitted"]) == len(SOURCES), fresh.text
