"""A crystal's fields kept and used (knowledge-crystals.md lines 55-70, 118-121): the curiosity boost set at indexing,
the bounty and verification fields, the provenance chain and peer origin (a fork from a peer grows the chain), the
ripple count the dream path samples beside its dream count, and the governance priority read by retrieval."""

from __future__ import annotations

from grimoire.graph.model.crystal.ripples import ripple_count
from tests.conftest import Api

OWNER, MATE = "golem-1", "golem-2"


def _crystal(api: Api, h: dict[str, str], crystal_id: str) -> dict:
    r = api.client.get(f"/crystals/{crystal_id}", headers=h)
    assert r.status_code == 200, r.text
    body: dict = r.json()
    return body


def test_fields_set_on_write_and_shown(api: Api) -> None:
    owner = api.headers(OWNER, "clade-a")
    made = api.client.post("/episodes", headers=owner, json={
        "id": "ep-1", "type": "observation", "text": "Aave v3 utilisation on USDC crossed 92 percent"})
    assert made.status_code == 201, made.text
    ep = _crystal(api, owner, "ep-1")
    assert (ep["curiosity_boost"], ep["bounty_priority_boost"], ep["is_verified"]) == (0.0, 1.0, False)
    assert ep["provenance_chain"] == [OWNER] and "peer_origin" not in ep and "last_ripple_count" not in ep
    made = api.client.post("/entries", headers=owner, json={
        "id": "en-1", "category": "Insight", "content": "USDC borrow rates on Aave jump once utilisation passes 90"})
    assert made.status_code == 201, made.text
    en = _crystal(api, owner, "en-1")
    # The first entry its owner has: nothing like it, so its curiosity boost (its novelty) is the whole of it.
    assert en["curiosity_boost"] == 1.0 and en["provenance_chain"] == [OWNER]
    peer = api.client.post("/entries", headers=owner, json={
        "id": "en-peer", "category": "Insight", "content": "Lido withdrawals queue for five days after a slashing",
        "provenance": "Clade", "source": {"golem_id": "golem-9"}})
    assert peer.status_code == 201, peer.text
    got = _crystal(api, owner, "en-peer")
    assert (got["peer_origin"], got["provenance_chain"], got["origin"]) == ("golem-9", ["golem-9", OWNER], "peer")
    assert 0.0 <= got["curiosity_boost"] < 1.0


def test_a_fork_from_a_peer_grows_the_provenance_chain(api: Api) -> None:
    owner, mate = api.headers(OWNER, "clade-a"), api.headers(MATE, "clade-a")
    assert api.client.post("/episodes", headers=owner, json={
        "id": "ep-shared", "type": "observation", "scope": "shared",  # the suite's app: the scope as written
        "text": "Morpho vault rebalanced 4M USDC into the Spark market"}).status_code == 201
    forked = api.client.post("/crystals/ep-shared/fork", headers=mate, json={"scope": "private"})
    assert forked.status_code == 201, forked.text
    copy = _crystal(api, mate, forked.json()["id"])
    assert (copy["provenance_chain"], copy["peer_origin"], copy["origin"]) == ([OWNER, MATE], OWNER, "peer")
    assert copy["is_verified"] is False and copy["dream_count"] == 0
    again = api.client.post(f"/crystals/{copy['id']}/fork", headers=mate, json={"scope": "private"}).json()
    assert _crystal(api, mate, again["id"])["provenance_chain"] == [OWNER, MATE]  # its own copy adds no one


def test_the_dream_path_counts_and_samples_ripples(api: Api) -> None:
    owner = api.headers(OWNER, "clade-a")
    assert api.client.post("/entries", headers=owner, json={
        "id": "en-d", "category": "Insight", "content": "Compound liquidations cluster in the hour after CPI prints",
    }).status_code == 201
    for dreams in (1, 2):
        out = api.client.post("/entries/en-d/outcome", headers=owner, json={
            "used_in_decision": False, "outcome": "neutral", "dream_validated": True})
        assert out.status_code == 200, out.text
        c = _crystal(api, owner, "en-d")
        assert c["dream_count"] == dreams and c["last_dreamed_at"] is not None
        assert c["last_ripple_count"] == ripple_count("en-d", dreams) == out.json()["last_ripple_count"]


def test_priority_breaks_a_tie_in_retrieval(api: Api) -> None:
    owner = api.headers(OWNER, "clade-a")
    text = "Uniswap v3 ETH/USDC 5 bps pool fees doubled during the liquidation cascade"
    episodes = [{"id": "ep-a", "type": "observation", "text": text},  # first by id: first without the priority
                {"id": "ep-b", "type": "observation", "text": text, "governance": {"priority": 100}}]
    assert api.client.post("/episodes/batch", headers=owner, json={"episodes": episodes}).status_code == 201
    r = api.client.post("/retrieve", headers=owner, json={"text": text, "k": 2, "no_budget": True,
                                                          "mode": "four_factor", "explain": True})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["id"] for x in results] == ["ep-b", "ep-a"]
    assert [x["explain"]["governance"] for x in results] == [1.02, 1.0]
