"""The console's test world: the demo agent (loaders/demo.py: episodes, entries with a version, causal links,
memories, core memory, a pending reflection, sub-agent proposals with a conflict, alerts, policy revisions,
metric samples) and a second agent in another clade whose knowledge must never show on the first's pages."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from grimoire.graph.db.connection import Database
from grimoire.loaders.demo import Demo, seed
from tests.conftest import ADMIN_KEY

OTHER, OTHER_CLADE = "stranger", "clade-elsewhere"
SECRET = "Stranger's private edge: the Curve pool rebalances every Tuesday at noon."


@dataclass
class World:
    demo: Demo
    other_key: str  # the stranger agent's own key (read, write)
    other_person: str  # the stranger's person key
    secret_entry: str

    @property
    def agent(self) -> str:
        return self.demo.agent_id


def build(client: httpx.Client, db: Database) -> World:
    demo = seed(client, ADMIN_KEY, db=db, days=10, progress=lambda _: None)
    admin = {"X-API-Key": ADMIN_KEY}
    r = client.post("/agents", headers=admin, json={"id": OTHER, "name": OTHER, "kind": "main", "clade": OTHER_CLADE})
    assert r.status_code in (201, 409), r.text
    keys = [client.post(f"/agents/{OTHER}/keys", headers=admin, json={"scopes": scopes}).json()["key"]
            for scopes in (["read", "write"], ["read", "person"])]
    r = client.post("/entries", headers={"X-API-Key": keys[0]}, json={"category": "Insight", "content": SECRET})
    assert r.status_code == 201 and r.json()["entry_id"], r.text
    return World(demo=demo, other_key=keys[0], other_person=keys[1], secret_entry=r.json()["entry_id"])


@contextmanager
def signed_in(client: httpx.Client, key: str) -> Iterator[httpx.Client]:
    """The client with a console session for the key (its cookie), signed out afterwards."""
    r = client.post("/console/sign-in", data={"key": key}, follow_redirects=False)
    assert r.status_code == 303, r.text
    try:
        yield client
    finally:
        client.cookies.clear()
