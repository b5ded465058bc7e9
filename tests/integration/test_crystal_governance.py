"""A crystal's governance in the graph (knowledge-crystals.md, "Governance Model"): its sensitivity tagged on every
write path (episodes, entries, memories) from the patterns of graph/model/crystal/sensitivity.py; a confidential crystal
stored private whatever scope was asked (kept as requested_scope), so it and every private crystal are never
visible to anyone but their owner on any read route — the isolation test's route walk, every GET and the read-like
POSTs, as a clade mate and as a stranger; its lifespan and priority as asked; its crystal fields."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import Api
from tests.integration.test_isolation import NO_AGENT_DATA, READ_ROUTES

SECRETS = {
    "gv-conf-ep": "Deployer note: the api key is sk-live-9f8e7d6c5b4a39281706 for the keeper bot",
    "gv-conf-en": "Rotate the bearer token before the keeper restarts: the access token expires hourly",
    "gv-private": "Private plan: accumulate the Pendle PT position before the unlock window",
}
MARKERS = ("sk-live-9f8e7d6c5b4a39281706", "bearer token before the keeper", "accumulate the Pendle PT position")


@pytest.fixture
def world(api: Api) -> dict[str, Any]:
    owner = api.headers("gv-owner", "clade-g")
    r = api.client.post("/episodes", headers=owner, json={"id": "gv-conf-ep", "scope": "public", "type": "observation",
                                                           "text": SECRETS["gv-conf-ep"]})
    assert r.status_code == 201, r.text
    r = api.client.post("/episodes", headers=owner, json={"id": "gv-private", "scope": "private", "type": "observation",
                                                           "text": SECRETS["gv-private"]})
    assert r.status_code == 201, r.text
    r = api.client.post("/entries", headers=owner, json={"id": "gv-conf-en", "scope": "shared", "category": "Heuristic",
                                                          "content": SECRETS["gv-conf-en"]})
    assert r.json()["outcome"] == "admitted", r.text
    made = api.client.post("/skills", headers=owner, json={"crystal_id": "gv-conf-en", "tags": ["ops"],
                                                            "category": "key-management"})
    assert made.status_code == 201, made.text
    r = api.client.post("/episodes", headers=owner, json={"id": "gv-public", "scope": "public", "type": "observation",
                                                           "text": "Public: Pendle PT yields rose this week"})
    assert r.status_code == 201
    return {"owner": owner, "mate": api.headers("gv-mate", "clade-g"), "stranger": api.headers("gv-far", "clade-h"),
            "stable": made.json()["stable_skill_id"]}


def test_sensitivity_is_tagged_on_every_write_path_and_confidential_is_stored_private(api: Api, world) -> None:
    owner = world["owner"]
    ep, en, pub = (api.client.get(f"/crystals/{i}", headers=owner).json() for i in ("gv-conf-ep", "gv-conf-en",
                                                                                    "gv-public"))
    assert ep["sensitivity"] == "confidential" and ep["scope"] == "private" and ep["requested_scope"] == "public"
    assert en["sensitivity"] == "confidential" and en["scope"] == "private" and en["requested_scope"] == "shared"
    assert pub["sensitivity"] == "normal" and pub["scope"] == "public" and "requested_scope" not in pub
    # A memory said in a message is tagged too; personal content is labelled, not hidden.
    for text, expected in (("Remember that my password is hunter2-horse", "confidential"),
                           ("Remember that I prefer Lido over Rocket Pool for staking", "personal"),
                           ("Remember that Aave v3 runs on Base", "normal")):
        said = api.client.post("/agents/gv-owner/messages", headers=owner, json={"text": text})
        assert said.status_code == 200, said.text
        memory = api.client.get(f"/crystals/{said.json()['memory_id']}", headers=owner).json()
        assert memory["sensitivity"] == expected, (text, memory["sensitivity"])
        assert memory["origin"] == "user_input" and memory["lifecycle"] == "generated"


def test_crystal_fields_map_what_grimoire_keeps(api: Api, world) -> None:
    owner = world["owner"]
    text = "Fixed the keeper bug and shipped the patch; thanks to the team for the help"
    r = api.client.post("/episodes", headers=owner, json={"id": "gv-fields", "type": "conversation", "text": text,
                                                           "governance": {"lifespan": "permanent", "priority": 7}})
    assert r.status_code == 201, r.text
    c = api.client.get("/crystals/gv-fields", headers=owner).json()
    assert (c["semantic_type"], c["origin"], c["epistemic_layer"]) == ("episode", "session", "experience")
    assert (c["lifespan"], c["priority"], c["lifecycle"], c["access_count"]) == ("permanent", 7, "generated", 0)
    # "fixed": reward (+0.3 dopamine); "shipped": achievement (+0.4 dopamine, +0.2 oxytocin); "bug": error (+0.3
    # cortisol); "thanks"/"team"/"help": social (+0.3 oxytocin); a session's baseline +0.1 oxytocin.
    assert c["hormone_dopamine"] == pytest.approx(0.7) and c["hormone_oxytocin"] == pytest.approx(0.6)
    assert c["hormone_cortisol"] == pytest.approx(0.3)
    assert c["emotional_valence"] == pytest.approx((0.7 + 0.6 - 0.3) / 2)
    assert c["importance_score"] == pytest.approx(1 - 2.718281828459045 ** -0.1, abs=1e-6)  # f(0)
    assert c["steering_reward"] == 0.0 and c["is_verified"] is False
    en = api.client.get("/crystals/gv-conf-en", headers=owner).json()
    assert (en["semantic_type"], en["origin"], en["epistemic_layer"]) == ("skill", "inferred", "directive")
    bad = api.client.post("/episodes", headers=owner, json={"type": "observation", "text": "x",
                                                             "governance": {"lifespan": "ttl"}})
    assert bad.status_code == 422 and "ttl_ms" in bad.text


def _fill(path: str, world: dict[str, Any], crystal: str) -> str:
    values = {"agent_id": "gv-owner", "stable_id": world["stable"]}

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        return values.get(name, crystal if name.endswith("_id") or name == "id" else "x")

    return re.sub(r"\{(\w+)\}", one, path)


STREAMS = {"GET /events/stream"}  # never ends under the TestClient: test_events.py reads it over a socket
BODIES = {
    "/search": lambda text: {"text": text, "k": 50},
    "/retrieve": lambda text: {"text": text, "k": 50, "no_budget": True},
    "/admission/dry-run": lambda text: {"category": "Heuristic", "content": text},
    "/topology/k-hop": lambda text: {"seeds": ["x"], "k": 2},
    "/hooks/before_compact": lambda text: {},
    "/analytics/cascade": lambda text: {"entity_id": "x"},
}


@pytest.mark.parametrize("who", ["mate", "stranger"])
def test_confidential_and_private_crystals_never_leak_on_any_read_route(api: Api, world, who: str) -> None:
    h = world[who]
    walked = 0
    for route in sorted(set(READ_ROUTES) - NO_AGENT_DATA - STREAMS):
        method, path = route.split(" ", 1)
        for crystal, text in SECRETS.items():
            url = _fill(path, world, crystal)
            if method == "GET":
                r = api.client.get(url, headers=h, params={"q": text} if "{" not in path else None)
            else:
                body = BODIES.get(path, lambda t: {"text": t})(text)
                r = api.client.post(url, headers=h, json=body)
            walked += 1
            if r.status_code == 422:  # a validation error echoes the caller's own input: no leak
                continue
            for marker in MARKERS:
                assert marker not in r.text, (route, crystal, r.status_code)
            if r.status_code < 300:
                assert crystal not in r.text and world["stable"] not in r.text, (route, crystal)
    assert walked >= 3 * 80
    # The owner does see them (the walk's items exist).
    for crystal in SECRETS:
        assert api.client.get(f"/crystals/{crystal}", headers=world["owner"]).status_code == 200
    hits = api.client.post("/search", headers=world["owner"], json={"text": SECRETS["gv-conf-ep"], "k": 5}).json()
    assert hits[0]["id"] == "gv-conf-ep"
