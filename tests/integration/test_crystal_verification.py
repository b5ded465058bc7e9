"""Verification and bounties (knowledge-crystals.md, "Verification & Bounties (Phase 3)"): a management node's
Ed25519 signature over a knowledge crystal's content hash verifies it (is_verified, verified_by its base64 key), a
forged signature, another key's, an unknown or revoked key or a memory crystal is a 4xx that writes nothing; a
bounty fulfilled by a skill closes, names the bounty on the skill, gives it the bounty's multiplier as its priority
boost (retrieval's governance factor), raises the price's demand 1 + ln(buyers + bounty matches + 1) x 0.1, each
change with one audit record; a private bounty is its poster's alone."""

from __future__ import annotations

import base64
import math
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from grimoire.graph.db import cypher
from tests.conftest import Api

SKILL = ("1. Quote the swap on two routers. 2. Split the order so neither leg moves the pool more than 30 bps. "
         "3. Send both legs in the same block.")
OWNER, MATE, STRANGER = "vf-owner", "vf-mate", "vf-stranger"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _public(key: Ed25519PrivateKey) -> str:
    return _b64(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))


def _actions(api: Api) -> list[str]:
    return [r["action"] for r in api.db.run("testing/audit_versions")]


def _skill(api: Api, h: dict[str, str], eid: str, text: str = SKILL, scope: str | None = None) -> str:
    made = api.client.post("/episodes", headers=h, json={"id": eid, "type": "observation", "text": text,
                                                         **({"scope": scope} if scope else {})})
    assert made.status_code == 201, made.text
    r = api.client.post("/skills", headers=h, json={"crystal_id": eid, "category": "routing"})
    assert r.status_code == 201, r.text
    return str(r.json()["stable_skill_id"])


def _register(api: Api, key: Ed25519PrivateKey, name: str = "hub") -> dict[str, Any]:
    r = api.client.post("/management-nodes", headers=api.admin, json={"public_key": _public(key), "name": name})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_a_management_nodes_signature_verifies_a_knowledge_crystal(api: Api) -> None:
    h = api.headers(OWNER, "clade-v")
    _skill(api, h, "vf-skill")
    node_key, other_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    # Only the admin registers a management node; registering it again changes nothing.
    assert api.client.post("/management-nodes", headers=h, json={"public_key": _public(node_key)}).status_code == 403
    node = _register(api, node_key)
    assert node["public_key"] == _public(node_key) and node["id"].startswith("mn-")
    assert _register(api, node_key)["id"] == node["id"]
    assert _actions(api).count("management_node.register") == 1
    crystal = api.client.get("/crystals/vf-skill", headers=h).json()
    assert crystal["is_verified"] is False and "verified_by" not in crystal
    message = crystal["content_hash"].encode("ascii")

    def verify(body: dict[str, Any], crystal_id: str = "vf-skill") -> Any:
        return api.client.post(f"/crystals/{crystal_id}/verify", headers=h, json=body)

    before = _actions(api)
    forged = bytearray(node_key.sign(message))
    forged[0] ^= 1
    refusals = {
        "forged": verify({"key_id": node["id"], "signature": _b64(bytes(forged))}),
        "another key's signature": verify({"key_id": node["id"], "signature": _b64(other_key.sign(message))}),
        "another text's signature": verify({"key_id": node["id"], "signature": _b64(node_key.sign(b"0" * 64))}),
        "an unknown key": verify({"public_key": _public(other_key), "signature": _b64(other_key.sign(message))}),
        "not base64": verify({"key_id": node["id"], "signature": "!" * 88}),
        "no key named": verify({"signature": _b64(node_key.sign(message))}),
    }
    assert {why: r.status_code for why, r in refusals.items()} == {
        "forged": 422, "another key's signature": 422, "another text's signature": 422, "an unknown key": 404,
        "not base64": 422, "no key named": 422}
    assert "signature" in refusals["forged"].json()["detail"]
    assert _actions(api) == before  # nothing written
    assert api.client.get("/crystals/vf-skill", headers=h).json()["is_verified"] is False

    good = verify({"public_key": _public(node_key), "signature": _b64(node_key.sign(message))})
    assert good.status_code == 200, good.text
    assert good.json()["is_verified"] is True and good.json()["verified_by"] == _public(node_key)
    shown = api.client.get("/crystals/vf-skill", headers=h).json()
    assert shown["is_verified"] is True and shown["verified_by"] == _public(node_key)
    assert shown["verified_key_id"] == node["id"]
    sid = shown["stable_skill_id"]
    assert api.client.get(f"/skills/{sid}", headers=h).json()["listing"]["verified"] is True
    # The same endorsement again writes nothing more.
    again = verify({"key_id": node["id"], "signature": _b64(node_key.sign(message))})
    assert again.status_code == 200 and again.json()["audit_id"] is None
    records = [r for r in api.db.run("testing/audit_versions") if r["action"] == "crystal.verify"]
    assert len(records) == 1 and records[0]["target_ids"] == ["vf-skill"]
    assert records[0]["before_versions"] != records[0]["after_versions"]
    # A new version is a new text: unverified.
    v2 = api.client.post(f"/skills/{sid}/versions", headers=h, json={"text": SKILL + " 4. Log both fills."})
    assert v2.status_code == 201, v2.text
    assert api.client.get(f"/crystals/{v2.json()['id']}", headers=h).json()["is_verified"] is False

    # A revoked key endorses nothing from then on; what it endorsed stays.
    _skill(api, h, "vf-skill-2", "Rebalance the LP range when the price leaves the middle third of it.")
    second = api.client.get("/crystals/vf-skill-2", headers=h).json()["content_hash"].encode("ascii")
    revoked = api.client.delete(f"/management-nodes/{node['id']}", headers=api.admin)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    late = verify({"key_id": node["id"], "signature": _b64(node_key.sign(second))}, "vf-skill-2")
    assert late.status_code == 422 and "revoked" in late.json()["detail"]
    assert api.client.get("/crystals/vf-skill-2", headers=h).json()["is_verified"] is False
    assert api.client.get("/crystals/vf-skill", headers=h).json()["is_verified"] is True
    assert api.client.post("/management-nodes", headers=api.admin,
                           json={"public_key": _public(node_key)}).status_code == 409
    # Another agent's crystal is not the caller's to have endorsed.
    stranger = api.headers(STRANGER, "clade-x")
    assert api.client.post("/crystals/vf-skill-2/verify", headers=stranger, json={
        "public_key": _public(other_key), "signature": _b64(other_key.sign(second))}).status_code == 404


