"""Logs a person can follow: every record of a request carries its request id (also from the
retrieval's worker threads), the id comes back in `X-Request-ID`, and slow Cypher statements are
logged with their name and duration."""

from __future__ import annotations

import logging

import pytest

from grimoire.graph import logs


@pytest.fixture
def slow_everything(api):
    """Every statement counts as slow (threshold 0 ms) for this test only."""
    before = api.db.slow_ms
    api.db.slow_ms = 0.0
    yield api
    api.db.slow_ms = before


def _slow(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == "grimoire.graph.db.connection" and r.getMessage().startswith("slow cypher")]


def test_a_given_request_id_is_returned_and_carried_into_the_logs(slow_everything, caplog) -> None:
    api = slow_everything
    h = api.headers("golem-1")
    weth = [{"kind": "Token", "name": "WETH"}]
    episode = {"type": "observation", "text": "WETH borrow rate spiked", "mentions": weth}
    assert api.client.post("/episodes", headers=h, json=episode).status_code == 201
    api.drain = False  # its mentions are in; no enrichment after the retrieval logs beside its request
    with caplog.at_level(logging.WARNING, logger="grimoire.graph"):
        caplog.clear()  # only this request's records
        r = api.client.post("/retrieve", headers={**h, "X-Request-ID": "trace-42.a"}, json={"text": "WETH borrow"})
    assert r.status_code == 200 and r.headers["x-request-id"] == "trace-42.a"
    # A periodic read the request happened to start ahead of time (graph/timed.py: hormones, the key) runs on the
    # read-ahead pool in a context of its own: not this request's work, so not under its id.
    ahead = [r for r in _slow(caplog) if r.threadName.startswith("timed-ahead")]
    assert all(r.request_id == "-" for r in ahead), {r.request_id for r in ahead}
    slow = [r for r in _slow(caplog) if not r.threadName.startswith("timed-ahead")]
    names = {r.getMessage().split(":")[0].removeprefix("slow cypher ") for r in slow}
    # The statements of a hybrid retrieval, by name, including those run on the worker threads (a reach this
    # small is ranked exactly from the replica's held vectors: graph/retrieval/exact.py).
    assert {"retrieval/visible_count", "retrieval/members_fulltext", "retrieval/entity_candidates"} <= names, names
    assert all(r.request_id == "trace-42.a" for r in slow), {r.request_id for r in slow}
    assert all(r.getMessage().endswith(" ms") for r in slow)


def test_each_request_gets_its_own_id_when_none_or_a_bad_one_is_given(slow_everything, caplog) -> None:
    api = slow_everything
    h = api.headers("golem-1")
    with caplog.at_level(logging.WARNING, logger="grimoire.graph"):
        caplog.clear()
        first = api.client.get("/episodes", headers=h)
        second = api.client.get("/episodes", headers={**h, "X-Request-ID": "not a plain id;"})
    ids = [first.headers["x-request-id"], second.headers["x-request-id"]]
    assert len(set(ids)) == 2 and all(len(i) == 32 for i in ids)
    assert {r.request_id for r in _slow(caplog)} == set(ids)
    assert logs.request_id.get() == logs.NO_REQUEST  # nothing leaks out of a request


def test_fast_statements_are_not_logged(api, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="grimoire.graph"):
        api.db.slow_ms, before = 60_000.0, api.db.slow_ms
        try:
            assert api.client.get("/episodes", headers=api.headers("golem-1")).status_code == 200
        finally:
            api.db.slow_ms = before
    assert _slow(caplog) == []


def test_the_level_comes_from_settings(neo4j_server) -> None:
    from grimoire.api.app import create_app

    try:
        create_app(neo4j_server.settings(log_level="WARNING"))
        assert {logging.getLogger(n).level for n in logs.PACKAGES} == {logging.WARNING}
        record = logging.getLogger("grimoire.graph.x").makeRecord("grimoire.graph.x", logging.INFO, __file__, 1, "m",
                                                                  (), None)
        assert record.request_id == logs.NO_REQUEST  # every record carries the field the format names
    finally:
        logs.configure("INFO")
