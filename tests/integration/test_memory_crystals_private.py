"""Memory crystals never leave the node (knowledge-crystals.md line 6): an episode, preference, relationship, fact or
goal is private whatever scope its writer asks for, and an explicit share of one — a rescope, a fork into a wider
scope — is refused (422, problem details); a strategy package leaves it out, an import never widens it. Knowledge
crystals (skill, task_pattern) and the other types keep the scope they are written with. The rule is the service's
default (GRIMOIRE_CRYSTALS memory_scope=private); `as_written` (the rest of the suite's) keeps the writer's scope."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grimoire.graph.crystals.config import CrystalsConfig
from tests.conftest import ADMIN_KEY, Api
from tests.integration import test_strategy_import as strategy

OWNER, MATE = "golem-1", "golem-2"


@pytest.fixture
def private_api(db, neo4j_server, embedder) -> Iterator[Api]:
    """The service with the document's rule: the default CrystalsConfig."""
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, crystals=CrystalsConfig()), db=db,
                     embedder=embedder)
    with TestClient(app) as c:
        yield Api(c, db)


def _entry(api: Api, h: dict[str, str], entry_id: str, category: str, scope: str, content: str) -> None:
    made = api.client.post("/entries", headers=h, json={"id": entry_id, "category": category, "scope": scope,
                                                        "content": content})
    assert made.status_code == 201 and made.json()["entry_id"] == entry_id, made.text


def _world(api: Api) -> tuple[dict[str, str], dict[str, str]]:
    owner, mate = api.headers(OWNER, "clade-a"), api.headers(MATE, "clade-a")
    made = api.client.post("/episodes", headers=owner, json={
        "id": "ep-shared", "type": "action", "scope": "shared", "tool": "swap",
        "text": "Swapped 2 ETH for USDC on the Uniswap pool at block 19000000"})
    assert made.status_code == 201, made.text
    _entry(api, owner, "warn-public", "Warning", "public", "Never bridge USDC through the Multichain router again")
    _entry(api, owner, "heur-shared", "Heuristic", "shared", "Split swaps above 50 ETH across three blocks")
    _entry(api, owner, "insight-shared", "Insight", "shared", "Curve stETH pool depth halves every Friday night")
    return owner, mate


def test_memory_crystals_are_stored_private_whatever_scope_is_asked(private_api: Api) -> None:
    api = private_api
    owner, mate = _world(api)
    for memory, asked in (("ep-shared", "shared"), ("warn-public", "public")):
        mine = api.client.get(f"/crystals/{memory}", headers=owner).json()
        assert (mine["scope"], mine["requested_scope"]) == ("private", asked), mine
        assert mine["semantic_type"] in ("episode", "fact")
        assert api.client.get(f"/crystals/{memory}", headers=mate).status_code == 404
    assert api.client.get("/episodes/ep-shared", headers=mate).status_code == 404
    assert "warn-public" not in {e["id"] for e in api.client.get("/entries", headers=mate).json()}
    # A knowledge crystal (task_pattern) and an insight keep the scope they were written with.
    for shared in ("heur-shared", "insight-shared"):
        seen = api.client.get(f"/crystals/{shared}", headers=mate)
        assert seen.status_code == 200 and seen.json()["scope"] == "shared", seen.text


def test_the_as_written_setting_keeps_the_writers_scope(api: Api) -> None:
    owner, mate = _world(api)  # the suite's app: memory_scope=as_written
    assert api.client.get("/crystals/ep-shared", headers=mate).json()["scope"] == "shared"
    assert api.client.get("/crystals/warn-public", headers=mate).json()["scope"] == "public"