def test_a_memory_crystal_is_not_endorsed(api: Api) -> None:
    h = api.headers(OWNER, "clade-v")
    node_key = Ed25519PrivateKey.generate()
    node = _register(api, node_key)
    assert api.client.post("/episodes", headers=h, json={
        "id": "vf-episode", "type": "observation", "text": "Gas fell to 4 gwei at 03:00 UTC"}).status_code == 201
    crystal = api.client.get("/crystals/vf-episode", headers=h).json()
    assert crystal["semantic_type"] == "episode"
    before = _actions(api)
    r = api.client.post("/crystals/vf-episode/verify", headers=h, json={
        "key_id": node["id"], "signature": _b64(node_key.sign(crystal["content_hash"].encode("ascii")))})
    assert r.status_code == 422 and "memory crystal" in r.json()["detail"]
    assert _actions(api) == before
    assert api.client.get("/crystals/vf-episode", headers=h).json()["is_verified"] is False


def test_a_bounty_fulfilled_by_a_skill_closes_and_boosts_it(api: Api) -> None:
    poster, owner = api.headers(MATE, "clade-v"), api.headers(OWNER, "clade-v")
    sid = _skill(api, owner, "vf-bounty-skill", scope="shared")
    _skill(api, owner, "vf-twin", scope="shared")  # the same text, no bounty: retrieval's tie
    hidden = _skill(api, owner, "vf-hidden-skill", "Route large swaps through a private RFQ desk.")  # private
    listing = api.client.get(f"/skills/{sid}", headers=owner).json()["listing"]
    assert listing["demand"] == 1.0  # 1 + ln(0 + 0 + 1) x 0.1
    bad = api.client.post("/bounties", headers=poster, json={"text": "x", "reward_multiplier": 0.5})
    assert bad.status_code == 422
    posted = api.client.post("/bounties", headers=poster, json={
        "text": "A way to split large swaps across routers", "reward_multiplier": 2.0, "scope": "shared"})
    assert posted.status_code == 201, posted.text
    bounty = posted.json()
    assert bounty["status"] == "open" and "valid_until" not in bounty
    assert [b["id"] for b in api.client.get("/bounties", headers=owner).json()] == [bounty["id"]]
    # The poster does not fulfil its own bounty.
    own = _skill(api, poster, "vf-poster-skill", "Bridge through the canonical bridge when the fast one lags.")
    assert api.client.post(f"/bounties/{bounty['id']}/match", headers=poster,
                           json={"stable_skill_id": own}).status_code == 409
    # Only the skill's owner matches it.
    assert api.client.post(f"/bounties/{bounty['id']}/match", headers=poster,
                           json={"stable_skill_id": sid}).status_code == 404
    # A skill the poster may not see does not fulfil it: the match would show it to whoever sees the bounty.
    before = len(_actions(api))
    r = api.client.post(f"/bounties/{bounty['id']}/match", headers=owner, json={"stable_skill_id": hidden})
    assert r.status_code == 422 and "may not see it" in r.json()["detail"], r.text
    assert len(_actions(api)) == before
    assert api.client.get(f"/bounties/{bounty['id']}", headers=poster).json()["status"] == "open"
    r = api.client.post(f"/bounties/{bounty['id']}/match", headers=owner, json={"stable_skill_id": sid})
    assert r.status_code == 200, r.text
    matched = r.json()
    assert matched["bounty"]["status"] == "closed" and matched["bounty"]["valid_until"] is not None
    assert matched["bounty"]["matched_crystal_id"] == "vf-bounty-skill"
    assert matched["bounty_priority_boost"] == 2.0 and matched["bounty_matches"] == 1
    crystal = api.client.get("/crystals/vf-bounty-skill", headers=owner).json()
    assert crystal["bounty_match_id"] == bounty["id"] and crystal["bounty_priority_boost"] == 2.0
    assert crystal["bounty_matches"] == 1
    demand = api.client.get(f"/skills/{sid}", headers=owner).json()["listing"]["demand"]
    assert demand == round(1 + math.log(0 + 1 + 1) * 0.1, 6)
    # Closed: open no more, kept (its valid time ended), not fulfilled twice.
    assert api.client.get("/bounties", headers=owner).json() == []
    closed = api.client.get("/bounties", headers=poster, params={"status": "closed"}).json()
    assert [b["id"] for b in closed] == [bounty["id"]] and closed[0]["text"] == bounty["text"]
    assert closed[0]["valid_from"] == bounty["valid_from"]
    twin = api.client.get("/crystals/vf-twin", headers=owner).json()["stable_skill_id"]
    assert api.client.post(f"/bounties/{bounty['id']}/match", headers=owner,
                           json={"stable_skill_id": twin}).status_code == 409
    # One audit record for the match, naming the bounty and the skill, each moved to its next version.
    new = _actions(api)[before:]
    assert new == ["bounty.match"]
    record = [x for x in api.db.run("testing/audit_versions") if x["action"] == "bounty.match"][0]
    assert record["target_ids"] == [bounty["id"], "vf-bounty-skill"]
    assert all(b and a and b != a for b, a in zip(record["before_versions"], record["after_versions"], strict=True))
    assert _actions(api).count("bounty.post") == 1
    # The boost orders retrieval: x(1 + 0.02 x (2 - 1)) over the twin with none.
    hits = api.client.post("/retrieve", headers=owner, json={"text": SKILL, "k": 2, "no_budget": True,
                                                             "mode": "four_factor", "explain": True}).json()["results"]
    assert [x["id"] for x in hits] == ["vf-bounty-skill", "vf-twin"]
    assert [x["explain"]["governance"] for x in hits] == [1.02, 1.0]


