"""The provenance DAG (knowledge-crystals.md, "Provenance DAG") on a hand-built history of merges, forks and a
mutation: PROVENANCE relationships with actor, time and metadata, several parents for a merge; the derivation
tree to depth 5 and the attribution chain (every distinct actor, breadth first) over REST and from the Browser-ready
Cypher; only what the caller may see."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Api


def _episode(api: Api, h: dict[str, str], eid: str, scope: str = "public") -> None:
    r = api.client.post("/episodes", headers=h, json={"id": eid, "scope": scope, "type": "observation",
                                                       "text": f"observation {eid} on the Morpho vault"})
    assert r.status_code == 201, r.text


def _ok(r: Any, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.fixture
def history(api: Api) -> dict[str, Any]:
    """A writes x1, x2, x3 and merges x2 and x3 into x1; B forks x1 (y1, public), freezes it and changes it (y2,
    mutated); C forks y2 (z1). And B forks x1 privately (p1), which C forks nothing of."""
    a, b, c = api.headers("pv-a", "clade-p"), api.headers("pv-b", "clade-q"), api.headers("pv-c", "clade-r")
    for eid in ("x1", "x2", "x3"):
        _episode(api, a, eid)
    for loser in ("x2", "x3"):
        _ok(api.client.post(f"/crystals/{loser}/lifecycle", headers=a, json={"to": "activated"}))
    merged = _ok(api.client.post("/crystals/merge", headers=a, json={"winner_id": "x1", "loser_ids": ["x2", "x3"],
                                                                      "reason": "same vault event"}))
    y1 = _ok(api.client.post("/crystals/x1/fork", headers=b, json={"scope": "public", "metadata": {"why": "study"}}),
             201)["id"]
    _ok(api.client.post(f"/crystals/{y1}/lifecycle", headers=b, json={"to": "frozen"}))
    y2 = _ok(api.client.post(f"/crystals/{y1}/versions", headers=b, json={"text": "the vault event, restated"}),
             201)["id"]
    z1 = _ok(api.client.post(f"/crystals/{y2}/fork", headers=c, json={"scope": "private"}), 201)["id"]
    return {"a": a, "b": b, "c": c, "y1": y1, "y2": y2, "z1": z1, "merged_at": merged["at"]}


def test_a_merge_has_many_parents_and_the_tree_and_chain_follow_the_history(api: Api, history) -> None:
    c, y1, y2, z1 = history["c"], history["y1"], history["y2"], history["z1"]
    x1, x2 = (api.client.get(f"/crystals/{i}", headers=history["a"], params={"include_archived": True}).json()
              for i in ("x1", "x2"))
    assert x1["lifecycle"] == "consolidated" and x2["lifecycle"] == "archived" and x2["parent_id"] == "x1"
    tree = _ok(api.client.get(f"/crystals/{z1}/provenance/tree", headers=c))

    def shape(node: dict[str, Any]) -> tuple[Any, ...]:
        return (node["crystal_id"], node["operation"], node["actor"], tuple(shape(p) for p in node["parents"]))

    assert shape(tree) == (z1, "forked", "pv-c", (
        (y2, "mutated", "pv-b", (
            (y1, "forked", "pv-b", (
                ("x1", "merged", "pv-a", (("x2", "created", "pv-a", ()), ("x3", "created", "pv-a", ()))),)),)),))
    nodes = {n["crystal_id"]: n for n in _ok(api.client.get(f"/crystals/{z1}/provenance", headers=c))}
    assert sorted(nodes["x1"]["parent_ids"]) == ["x2", "x3"]
    assert nodes["x1"]["timestamp"] == history["merged_at"]
    assert nodes["x1"]["metadata"] == {"cosine": None, "by_hash": False}
    assert nodes[y1]["metadata"] == {"why": "study"} and nodes[y2]["metadata"] == {"reason": "changed"}
    assert nodes["x2"]["timestamp"] == api.client.get("/crystals/x2", headers=c,
                                                      params={"include_archived": True}).json()["recorded_at"]
    chain = _ok(api.client.get(f"/crystals/{z1}/provenance/attribution", headers=c))["actors"]
    assert chain == ["pv-c", "pv-b", "pv-a"]
    # The same lineage from the Browser-ready statement.
    rows = api.db.rows("crystals/lineage", id=z1, depth=5, viewer="pv-c", clade="clade-r", admin=False)
    assert sorted(r["id"] for r in rows) == sorted([z1, y2, y1, "x1", "x2", "x3"])
    assert {r["id"]: r["depth"] for r in rows}["x3"] == 4
    # An agent's export keeps its crystals' lineage.
    lines = [json.loads(x) for x in api.client.get("/agents/pv-b/export", headers=history["b"]).text.splitlines()]
    lineage = {(r["from"], r["to"]) for r in lines if r["record"] == "relationship" and r["type"] == "PROVENANCE"}
    assert lineage == {(y1, "x1"), (y2, y1)}


def test_the_tree_stops_at_depth_five(api: Api) -> None:
    h = api.headers("pv-deep")
    _episode(api, h, "f0")
    ids = ["f0"]
    for _ in range(7):
        ids.append(_ok(api.client.post(f"/crystals/{ids[-1]}/fork", headers=h, json={"scope": "public"}), 201)["id"])
    nodes = _ok(api.client.get(f"/crystals/{ids[-1]}/provenance", headers=h))
    assert [n["crystal_id"] for n in nodes] == list(reversed(ids))[:6]  # the crystal and five generations
    assert nodes[-1]["parent_ids"] == []                                # the fifth's parent is past the depth
    tree = _ok(api.client.get(f"/crystals/{ids[-1]}/provenance/tree", headers=h, params={"depth": 2}))
    assert tree["parents"][0]["parents"][0]["crystal_id"] == ids[-3]
    assert tree["parents"][0]["parents"][0]["parents"] == []
    assert api.client.get(f"/crystals/{ids[-1]}/provenance", headers=h, params={"depth": 6}).status_code == 422


def test_lineage_is_what_the_caller_sees(api: Api, history) -> None:
    b, c, y1, y2, z1 = history["b"], history["c"], history["y1"], history["y2"], history["z1"]
    # A private fork's lineage is its owner's; the public one is everyone's.
    stranger = api.headers("pv-d", "clade-s")
    for path in (f"/crystals/{z1}", f"/crystals/{z1}/provenance", f"/crystals/{z1}/provenance/tree",
                 f"/crystals/{z1}/provenance/attribution"):
        assert api.client.get(path, headers=stranger).status_code == 404, path  # C's private fork
        assert api.client.get(path, headers=b).status_code == 404, path
    private = _ok(api.client.post("/crystals/x1/fork", headers=b, json={"scope": "private"}), 201)["id"]
    assert api.client.get(f"/crystals/{private}/provenance", headers=c).status_code == 404
    seen = [n["crystal_id"] for n in _ok(api.client.get(f"/crystals/{y2}/provenance", headers=stranger))]
    assert seen == [y2, y1, "x1", "x2", "x3"]  # all public: the stranger sees the public lineage
    assert private not in str(_ok(api.client.get("/crystals/x1/provenance", headers=stranger)))
    assert api.client.get("/crystals/nope/provenance/tree", headers=b).status_code == 404