def test_an_explicit_share_of_a_memory_crystal_is_refused(private_api: Api) -> None:
    api = private_api
    owner, mate = _world(api)
    refused = api.client.post("/entries/warn-public/scope", headers=owner, json={"scope": "shared",
                                                                                 "reason": "tell the clade"})
    assert refused.status_code == 422, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "memory crystal" in refused.json()["detail"]
    forked = api.client.post("/crystals/ep-shared/fork", headers=owner, json={"scope": "public"})
    assert forked.status_code == 422 and "memory crystal" in forked.json()["detail"], forked.text
    # Nothing changed; a private fork (its owner's own copy) is fine, and a knowledge crystal is shared.
    assert api.client.get("/crystals/warn-public", headers=owner).json()["scope"] == "private"
    assert api.client.post("/crystals/ep-shared/fork", headers=owner, json={"scope": "private"}).status_code == 201
    shared = api.client.post("/entries/heur-shared/scope", headers=owner, json={"scope": "public", "reason": "go"})
    assert shared.status_code == 200, shared.text


def test_a_strategy_package_leaves_memory_crystals_out(private_api: Api) -> None:
    h = strategy._owner_world(private_api)
    package = strategy._package(private_api, h["owner"])
    assert package["warnings"] == []  # a warning is a fact: a memory crystal
    packaged = {e["id"] for part in ("heuristics", "warnings", "insights") for e in package[part]}
    assert packaged == {"src-heuristic", "src-insight"}
    assert "src-warning" not in str(package)


def test_an_import_never_widens_a_memory_crystal(api: Api, private_api: Api) -> None:
    owner, mate = _world(api)  # written under as_written: the episode is shared
    exported = api.client.get(f"/agents/{OWNER}/export", headers=owner).text
    assert '"scope": "shared"' in exported
    r = private_api.client.post("/agents/import", headers={**private_api.admin,
                                                           "content-type": "application/x-ndjson"},
                                content=exported)
    assert r.status_code == 200, r.text
    mine = private_api.client.get("/crystals/ep-shared", headers=owner).json()
    assert (mine["scope"], mine["requested_scope"]) == ("private", "shared")
    assert private_api.client.get("/crystals/heur-shared", headers=mate).status_code == 200


def test_a_package_carries_no_causal_links_and_an_import_makes_none(private_api: Api) -> None:
    """A causal link is a fact crystal (a memory crystal): under the private rule it never leaves the node, so the
    package of a strategy whose entries are causally linked exports none, and importing that package creates none
    for the importer. (The links are there to package: under as_written the same package has them.)"""
    from grimoire.graph.learning import strategies
    from grimoire.graph.model.crystal.privacy import MemoryScope
    from grimoire.graph.visibility import Visibility

    api = private_api
    h = strategy._owner_world(api)
    r = api.client.post("/causal/links", headers=h["owner"],
                        json={"links": [{"cause": "src-heuristic", "effect": "src-warning"},
                                        {"cause": "src-insight", "effect": "src-heuristic"}]})
    assert r.status_code == 201, r.text
    assert len(api.db.fetch("testing/causal_links", agent_id=strategy.OWNER)) == 2
    as_written = strategies.package(api.db, strategy.OWNER, strategy.STRATEGY,
                                    Visibility.of(strategy.OWNER, "clade-s"), MemoryScope.as_written)
    assert {(lk["cause"], lk["effect"]) for lk in as_written.causal_links} == {
        ("src-heuristic", "src-warning"), ("src-insight", "src-heuristic")}
    package = strategy._package(api, h["owner"])
    assert package["causal_links"] == []
    assert {e["id"] for part in ("heuristics", "warnings", "insights") for e in package[part]} == {
        "src-heuristic", "src-insight"}
    made = api.client.post(strategy.ROUTE, headers=h["mate"], json={"package": package, "scope": "shared"})
    assert made.status_code == 201, made.text
    assert len(made.json()["admitted"]) == 2
    assert api.db.fetch("testing/causal_links", agent_id=strategy.MATE) == []
    assert len(api.db.fetch("testing/causal_links", agent_id=strategy.OWNER)) == 2  # the owner's own stay