def test_a_private_bounty_is_its_posters_alone(api: Api) -> None:
    poster, mate = api.headers(MATE, "clade-v"), api.headers(OWNER, "clade-v")
    stranger = api.headers(STRANGER, "clade-x")
    sid = _skill(api, mate, "vf-private-skill")
    private = api.client.post("/bounties", headers=poster, json={
        "text": "A swap splitter for my own desk", "reward_multiplier": 3.0}).json()
    shared = api.client.post("/bounties", headers=poster, json={
        "text": "A swap splitter for the clade", "reward_multiplier": 1.5, "scope": "shared"}).json()
    assert private["scope"] == "private"
    assert {b["id"] for b in api.client.get("/bounties", headers=poster).json()} == {private["id"], shared["id"]}
    assert [b["id"] for b in api.client.get("/bounties", headers=mate).json()] == [shared["id"]]
    assert api.client.get("/bounties", headers=stranger).json() == []
    for who in (mate, stranger):
        assert api.client.get(f"/bounties/{private['id']}", headers=who).status_code == 404
    assert api.client.get(f"/bounties/{shared['id']}", headers=stranger).status_code == 404
    before = _actions(api)
    refused = api.client.post(f"/bounties/{private['id']}/match", headers=mate, json={"stable_skill_id": sid})
    assert refused.status_code == 404 and private["id"] in refused.json()["detail"]
    assert _actions(api) == before
    assert api.client.get(f"/bounties/{private['id']}", headers=poster).json()["status"] == "open"
    assert api.client.get("/crystals/vf-private-skill", headers=mate).json()["bounty_priority_boost"] == 1.0
    # A confidential text stays its poster's whatever scope was asked for.
    secret = api.client.post("/bounties", headers=poster, json={
        "text": "Need a tool that checks a wallet's seed phrase backup", "reward_multiplier": 2.0,
        "scope": "public"}).json()
    assert secret["sensitivity"] == "confidential"
    assert secret["scope"] == "private" and secret["requested_scope"] == "public"
    assert api.client.get(f"/bounties/{secret['id']}", headers=stranger).status_code == 404


