"""Principals and keys: every endpoint but /health needs a key; scopes are enforced."""

from __future__ import annotations

import re

import pytest

from tests.conftest import counts

OPEN = {"/health", "/docs", "/docs/oauth2-redirect", "/openapi.json", "/redoc"}


def _operations(client) -> list[tuple[str, str]]:
    spec = client.get("/openapi.json").json()
    return [(method.upper(), re.sub(r"\{[^}]+\}", "x", path))
            for path, ops in spec["paths"].items() if path not in OPEN for method in ops]


def test_every_endpoint_but_health_requires_a_key(api) -> None:
    ops = _operations(api.client)
    assert len(ops) >= 20
    for method, path in ops:
        r = api.client.request(method, path, json={})
        assert r.status_code == 401, (method, path, r.status_code, r.text)
        assert "API key" in r.json()["detail"]
        bad = api.client.request(method, path, json={}, headers={"X-API-Key": "gk_0000_nope"})
        assert bad.status_code == 401, (method, path)
    assert api.client.get("/health").status_code == 200


def test_keys_are_stored_hashed_shown_once_and_revocable(api, db) -> None:
    made = api.client.post("/agents", headers=api.admin, json={"id": "k-agent", "name": "K", "clade": "c"})
    assert made.status_code == 201
    key = api.client.post("/agents/k-agent/keys", headers=api.admin, json={"scopes": ["read"]}).json()
    raw, key_id = key["key"], key["id"]
    secret = raw.split("_", 2)[2]
    stored = db.run("agents/find_key", id=key_id)[0]["key"]
    assert secret not in str(stored) and stored["hash"] != secret and len(stored["hash"]) == 64
    listed = api.client.get("/agents/k-agent/keys", headers={"X-API-Key": raw}).json()
    assert [k["id"] for k in listed] == [key_id] and all(k["key"] is None for k in listed)
    assert api.client.get("/agents/me", headers={"X-API-Key": raw}).json()["agent"]["id"] == "k-agent"
    assert api.client.delete(f"/keys/{key_id}", headers={"X-API-Key": raw}).status_code == 200
    assert api.client.get("/agents/me", headers={"X-API-Key": raw}).status_code == 401  # at once
    assert api.client.post("/agents", headers=api.admin,
                           json={"id": "k-agent", "name": "again", "clade": "c"}).status_code == 409


def test_bearer_header_works_too(api) -> None:
    raw = api.headers("bearer-agent")["X-API-Key"]
    r = api.client.get("/agents/me", headers={"Authorization": f"Bearer {raw}"})
    assert r.status_code == 200 and r.json()["agent"]["id"] == "bearer-agent"


@pytest.mark.parametrize(("scopes", "write_status"), [(("read",), 403), (("propose",), 403),
                                                       (("read", "write"), 201)])
def test_scopes(api, db, scopes, write_status) -> None:
    headers = api.headers("scoped", scopes=scopes, kind="sub" if scopes == ("propose",) else "main") \
        if scopes != ("propose",) else None
    if headers is None:  # a sub-agent needs its main agent
        api.headers("main-of-sub")
        api.client.post("/agents", headers=api.admin, json={"id": "sub-1", "name": "sub", "kind": "sub",
                                                            "clade": "clade-a", "parent_id": "main-of-sub"})
        key = api.client.post("/agents/sub-1/keys", headers=api.admin, json={"scopes": ["propose"]}).json()
        headers = {"X-API-Key": key["key"]}
    before = counts(db).get("Episode", 0)
    r = api.client.post("/episodes", headers=headers, json={"type": "observation", "text": "ETH 3000"})
    assert r.status_code == write_status, r.text
    if write_status == 403:
        assert "scope" in r.json()["detail"]
        assert counts(db).get("Episode", 0) == before
    if scopes == ("propose",):
        assert "propose-only" in r.json()["detail"]
    assert api.client.post("/agents", headers=headers, json={"id": "z", "name": "z", "clade": "c"}).status_code == 403


def test_an_agent_writes_only_its_own_items(api) -> None:
    mine = api.headers("writer-a")
    r = api.client.post("/episodes", headers=mine, json={"agent_id": "someone-else", "type": "observation",
                                                          "text": "not mine"})
    assert r.status_code == 403
    admin_needs_owner = api.client.post("/episodes", headers=api.admin, json={"type": "observation", "text": "x"})
    assert admin_needs_owner.status_code == 422
    admin_for_agent = api.client.post("/episodes", headers=api.admin,
                                      json={"agent_id": "writer-a", "type": "observation", "text": "on behalf"})
    assert admin_for_agent.status_code == 201


def test_sub_agent_needs_an_existing_main_agent(api) -> None:
    r = api.client.post("/agents", headers=api.admin, json={"id": "orphan", "name": "o", "kind": "sub", "clade": "c"})
    assert r.status_code == 422 and "parent_id" in r.text


def test_a_held_keys_retrieval_makes_one_hop_to_a_worker_thread(api, monkeypatch) -> None:
    """Issue 41: the key check, the service lookups and the check of the result run on the event loop (FastAPI runs a
    plain `def` dependency on a worker thread, and checks a plain `def` route's result on another hop), the
    retrieval on one worker thread; a key the cache does not hold is still looked up on a worker thread."""
    import anyio.to_thread

    hops: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):  # type: ignore[no-untyped-def]
        inner = getattr(func, "func", func)  # starlette's run_in_threadpool hands a partial
        hops.append(getattr(inner, "__name__", repr(inner)))
        return await run_sync(func, *args, **kwargs)

    headers = api.headers("golem-1")
    body = {"text": "what did the oracle say", "k": 3}
    assert api.client.post("/retrieve", headers=headers, json=body).status_code == 200  # the key read and held
    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    assert api.client.post("/retrieve", headers=headers, json=body).status_code == 200
    assert hops == ["retrieve"]  # the retrieval alone
    api.client.app.state.key_cache.clear()
    hops.clear()
    assert api.client.post("/retrieve", headers=headers, json=body).status_code == 200
    assert "looked_up" in hops and hops[-1] == "retrieve"  # not held: looked up off the loop (by the admission)


def test_a_key_the_cache_misses_is_one_auth_span_its_lookup_within(api, recorder) -> None:
    """A miss opened the span twice (the admission's lookup or the route's, then the route's check): counted twice
    in traces and metrics. Now one span (the route's), the key read once; a held key is one span too."""
    headers = api.headers("golem-1")
    api.client.app.state.key_cache.clear()
    recorder.timings.clear()
    assert api.client.post("/retrieve", headers=headers, json={"text": "oracle", "k": 3}).status_code == 200
    assert len([t for t in recorder.of("auth") if t.name == "api_key"]) == 1
    assert len([t for t in recorder.of("cypher") if t.name == "agents/find_key"]) == 1
    recorder.timings.clear()
    assert api.client.post("/retrieve", headers=headers, json={"text": "oracle", "k": 3}).status_code == 200
    assert len([t for t in recorder.of("auth") if t.name == "api_key"]) == 1
    assert not [t for t in recorder.of("cypher") if t.name == "agents/find_key"]  # held: not read again
