"""Console sessions live in the database (graph/console_sessions.py, issue 37 §1): each replica here is its own
app (`create_app` with its own driver, its own memory) on the same database, as separately started processes
are. A browser signed in through one is signed in on every other and after a restart; the database holds the
hashes of the cookie's secret and of the CSRF token and the key's id, never the secret, the token or the key; a
revocation, a sign-out or an idle expiry through one replica ends the session on every other at once."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from tests.conftest import ADMIN_KEY

AGENT = "golem-1"
PAGE = f"/console/agents/{AGENT}/memory"
TOKENS = f"/console/agents/{AGENT}/memory/persona/tokens"  # a post the CSRF check guards (counts tokens)
COOKIE = "grimoire_console"
IDLE_MS = 8 * 3_600_000  # GRIMOIRE_CONSOLE_SESSION_HOURS' default


@contextmanager
def replica(neo4j_server: Any, embedder: Any, admin_key: str = ADMIN_KEY) -> Iterator[TestClient]:
    """One replica of the service: its own app, driver and memory, on the test database."""
    from grimoire.api.app import create_app

    with TestClient(create_app(neo4j_server.settings(admin_key=admin_key), embedder=embedder)) as client:
        yield client


def person_key(client: TestClient) -> tuple[str, str]:
    """A person's key for the agent (made through this replica): the key and its id."""
    admin = {"X-API-Key": ADMIN_KEY}
    r = client.post("/agents", headers=admin, json={"id": AGENT, "name": AGENT, "kind": "main", "clade": "clade-a"})
    assert r.status_code in (201, 409), r.text
    made = client.post(f"/agents/{AGENT}/keys", headers=admin, json={"scopes": ["read", "person"]})
    assert made.status_code == 201, made.text
    return made.json()["key"], made.json()["id"]


def sign_in(client: TestClient, key: str) -> str:
    """The cookie's value a sign-in through this replica sets."""
    r = client.post("/console/sign-in", data={"key": key}, follow_redirects=False)
    assert r.status_code == 303, r.text
    found = re.search(rf"{COOKIE}=([^;]+)", r.headers["set-cookie"])
    assert found
    client.cookies.clear()  # each request below names its cookie itself
    return found.group(1)


def get(client: TestClient, cookie: str, path: str = PAGE) -> Any:
    return client.get(path, headers={"Cookie": f"{COOKIE}={cookie}"}, follow_redirects=False)


def post(client: TestClient, cookie: str, path: str, data: dict[str, str]) -> Any:
    return client.post(path, data=data, headers={"Cookie": f"{COOKIE}={cookie}"}, follow_redirects=False)


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no form token"
    return found.group(1)


def signed_out(r: Any) -> bool:
    return r.status_code == 303 and r.headers["location"].startswith("/console/sign-in")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def stored(db: Database) -> list[dict[str, Any]]:
    return [r["session"] for r in db.run("testing/console_sessions")]


def set_times(db: Database, cookie: str, **times: int) -> None:
    assert db.run("testing/console_session_times", hash=sha256(cookie), times=times), "no such session stored"


def test_a_sign_in_through_one_replica_holds_on_another_and_after_a_restart(db, neo4j_server, embedder) -> None:
    with replica(neo4j_server, embedder) as a, replica(neo4j_server, embedder) as b:
        key, _ = person_key(a)
        cookie = sign_in(a, key)
        page = get(b, cookie)
        assert page.status_code == 200, page.text[:300]
        token = csrf(page.text)
        r = post(b, cookie, TOKENS, {"content": "- Concise", "csrf": token})
        assert r.status_code == 200 and "tokens" in r.text, r.text[:300]
        assert post(b, cookie, TOKENS, {"content": "- Concise", "csrf": "forged"}).status_code == 403
        assert csrf(get(a, cookie).text) == token  # the same form token, whichever replica serves the page
    with replica(neo4j_server, embedder) as c:  # both gone: a restart
        page = get(c, cookie)
        assert page.status_code == 200, page.text[:300]
        assert post(c, cookie, TOKENS, {"content": "- Concise", "csrf": csrf(page.text)}).status_code == 200


