"""As-known-at reads (issue 36, section 3): an entry edited twice reads, known as of a time, as it was recorded
then — its text, confidence and scope from the version valid then — through every read that takes the time:
retrieval (filters.known_as_of, in each mode that returns entries) and the entries list (known_at)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from grimoire.graph.ids import now_ms
from tests.conftest import Api

ORIGINAL = "Aave WETH borrow rates spike when utilisation crosses the kink"
FIRST = "Aave WETH borrow rates spike when utilisation crosses the eighty percent kink"
SECOND = "Aave WETH borrow rates spike within one block when utilisation crosses the eighty percent kink"


def _tick() -> int:
    """A time strictly between two writes (the service's clock is in milliseconds)."""
    time.sleep(0.01)
    t = now_ms()
    time.sleep(0.01)
    return t


@pytest.fixture(name="history")
def history_fixture(api: Api) -> dict[str, Any]:
    """An entry recorded, edited, voted up and edited again, with a time inside each of its versions."""
    h = api.headers("knower", "clade-k")
    r = api.client.post("/entries", headers=h, json={"id": "kink", "category": "Insight", "scope": "shared",
                                                      "content": ORIGINAL})
    assert r.json()["outcome"] == "admitted", r.text
    t0 = _tick()
    assert api.client.post("/entries/kink/edit", headers=h, json={"content": FIRST}).status_code == 200
    t1 = _tick()
    assert api.client.post("/entries/kink/upvote", headers=h).status_code == 200
    assert api.client.post("/entries/kink/edit", headers=h, json={"content": SECOND}).status_code == 200
    return {"h": h, "t0": t0, "t1": t1}


def _retrieved(api: Api, h: dict[str, str], mode: str, known: int | None) -> list[str]:
    filters: dict[str, Any] = {"kinds": ["entries"]}
    if known is not None:
        filters["known_as_of"] = known
    r = api.client.post("/retrieve", headers=h, json={"text": "Aave WETH borrow rate utilisation kink", "k": 5,
                                                      "mode": mode, "no_budget": True, "filters": filters})
    assert r.status_code == 200, r.text
    return [x["text"] for x in r.json()["results"] if x["id"] == "kink"]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25", "four_factor"])
def test_retrieval_known_as_of_returns_the_version_valid_then(api: Api, history: dict[str, Any], mode: str) -> None:
    h = history["h"]
    assert _retrieved(api, h, mode, history["t0"]) == [ORIGINAL]
    assert _retrieved(api, h, mode, history["t1"]) == [FIRST]
    assert _retrieved(api, h, mode, None) == [SECOND]
    assert _retrieved(api, h, mode, now_ms()) == [SECOND]


def _listed(api: Api, h: dict[str, str], known: int | None) -> dict[str, Any]:
    params = {"known_at": datetime.fromtimestamp(known / 1000, UTC).isoformat()} if known is not None else {}
    r = api.client.get("/entries", headers=h, params=params)
    assert r.status_code == 200, r.text
    return next(e for e in r.json() if e["id"] == "kink")


def test_the_entries_list_known_at_reads_each_version(api: Api, history: dict[str, Any]) -> None:
    h = history["h"]
    then, between, latest = (_listed(api, h, t) for t in (history["t0"], history["t1"], None))
    assert (then["content"], between["content"], latest["content"]) == (ORIGINAL, FIRST, SECOND)
    assert then["confidence"] == between["confidence"]
    assert latest["confidence"] == pytest.approx(between["confidence"] + 0.1)  # the upvote came after t1
    assert {then["scope"], between["scope"], latest["scope"]} == {"shared"}
    # a clade mate reads the same history
    mate = api.headers("knower-mate", "clade-k")
    assert _listed(api, mate, history["t0"])["content"] == ORIGINAL


def test_a_version_the_viewer_could_not_see_then_is_left_out(api: Api) -> None:
    """An entry that was private when first recorded and shared later: a clade mate asking as of before the
    change gets nothing, from retrieval or from the list."""
    h, mate = api.headers("narrow", "clade-n"), api.headers("narrow-mate", "clade-n")
    r = api.client.post("/entries", headers=h, json={"id": "later-shared", "category": "Insight", "scope": "shared",
                                                      "content": ORIGINAL})
    assert r.json()["outcome"] == "admitted", r.text
    t0 = _tick()
    assert api.client.post("/entries/later-shared/edit", headers=h, json={"content": FIRST}).status_code == 200
    # the version valid at t0 says private (as if it had been widened by its owner since)
    api.db.run("testing/set_entry_version_scope", entry_id="later-shared", scope="private")
    assert _retrieved_as(api, mate, "later-shared", t0) == []
    assert _retrieved_as(api, mate, "later-shared", None) == [FIRST]
    assert "later-shared" not in {e["id"] for e in api.client.get("/entries", headers=mate, params={
        "known_at": datetime.fromtimestamp(t0 / 1000, UTC).isoformat()}).json()}
    assert _retrieved_as(api, h, "later-shared", t0) == [ORIGINAL]  # the owner sees its own


def _retrieved_as(api: Api, h: dict[str, str], entry_id: str, known: int | None) -> list[str]:
    filters: dict[str, Any] = {"kinds": ["entries"]}
    if known is not None:
        filters["known_as_of"] = known
    r = api.client.post("/retrieve", headers=h, json={"text": "Aave WETH borrow rate utilisation kink", "k": 10,
                                                      "mode": "vector", "no_budget": True, "filters": filters})
    assert r.status_code == 200, r.text
    return [x["text"] for x in r.json()["results"] if x["id"] == entry_id]
