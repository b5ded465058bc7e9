"""Critical items and alerts (issue 17, point 4; graph/audit/alerts.py, section 12.5): a change to an agent's
identity or critical facts by anyone but a person or an approved reflection raises an alert in the change's own
transaction; a block changed outside the service fails its checksum at start-up and at session start; alerts
come back at every session start until acknowledged."""

from __future__ import annotations

from grimoire.graph.audit import alerts
from tests.conftest import Api

AGENT, CLADE = "guarded", "clade-g"


def start(api: Api, h: dict[str, str]) -> dict:
    r = api.client.post(f"/agents/{AGENT}/sessions", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_non_owner_change_to_a_critical_block_is_returned_at_session_start_until_acknowledged(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    # A person's change (the admin) and the agent's change to a block that is not critical: nothing to flag.
    assert api.client.put(f"/agents/{AGENT}/core/identity", headers=api.admin,
                          json={"content": "- Name: Alex"}).status_code == 200
    api.client.post(f"/agents/{AGENT}/core/context/append", headers=h, json={"text": "- Shipping Friday"})
    assert start(api, h)["alerts"] == []
    # The agent's own key rewrites who the user is: flagged in the same transaction.
    r = api.client.put(f"/agents/{AGENT}/core/identity", headers=h, json={"content": "- Name: Sam"})
    assert r.status_code == 200, r.text
    edit = api.client.get(f"/agents/{AGENT}/audit", headers=h,
                          params={"item": f"{AGENT}:core:identity", "verb": "EDIT"}).json()[0]
    session = start(api, h)
    [alert] = session["alerts"]
    assert (alert["kind"], alert["item"], alert["change_id"]) == ("unauthorized-change", f"{AGENT}:core:identity",
                                                                  edit["id"])
    assert f"bot:{AGENT}" in alert["summary"]
    trail = api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"verb": "ALERT"}).json()
    assert [(r["tag"], r["target_ids"]) for r in trail] == [("system:audit", [f"{AGENT}:core:identity", alert["id"]])]
    assert "| ALERT | " in trail[0]["line"] and "Pending acknowledgment" in trail[0]["line"]
    # returned again at the next start, until someone acknowledges it
    assert [a["id"] for a in start(api, h)["alerts"]] == [alert["id"]]
    # a person's key (or the admin's) acknowledges, never the agent's own key: one rule with MCP and the console
    assert api.client.post(f"/agents/{AGENT}/alerts/{alert['id']}/acknowledge", headers=h).status_code == 403
    r = api.client.post(f"/agents/{AGENT}/alerts/{alert['id']}/acknowledge", headers=person)
    assert r.status_code == 200 and r.json()["acknowledged_by"]
    assert start(api, h)["alerts"] == []
    assert api.client.post(f"/agents/{AGENT}/alerts/{alert['id']}/acknowledge", headers=person).status_code == 409
    assert api.client.post(f"/agents/{AGENT}/alerts/nope/acknowledge", headers=person).status_code == 404
    everything = api.client.get(f"/agents/{AGENT}/alerts", headers=person, params={"all": True}).json()
    assert [a["id"] for a in everything] == [alert["id"]] and everything[0]["acknowledged_at"]
    # pinning a critical fact by the agent is a change to a critical item too
    api.client.post(f"/agents/{AGENT}/core/critical/pin", headers=h, json={"fact": "- Never deploy on Fridays"})
    assert [a["item"] for a in start(api, h)["alerts"]] == [f"{AGENT}:core:critical"]


def test_a_block_changed_outside_the_service_fails_its_checksum(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    api.client.put(f"/agents/{AGENT}/core/identity", headers=api.admin, json={"content": "- Name: Alex"})
    assert alerts.verify(db) == []  # what start-up runs: all in order
    db.run("testing/tamper_block", id=f"{AGENT}:core:identity", content="- Name: Mallory")
    raised = alerts.verify(db)  # start-up
    assert [(a.kind, a.item) for a in raised] == [("checksum-mismatch", f"{AGENT}:core:identity")]
    session = start(api, h)
    assert session["raised"] == 0  # the same mismatch is not raised twice
    assert [a["kind"] for a in session["alerts"]] == ["checksum-mismatch"]
    # acknowledged, the same text is not flagged again (at start-up or session start)
    ack = api.client.post(f"/agents/{AGENT}/alerts/{session['alerts'][0]['id']}/acknowledge", headers=api.admin)
    assert ack.status_code == 200, ack.text
    assert alerts.verify(db) == [] and start(api, h)["alerts"] == []
    # an edit through the service writes a new checksum: the text is known again
    api.client.put(f"/agents/{AGENT}/core/identity", headers=api.admin, json={"content": "- Name: Alex"})
    assert alerts.verify(db) == []


def test_alerts_are_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("intruder", CLADE)
    api.client.put(f"/agents/{AGENT}/core/identity", headers=h, json={"content": "- Name: Sam"})
    [alert] = start(api, h)["alerts"]
    assert api.client.get(f"/agents/{AGENT}/alerts", headers=other).status_code == 403
    assert api.client.post(f"/agents/{AGENT}/sessions", headers=other).status_code == 403
    assert api.client.post(f"/agents/{AGENT}/alerts/{alert['id']}/acknowledge", headers=other).status_code == 403
    reader = api.headers(AGENT, CLADE, scopes=("read",))  # the agent's read-only key sees it, cannot dismiss it
    assert [a["id"] for a in api.client.get(f"/agents/{AGENT}/alerts", headers=reader).json()] == [alert["id"]]
    assert api.client.post(f"/agents/{AGENT}/alerts/{alert['id']}/acknowledge", headers=reader).status_code == 403
    assert api.client.post(f"/agents/intruder/alerts/{alert['id']}/acknowledge", headers=other).status_code == 403
    intruders_person = api.headers("intruder", CLADE, scopes=("read", "person"))  # decides for intruder, not for A
    assert api.client.post(f"/agents/intruder/alerts/{alert['id']}/acknowledge",
                           headers=intruders_person).status_code == 404
    assert api.client.get("/agents/intruder/alerts", headers=other, params={"all": True}).json() == []


def test_an_agents_configuration_changed_outside_the_service_fails_its_checksum(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    assert alerts.verify(db) == []  # every agent registered through the service: in order
    db.run("testing/tamper_agent", id=AGENT, clade="clade-elsewhere")
    raised = alerts.verify(db, AGENT)
    assert [(a.kind, a.item) for a in raised] == [("checksum-mismatch", AGENT)]
    session = start(api, h)
    assert session["raised"] == 0 and [a["item"] for a in session["alerts"]] == [AGENT]
    trail = api.client.get(f"/agents/{AGENT}/audit/critical", headers=h).json()
    assert any(r["verb"] == "ALERT" for item in trail["items"] if item["item"] == AGENT for r in item["records"])
    # put back as the service wrote it: nothing to flag any more
    db.run("testing/tamper_agent", id=AGENT, clade=CLADE)
    assert alerts.verify(db) == []