def test_the_database_holds_no_session_secret_form_token_or_key(db, neo4j_server, embedder) -> None:
    with replica(neo4j_server, embedder) as a:
        key, key_id = person_key(a)
        cookie = sign_in(a, key)
        token = csrf(get(a, cookie).text)
    [session] = stored(db)
    assert session["hash"] == sha256(cookie) and session["csrf_hash"] == sha256(token)
    assert (session["key_id"], session["agent_id"]) == (key_id, AGENT) and session.get("valid_until") is None
    assert session["valid_from"] == session["last_used_at"] and session["expires_at"] > session["valid_from"]
    secret = key.split("_", 2)[2]
    for marker in (cookie, token, key, secret):
        assert db.run("testing/containing", marker=marker)[0]["found"] == [], marker


def test_revoking_the_key_through_one_replica_ends_its_session_on_another_at_once(db, neo4j_server,
                                                                                  embedder) -> None:
    with replica(neo4j_server, embedder) as a, replica(neo4j_server, embedder) as b:
        key, key_id = person_key(a)
        cookie = sign_in(a, key)
        assert get(a, cookie).status_code == 200
        r = b.delete(f"/keys/{key_id}", headers={"X-API-Key": ADMIN_KEY})
        assert r.status_code == 200, r.text
        assert signed_out(get(a, cookie))
        [session] = stored(db)
        assert session["ended_reason"] == "key revoked" and session["valid_until"] is not None
        [record] = b.get(f"/agents/{AGENT}/audit", headers={"X-API-Key": ADMIN_KEY},
                         params={"item": key_id, "limit": 1}).json()
        assert "ended its 1 console session" in record["summary"]


def test_an_idle_session_ends_and_a_used_one_slides_without_a_write_per_page(db, neo4j_server, embedder) -> None:
    with replica(neo4j_server, embedder) as a, replica(neo4j_server, embedder) as b:
        key, _ = person_key(a)
        cookie = sign_in(a, key)
        [before] = stored(db)
        for client in (a, b, a, b):
            assert get(client, cookie).status_code == 200
        [after] = stored(db)
        assert after == before  # page views within a tenth of the idle time write nothing
        # a tenth of the idle time later (the clock moved back on the node): the next page view slides it
        earlier = now_ms() - IDLE_MS // 10 - 1_000
        set_times(db, cookie, last_used_at=earlier, expires_at=earlier + IDLE_MS)
        assert get(b, cookie).status_code == 200
        [slid] = stored(db)
        assert slid["last_used_at"] > earlier and slid["expires_at"] >= slid["last_used_at"] + IDLE_MS
        set_times(db, cookie, expires_at=now_ms() - 1)  # idle past its expiry
        assert signed_out(get(a, cookie)) and signed_out(get(b, cookie))


def test_signing_out_through_one_replica_ends_the_session_on_another(db, neo4j_server, embedder) -> None:
    with replica(neo4j_server, embedder) as a, replica(neo4j_server, embedder) as b:
        key, key_id = person_key(a)
        cookie = sign_in(a, key)
        token = csrf(get(a, cookie).text)
        assert post(b, cookie, "/console/sign-out", {"csrf": "forged"}).status_code == 403
        assert get(a, cookie).status_code == 200
        assert signed_out(post(b, cookie, "/console/sign-out", {"csrf": token}))
        assert signed_out(get(a, cookie)) and signed_out(get(b, cookie))
        [session] = stored(db)
        assert session["ended_reason"] == "signed out"
        trail = b.get(f"/agents/{AGENT}/audit", headers={"X-API-Key": ADMIN_KEY},
                      params={"item": session["id"]}).json()
        assert [(r["action"], r["channel"], r["actor"]) for r in trail] == [
            ("console.sign_out", "console", key_id), ("console.sign_in", "console", key_id)]
        # the next sign-in deletes the sessions that can never be used again, with one record
        sign_in(b, key)
        assert [s.get("valid_until") for s in stored(db)] == [None]


def test_an_admin_session_outlives_a_restart_only_under_the_same_admin_key(db, neo4j_server, embedder) -> None:
    with replica(neo4j_server, embedder) as a:
        cookie = sign_in(a, ADMIN_KEY)
        assert get(a, cookie, "/console/agents").status_code == 200
    with replica(neo4j_server, embedder, admin_key="another-admin-key-0123456789") as rotated:
        assert signed_out(get(rotated, cookie, "/console/agents"))
    with replica(neo4j_server, embedder) as same:
        assert get(same, cookie, "/console/agents").status_code == 200
    [session] = stored(db)
    assert session["key_id"] == "environment" and ADMIN_KEY not in str(session)