def test_bounties_are_what_the_caller_sees(api: Api) -> None:
    """The isolation walk's: each bounty read route answers another agent only what the rule lets it see."""
    a, b = api.headers("vf-a", "clade-1"), api.headers("vf-b", "clade-2")
    mine = api.client.post("/bounties", headers=a, json={"text": "private ask", "reward_multiplier": 1.0}).json()
    public = api.client.post("/bounties", headers=a, json={"text": "public ask", "reward_multiplier": 1.0,
                                                           "scope": "public"}).json()
    assert [x["id"] for x in api.client.get("/bounties", headers=b).json()] == [public["id"]]
    assert api.client.get(f"/bounties/{mine['id']}", headers=b).status_code == 404
    assert api.client.get(f"/bounties/{public['id']}", headers=b).status_code == 200
    assert len(api.client.get("/bounties", headers=api.admin).json()) == 2
    nodes = api.client.get("/management-nodes", headers=b)
    assert nodes.status_code == 200 and nodes.json() == []


def _plan_operators(api: Api, statuses: list[str]) -> list[str]:
    """The operators (with their details) of the list's plan, as the database would run it."""
    params = {"viewer": OWNER, "clade": "clade-v", "admin": False, "statuses": statuses, "limit": 100}
    with api.db.session() as s:
        plan = s.run("EXPLAIN " + cypher.query("crystals/bounties_list"), params).consume().plan

    def walk(p: Any) -> list[str]:
        return [f"{p['operatorType']} {p.get('args', {}).get('Details', '')}",
                *(o for c in p.get("children", []) for o in walk(c))]

    return walk(plan)


def test_the_bounty_list_by_status_seeks_its_index(api: Api) -> None:
    """GET /bounties?status=open|closed|all: open by default; closed, those whose valid time ended on a match; all,
    both; another value a 422 in the one error shape. Each seeks the status index rather than scanning bounties."""
    poster, owner = api.headers(MATE, "clade-v"), api.headers(OWNER, "clade-v")
    sid = _skill(api, owner, "vf-list-skill", scope="shared")
    ids = []
    for text in ("first ask", "second ask", "third ask"):
        r = api.client.post("/bounties", headers=poster, json={"text": text, "reward_multiplier": 1.5,
                                                               "scope": "shared"})
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    fulfilled = ids[1]
    r = api.client.post(f"/bounties/{fulfilled}/match", headers=owner, json={"stable_skill_id": sid})
    assert r.status_code == 200, r.text

    def listed(**params: str) -> list[dict[str, Any]]:
        r = api.client.get("/bounties", headers=owner, params=params)
        assert r.status_code == 200, r.text
        return list(r.json())

    newest_first = ids[::-1]
    assert [b["id"] for b in listed()] == [i for i in newest_first if i != fulfilled]
    assert [b["id"] for b in listed(status="open")] == [i for i in newest_first if i != fulfilled]
    closed = listed(status="closed")
    assert [b["id"] for b in closed] == [fulfilled]
    assert closed[0]["valid_until"] is not None and closed[0]["matched_skill_id"] == sid
    every = listed(status="all")
    assert [b["id"] for b in every] == newest_first
    assert {b["id"]: b["status"] for b in every} == {i: "closed" if i == fulfilled else "open" for i in ids}
    # The rule still holds in each state: a stranger sees none of the clade's bounties.
    assert api.client.get("/bounties", headers=api.headers(STRANGER, "clade-w"), params={"status": "all"}).json() == []
    bad = api.client.get("/bounties", headers=owner, params={"status": "fulfilled"})
    assert bad.status_code == 422 and bad.headers["content-type"].startswith("application/problem+json")
    body = bad.json()
    assert body["status"] == 422 and body["detail"].startswith("query.status") and body["errors"][0]["loc"] == [
        "query", "status"]
    # Each state is a seek on the bounty index (status, valid_from), never a scan of the label or of every node.
    for statuses in (["open"], ["closed"], ["open", "closed"]):
        ops = _plan_operators(api, statuses)
        assert any("IndexSeek" in o and "Bounty(status, valid_from)" in o for o in ops), ops
        assert not any(o.startswith(("NodeByLabelScan", "AllNodesScan")) for o in ops), ops
