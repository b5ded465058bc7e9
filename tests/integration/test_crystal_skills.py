"""Skills (knowledge-crystals.md): a crystal crystallized as a skill — frozen, a stable id, version 1, tags and
category, its procedural, causal and entity views embedded and searchable; its versions (each a new crystal, the
one before deprecated), its deprecation in favour of another skill; its executions and the marketplace price past
the quality gates (3 executions, 60% success), against numbers worked out by hand; only what the caller sees."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api

VAULT = ("1. Open the Morpho vault page. 2. Call withdraw() with the full share balance. 3. Wait for the "
         "transaction to confirm, then check the wallet balance.")
ORACLE = ("A stale Chainlink price causes liquidations to misfire because the health factor reads the old price; "
          "when the heartbeat lapses, pause new borrows.")
ROUTER = "Route large swaps through the Uniswap SDK and the 1inch API to split the order."


def _skill(api: Api, h: dict[str, str], eid: str, text: str, category: str, tags: list[str]) -> str:
    r = api.client.post("/entries", headers=h, json={"id": eid, "category": "StrategyFragment", "content": text})
    assert r.json()["outcome"] == "admitted", r.text
    made = api.client.post("/skills", headers=h, json={"crystal_id": eid, "tags": tags, "category": category})
    assert made.status_code == 201, made.text
    return str(made.json()["stable_skill_id"])


@pytest.fixture
def owned(api: Api) -> dict[str, Any]:
    h = api.headers("sk-a", "clade-k")
    return {"h": h, "vault": _skill(api, h, "vault", VAULT, "defi-ops", ["morpho"]),
            "oracle": _skill(api, h, "oracle", ORACLE, "risk", ["chainlink"]),
            "router": _skill(api, h, "router", ROUTER, "defi-ops", ["uniswap"])}


def test_crystallized_skills_are_frozen_versioned_and_deprecated(api: Api, owned) -> None:
    h, sid = owned["h"], owned["vault"]
    one = api.client.get(f"/skills/{sid}", headers=h).json()
    assert one["latest"]["id"] == "vault" and one["latest"]["skill_version"] == 1
    assert one["latest"]["lifecycle"] == "frozen" and one["latest"]["semantic_type"] == "skill"
    assert one["latest"]["skill_tags"] == ["morpho"] and one["latest"]["skill_category"] == "defi-ops"
    assert api.client.post("/skills", headers=h, json={"crystal_id": "vault"}).status_code == 422  # a skill already
    assert api.client.post("/crystals/vault/lifecycle", headers=h, json={"to": "expired"}).status_code == 409
    # Only a generated or activated crystal is crystallized: a frozen one is immutable.
    assert api.client.post("/episodes", headers=h, json={"id": "fz-ep", "type": "observation", "text": "frozen note"}
                           ).status_code == 201
    assert api.client.post("/crystals/fz-ep/lifecycle", headers=h, json={"to": "frozen"}).status_code == 200
    refused = api.client.post("/skills", headers=h, json={"crystal_id": "fz-ep"})
    assert refused.status_code == 409 and "frozen" in refused.json()["detail"]
    v2 = api.client.post(f"/skills/{sid}/versions", headers=h, json={"text": VAULT + " 4. Record the exit price."})
    assert v2.status_code == 201, v2.text
    chain = api.client.get(f"/skills/{sid}", headers=h).json()
    assert [v["skill_version"] for v in chain["versions"]] == [2, 1]
    assert chain["latest"]["previous_version_id"] == "vault" and chain["latest"]["stable_skill_id"] == sid
    assert chain["versions"][1]["deprecated"] is True and chain["latest"]["deprecated"] is False
    assert chain["latest"]["content"].endswith("Record the exit price.")
    assert api.client.post("/crystals/vault/versions", headers=h, json={"text": "x"}).status_code == 422  # old one
    # Deprecated in favour of another skill: out of the list unless asked for.
    dep = api.client.post(f"/skills/{sid}/deprecate", headers=h, json={"replaced_by": owned["router"]})
    assert dep.status_code == 200 and dep.json()["deprecated_by"] == owned["router"]
    listed = {s["stable_skill_id"] for s in api.client.get("/skills", headers=h).json()}
    assert listed == {owned["oracle"], owned["router"]}
    everything = api.client.get("/skills", headers=h, params={"include_deprecated": True}).json()
    assert {s["stable_skill_id"] for s in everything} == {sid, owned["oracle"], owned["router"]}
    assert api.client.get("/skills", headers=h, params={"tag": "chainlink"}).json()[0]["id"] == "oracle"
    assert api.client.post(f"/skills/{sid}/deprecate", headers=h, json={"replaced_by": "skill:nope"}
                           ).status_code == 404


@pytest.mark.parametrize(("perspective", "query", "first"), [
    ("procedural", "steps: open the vault, call withdraw, wait for confirmation", "vault"),
    ("causal", "what causes liquidations to misfire", "oracle"),
    ("entity", "Uniswap SDK and 1inch API", "router"),
])
def test_each_perspective_is_indexed_and_searchable(api: Api, owned, perspective: str, query: str,
                                                    first: str) -> None:
    hits = api.client.get("/skills/search", headers=owned["h"], params={"q": query, "perspective": perspective})
    assert hits.status_code == 200, hits.text
    assert hits.json()[0]["id"] == first
    indexes = {r["name"] for r in api.db.rows("schema/show_vector_indexes")}
    assert {"skill_procedural", "skill_causal", "skill_entity"} <= indexes


def test_price_past_the_quality_gates(api: Api, owned) -> None:
    h, sid = owned["h"], owned["oracle"]
    for success, reward in ((True, 1.0), (False, -1.0)):
        r = api.client.post(f"/skills/{sid}/executions", headers=h, json={"success": success, "reward": reward})
        assert r.status_code == 200, r.text
    listing = r.json()["listing"]
    assert listing["listed"] is False and listing["gates"] == {"executions": False, "success_rate": False}
    r = api.client.post(f"/skills/{sid}/executions", headers=h, json={"success": True, "reward": 1.0})
    listing = r.json()["listing"]
    # 3 executions, 2 successes (0.667 >= 0.6); mean reward 1/3 -> reward score (1/3 + 1)/2 = 0.667;
    # quality 0.667 x 0.667 = 0.444; demand 1 + ln(0 + 0 + 1) x 0.1 = 1; reputation 1; the only "risk"
    # skill: scarcity 1.5. Price 0.01 x 0.444 x 1 x 1 x 1.5 = 0.0066667 USDC.
    assert listing["listed"] is True and listing["success_rate"] == pytest.approx(2 / 3, abs=1e-6)
    assert listing["quality"] == pytest.approx(4 / 9, abs=1e-6) and listing["scarcity"] == 1.5
    assert listing["price_usdc"] == pytest.approx(0.01 * 4 / 9 * 1.5, abs=1e-8)
    assert r.json()["steering_reward"] == pytest.approx(1 / 3)
    # "defi-ops" holds two skills: uncommon (1.2).
    ops = api.client.get(f"/skills/{owned['router']}", headers=h).json()["listing"]
    assert ops["scarcity"] == 1.2 and ops["listed"] is False and ops["price_usdc"] is None
    r = api.client.post(f"/skills/{sid}/executions", headers=h, json={"success": False, "reward": 0.0})
    assert r.json()["listing"]["listed"] is False  # 2 of 4: 50% < 60%
    assert api.client.post(f"/skills/{sid}/executions", headers=h, json={"success": True, "reward": 2}
                           ).status_code == 422


def test_skills_are_what_the_caller_sees(api: Api, owned) -> None:
    stranger = api.headers("sk-z", "clade-z")
    assert api.client.get("/skills", headers=stranger).json() == []
    hits = api.client.get("/skills/search", headers=stranger, params={"q": VAULT, "perspective": "procedural"})
    assert hits.status_code == 200 and hits.json() == []
    assert api.client.get(f"/skills/{owned['vault']}", headers=stranger).status_code == 404
    assert api.client.post(f"/skills/{owned['vault']}/executions", headers=stranger,
                           json={"success": True}).status_code == 404
    # A public skill is everyone's to read; only its owner records its executions.
    r = api.client.post("/entries", headers=owned["h"], json={"id": "pub", "scope": "public", "category": "Heuristic",
                                                               "content": "Keep a gas buffer of ten percent"})
    assert r.json()["outcome"] == "admitted"
    sid = api.client.post("/skills", headers=owned["h"], json={"crystal_id": "pub"}).json()["stable_skill_id"]
    assert [s["id"] for s in api.client.get("/skills", headers=stranger).json()] == ["pub"]
    assert api.client.post(f"/skills/{sid}/executions", headers=stranger, json={"success": True}).status_code == 404


def test_the_openapi_names_the_crystal_routes(api: Api) -> None:
    paths = api.client.get("/openapi.json").json()["paths"]
    for word in ("crystals", "lifecycle", "provenance", "hormones", "skills"):
        assert any(word in p for p in paths), word


def test_an_execution_touches_only_the_callers_skill_whatever_its_id(api: Api) -> None:
    a, b = api.headers("sk-ida", "clade-i"), api.headers("sk-idb", "clade-j")
    sid_a = _skill(api, a, "same", "Hedge the LP range with a put spread", "risk", [])
    assert api.client.post("/episodes", headers=b, json={"id": "same", "type": "observation",
                                                          "text": "1. Open the dashboard. 2. Claim the rewards."}
                           ).status_code == 201
    sid_b = api.client.post("/skills", headers=b, json={"crystal_id": "same"}).json()["stable_skill_id"]
    assert api.client.post(f"/skills/{sid_a}/executions", headers=a, json={"success": True, "reward": 1.0}
                           ).status_code == 200
    assert api.client.get(f"/skills/{sid_a}", headers=a).json()["latest"]["execution_count"] == 1
    assert api.client.get(f"/skills/{sid_b}", headers=b).json()["latest"]["execution_count"] == 0
