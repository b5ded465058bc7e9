"""An entry's scope widens only when its owner says so (issue 36, section 1): POST /entries/{id}/scope, by the
owner, a person acting for it or the admin; audited and versioned; a confidential entry is never shared."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.integration

WARNING = "Warning: the WETH oracle on the lending market lags by two blocks during volatile hours"
SECRET = "Warning: the API key sk-live-4f9a8b7c6d5e4f3a2b1c for the price feed must be rotated"


def _entry(api, h, entry_id: str, content: str) -> None:
    r = api.client.post("/entries", headers=h, json={"id": entry_id, "scope": "private", "category": "Warning",
                                                      "content": content})
    assert r.status_code == 201 and r.json()["outcome"] == "admitted", r.text


def test_only_the_owner_widens_a_scope_explicitly_audited_and_versioned(api) -> None:
    a, mate, other = (api.headers("agent-a", "clade-x"), api.headers("agent-m", "clade-x"),
                      api.headers("agent-c", "clade-y"))
    _entry(api, a, "w-1", WARNING)
    assert api.client.get("/entries/w-1", headers=mate).status_code == 404
    # Nobody but the owner sets it: a clade mate cannot even see it, another clade neither.
    assert api.client.post("/entries/w-1/scope", headers=mate, json={"scope": "shared"}).status_code == 404
    assert api.client.post("/entries/w-1/scope", headers=other, json={"scope": "public"}).status_code == 404
    r = api.client.post("/entries/w-1/scope", headers=a, json={"scope": "shared", "reason": "my clade should know"})
    assert r.status_code == 200, r.text
    assert r.json()["revision"] == 2
    assert api.client.get("/entries/w-1", headers=mate).json()["scope"] == "shared"
    assert api.client.get("/entries/w-1", headers=other).status_code == 404
    # A clade mate who now sees it still cannot widen it further.
    assert api.client.post("/entries/w-1/scope", headers=mate, json={"scope": "public"}).status_code == 403
    assert api.client.get("/entries/w-1", headers=other).status_code == 404
    # The earlier scope is a version; the change has its audit record with a revert to private.
    versions = api.client.get("/entries/w-1/versions", headers=a).json()
    assert [v.get("scope") for v in versions] == ["private"], versions
    rec = api.db.rows("testing/audit_by_action", action="entry.scope")
    assert len(rec) == 1 and rec[0]["agent_id"] == "agent-a" and "private -> shared" in rec[0]["summary"]
    assert json.loads(rec[0]["revert"])[0]["before"] == {"scope": "private"}


def test_a_confidential_entry_is_never_shared_not_even_by_its_owner(api) -> None:
    a, mate = api.headers("agent-a", "clade-x"), api.headers("agent-m", "clade-x")
    _entry(api, a, "w-2", SECRET)
    assert api.client.get("/entries/w-2", headers=a).json()["sensitivity"] == "confidential"
    r = api.client.post("/entries/w-2/scope", headers=a, json={"scope": "shared"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json"), r.text
    assert "confidential" in r.json()["detail"]
    assert api.client.get("/entries/w-2", headers=a).json()["scope"] == "private"
    assert api.client.get("/entries/w-2", headers=mate).status_code == 404
    assert api.db.rows("testing/audit_by_action", action="entry.scope") == []
