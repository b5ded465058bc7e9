"""Authority and scope (issue 36, sections 5 and 6): who may read an owner's address, supersede, invalidate or
learn of a fact, revoke a key, propose, decide and acknowledge; what a time may be; what a list carries; how long
a stream outlives its key. Each case is played by agents of one clade, of another clade, sub-agents and people."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import ADMIN_KEY, Api, served

CLADE, OTHER = "clade-x", "clade-y"
ADDRESS = "0x" + "ab" * 20
YEAR_10000_MS = 253_402_300_800_000 + 14 * 3_600_000  # 9999-12-31T23:59:59-14:00, stored before inputs were bounded


def _sub(api: Api, name: str, parent: str, scopes: tuple[str, ...] = ("propose",)) -> dict[str, str]:
    r = api.client.post("/agents", headers=api.admin,
                        json={"id": name, "name": name, "kind": "sub", "parent_id": parent, "clade": CLADE})
    assert r.status_code in (201, 409), r.text
    return api.headers(name, CLADE, scopes=scopes)


def _person(api: Api, agent: str, clade: str = CLADE) -> dict[str, str]:
    return api.headers(agent, clade, scopes=("read", "person"))


# ---------------------------------------------------------------- source_owner_address (seed 000, Lethe)


def test_the_owners_address_is_read_only_by_the_owner_its_person_and_the_admin(api: Api) -> None:
    owner, mate, stranger = api.headers("addr-a", CLADE), api.headers("addr-b", CLADE), api.headers("addr-c", OTHER)
    r = api.client.post("/entries", headers=owner, json={
        "id": "addr-e", "category": "Insight", "scope": "public", "source": {"owner_address": ADDRESS},
        "content": "Aave v3 liquidations cluster in the hour after a Chainlink heartbeat lapses."})
    assert r.status_code == 201 and r.json()["outcome"] == "admitted", r.text
    for h in (owner, _person(api, "addr-a"), api.admin):
        assert api.client.get("/entries/addr-e", headers=h).json()["source_owner_address"] == ADDRESS
        assert api.client.get("/crystals/addr-e", headers=h).json()["source_owner_address"] == ADDRESS
    for h in (mate, stranger):
        one = api.client.get("/entries/addr-e", headers=h)
        assert one.status_code == 200 and "source_owner_address" not in one.json()
        listed = api.client.get("/entries", headers=h, params={"agent_id": "addr-a"}).json()
        assert [e["id"] for e in listed] == ["addr-e"] and "source_owner_address" not in listed[0]
        crystal = api.client.get("/crystals/addr-e", headers=h)
        assert crystal.status_code == 200 and "source_owner_address" not in crystal.json()
        assert ADDRESS not in api.client.get("/entries/addr-e/versions", headers=h).text


# ---------------------------------------------------------------- facts: supersede, invalidate, answers


R = "reserve:x usdc"
O1, O2, O3, O4, O5, O6, O7 = (f"oracle:x {n}" for n in range(1, 8))


@pytest.fixture
def reserve(api: Api) -> Api:
    ents = [{"kind": "Reserve", "name": "X USDC"}, *({"kind": "Oracle", "name": f"x {n}"} for n in range(1, 8))]
    r = api.client.post("/entities", headers=api.admin, json={"entities": ents})  # the admin's: public
    assert r.status_code == 201 and r.json()["ids"] == [R, O1, O2, O3, O4, O5, O6, O7], r.text
    return api


def _fact(fid: str | None, obj: str, block: int, scope: str = "private") -> dict[str, Any]:
    body = {"subject": R, "predicate": "OracleDependency", "object": obj, "valid_from": block, "scope": scope}
    return body if fid is None else {"id": fid, **body}


def _assert(api: Api, h: dict[str, str], *facts: dict[str, Any]) -> dict[str, Any]:
    r = api.client.post("/facts", headers=h, json={"facts": list(facts)})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _open(api: Api, h: dict[str, str], fid: str) -> bool:
    """Whether the fact's first version is still believed, and valid without end."""
    versions = api.client.get(f"/facts/{fid}", headers=h).json()
    return any(v["version"] == 1 and v["expired_at"] is None for v in versions) and \
        all(v["valid_to"] is None for v in versions if v["expired_at"] is None)


def _oracles(api: Api, h: dict[str, str]) -> set[str]:
    got = api.client.get(f"/entities/{quote(R)}/facts", headers=h, params={"predicate": "OracleDependency"}).json()
    return {f["fact_id"] for f in got if f["valid_to"] is None}


def test_a_write_supersedes_only_its_writers_facts(reserve: Api) -> None:
    api = reserve
    a, mate, other = api.headers("fx-a", CLADE), api.headers("fx-b", CLADE), api.headers("fx-c", OTHER)
    _assert(api, api.admin, _fact("f-world", O1, 100, "public"))
    _assert(api, a, _fact("f-a-shared", O3, 150, "shared"))
    assert _assert(api, a, _fact("f-a-private", O2, 160))["closed"] == 0  # private: its own shared one is wider
    # another clade's exclusive assertion closes nothing of A's (nor the world's)
    assert _assert(api, other, _fact("f-c", O4, 200, "public"))["created"] == ["f-c"]
    # a clade mate's shared assertion closes nothing of A's
    assert _assert(api, mate, _fact("f-b", O5, 210, "shared"))["closed"] == 0
    assert _open(api, a, "f-a-private") and _open(api, a, "f-a-shared") and _open(api, api.admin, "f-world")
    # an agent's private assertion does not close the admin's world fact, for anyone
    assert _assert(api, a, _fact("f-a-late", O6, 300))["closed"] == 1  # its own private one only
    assert not _open(api, a, "f-a-private") and _open(api, a, "f-a-shared")  # the shared one is wider: kept
    for h in (mate, other, api.admin):
        assert "f-world" in _oracles(api, h)
    assert "f-a-shared" in _oracles(api, mate)
    # the admin's world fact supersedes the world's, and no agent's
    assert _assert(api, api.admin, _fact("f-world-2", O7, 400, "public"))["closed"] == 1
    assert not _open(api, api.admin, "f-world")
    assert _open(api, other, "f-c") and _open(api, mate, "f-b") and _open(api, a, "f-a-shared")


def test_only_the_owner_its_person_or_the_admin_invalidates_a_fact(reserve: Api) -> None:
    api = reserve
    a, mate, other = api.headers("fi-a", CLADE), api.headers("fi-b", CLADE), api.headers("fi-c", OTHER)
    _assert(api, api.admin, _fact("fi-world", O1, 100, "public"))
    _assert(api, a, {**_fact("fi-public", O2, 100, "public"), "exclusive": False},
            {**_fact("fi-shared", O3, 100, "shared"), "exclusive": False})

    def invalidate(h: dict[str, str], fid: str) -> int:
        return api.client.post(f"/facts/{fid}/invalidate", headers=h, json={"at_block": 500}).status_code

    assert invalidate(other, "fi-public") == 404 and invalidate(other, "fi-world") == 404
    assert invalidate(mate, "fi-shared") == 404 and invalidate(mate, "fi-world") == 404
    assert invalidate(a, "fi-world") == 404
    assert invalidate(_sub(api, "fi-a-sub", "fi-a", ("read", "write")), "fi-public") == 404  # a sub-agent is not A
    assert invalidate(api.headers("fi-a", CLADE, scopes=("read",)), "fi-public") == 403  # reads only
    assert _open(api, other, "fi-public") and _open(api, mate, "fi-shared") and _open(api, a, "fi-world")
    assert invalidate(_person(api, "fi-a"), "fi-public") == 200
    assert invalidate(a, "fi-shared") == 200
    assert invalidate(api.admin, "fi-world") == 200
    assert not any(_open(api, api.admin, f) for f in ("fi-public", "fi-shared", "fi-world"))


def test_post_facts_answers_the_same_whatever_the_caller_cannot_see(reserve: Api) -> None:
    api = reserve
    a, mate, other = api.headers("fa-a", CLADE), api.headers("fa-b", CLADE), api.headers("fa-c", OTHER)
    hidden = _assert(api, a, {**_fact(None, O1, 100), "exclusive": False})  # private, no id: derived
    assert len(hidden["created"]) == 1
    for h in (mate, other):  # the same triple, unseen: created as theirs, like a triple nobody holds
        held = _assert(api, h, {**_fact(None, O1, 100), "exclusive": False})
        fresh = _assert(api, h, {**_fact(None, O2, 100), "exclusive": False})
        assert (len(held["created"]), held["unchanged"], held["reinforced"]) == (1, [], [])
        assert (len(fresh["created"]), fresh["unchanged"], fresh["reinforced"]) == (1, [], [])
        assert held["created"] != hidden["created"]
        assert api.client.get(f"/facts/{held['created'][0]}", headers=h).status_code == 200
    assert api.client.get(f"/facts/{hidden['created'][0]}", headers=other).status_code == 404
    # asserted again by its own writer, a fact is unchanged
    again = _assert(api, a, {**_fact(None, O1, 100), "exclusive": False})
    assert (again["created"], again["unchanged"]) == ([], hidden["created"])


# ---------------------------------------------------------------- keys


def test_a_key_revokes_only_keys_of_no_more_authority(api: Api) -> None:
    reader = api.headers("kr-a", CLADE, scopes=("read",))
    writer = api.headers("kr-a", CLADE)
    person = _person(api, "kr-a")
    keys = {tuple(k["scopes"]): k["id"] for k in api.client.get("/agents/kr-a/keys", headers=person).json()}
    person_key, writer_key = keys[("person", "read")], keys[("read", "write")]
    assert api.client.delete(f"/keys/{person_key}", headers=reader).status_code == 403
    assert api.client.delete(f"/keys/{person_key}", headers=writer).status_code == 403
    assert api.client.delete(f"/keys/{writer_key}", headers=reader).status_code == 403
    assert api.client.get("/agents/me", headers=person).status_code == 200  # still holds
    other_reader = api.headers("kr-b", CLADE, scopes=("read",))
    assert api.client.delete(f"/keys/{keys[('read',)]}", headers=other_reader).status_code == 404  # not its own
    assert api.client.delete(f"/keys/{writer_key}", headers=person).status_code == 200  # more authority: may
    assert api.client.get("/agents/me", headers=writer).status_code == 401
    assert api.client.delete(f"/keys/{keys[('read',)]}", headers=reader).status_code == 200  # itself: the same
    assert api.client.delete(f"/keys/{person_key}", headers=api.admin).status_code == 200


# ---------------------------------------------------------------- proposals and alerts: who proposes, who decides


def test_a_propose_only_key_proposes_and_a_person_decides(api: Api) -> None:
    main = api.headers("pr-main", CLADE)
    person = _person(api, "pr-main")
    one, two = _sub(api, "pr-one", "pr-main"), _sub(api, "pr-two", "pr-main")
    first = api.client.post("/agents/pr-main/proposals", headers=one,
                            json={"content": "Project deadline is March 15", "confidence": "medium"})
    assert first.status_code == 201, first.text
    second = api.client.post("/agents/pr-main/proposals", headers=two,
                             json={"content": "Project deadline is March 30", "confidence": "medium"})
    assert second.status_code == 201, second.text
    # flagged, but the other sub-agent's proposal id is not shown to it, proposed or listed
    assert second.json()["status"] == "conflict" and first.json()["id"] not in second.text
    listed = api.client.get("/agents/pr-main/proposals", headers=_sub(api, "pr-two", "pr-main", ("read", "propose")))
    assert listed.status_code == 200 and first.json()["id"] not in listed.text
    assert [p["conflicts_with"] for p in listed.json()] == [[]]
    by_main = {p["id"]: p for p in api.client.get("/agents/pr-main/proposals", headers=person).json()}
    assert by_main[second.json()["id"]]["conflicts_with"] == [first.json()["id"]]
    # the main agent's own key decides nothing; its person (or the admin) decides
    pid = first.json()["id"]
    assert api.client.post(f"/agents/pr-main/proposals/{pid}/decision", headers=main,
                           json={"decision": "commit"}).status_code == 403
    assert api.client.post(f"/agents/pr-main/proposals/{pid}/decision", headers=one,
                           json={"decision": "commit"}).status_code == 403
    r = api.client.post(f"/agents/pr-main/proposals/{pid}/decision", headers=person, json={"decision": "commit"})
    assert r.status_code == 200 and r.json()["status"] == "committed", r.text
    r = api.client.post(f"/agents/pr-main/proposals/{second.json()['id']}/decision", headers=api.admin,
                        json={"decision": "reject"})
    assert r.status_code == 200 and r.json()["status"] == "rejected", r.text


# ---------------------------------------------------------------- a sub-agent reads its main agent's memory


def test_a_sub_agent_reads_its_main_agents_memory_and_only_proposes(api: Api) -> None:
    main = api.headers("sr-main", CLADE)
    r = api.client.post("/agents/sr-main/messages", headers=main,
                        json={"text": "remember that I prefer low-risk pools"})
    assert r.status_code == 200, r.text
    assert api.client.put("/agents/sr-main/core/context", headers=main,
                          json={"content": "- Shipping the vault migration Friday"}).status_code == 200
    scout = _sub(api, "sr-scout", "sr-main", ("read", "propose"))
    api.headers("sr-other-main", CLADE)
    stranger_sub = _sub(api, "sr-other-scout", "sr-other-main", ("read", "propose"))
    mate = api.headers("sr-mate", CLADE)
    reads = ("/agents/sr-main/core", "/agents/sr-main/core/memory.md", "/agents/sr-main/core/context/versions",
             "/agents/sr-main/memories", "/agents/sr-main/recall?q=pools")
    for path in reads:
        got = api.client.get(path, headers=scout)
        assert got.status_code == 200, (path, got.text)
        for h in (stranger_sub, mate):  # another main agent's sub-agent, a clade mate: not theirs to read
            assert api.client.get(path, headers=h).status_code == 403, path
    assert "vault migration" in api.client.get("/agents/sr-main/core", headers=scout).text
    assert "low-risk pools" in api.client.get("/agents/sr-main/memories", headers=scout).text
    # its writes stay proposals
    assert api.client.post("/agents/sr-main/messages", headers=scout, json={"text": "remember x"}).status_code == 403
    assert api.client.put("/agents/sr-main/core/context", headers=scout, json={"content": "x"}).status_code == 403
    proposed = api.client.post("/agents/sr-main/proposals", headers=scout, json={"content": "The user likes Aave"})
    assert proposed.status_code == 201 and proposed.json()["status"] == "pending", proposed.text


# ---------------------------------------------------------------- times: bounded on input, robust on output


def test_times_outside_1970_to_9999_are_refused_everywhere(api: Api) -> None:
    h = api.headers("tm-a", CLADE)
    late, early = "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"
    for bad in (late, early, "1969-12-31T23:59:59Z"):
        ep = api.client.post("/episodes", headers=h, json={"type": "observation", "text": "gas spiked",
                                                            "valid_from": bad})
        assert ep.status_code == 422 and "1970" in ep.text, ep.text
        entry = api.client.post("/entries", headers=h, json={"category": "Insight", "valid_from": bad,
                                                               "content": "Gas spikes follow NFT mints."})
        assert entry.status_code == 422, entry.text
        for path, param in (("/entries", "known_at"), ("/episodes", "valid_from"), ("/events", "since")):
            assert api.client.get(path, headers=h, params={param: bad}).status_code == 422, (path, param)
        core = api.client.post("/agents/tm-a/messages", headers=h, json={"text": "remember gas", "at": bad})
        assert core.status_code == 422, core.text
    ok = api.client.post("/episodes", headers=h, json={"type": "observation", "text": "gas",
                                                        "valid_from": "1970-01-01T00:00:00Z"})
    assert ok.status_code == 201, ok.text


def test_a_stored_time_out_of_range_does_not_break_a_read(api: Api, db) -> None:
    h, mate = api.headers("tr-a", CLADE), api.headers("tr-b", CLADE)
    assert api.client.post("/episodes", headers=h, json={"id": "tr-ep", "type": "observation", "scope": "shared",
                                                          "text": "gas spiked after the mint"}).status_code == 201
    r = api.client.post("/entries", headers=h, json={"id": "tr-e", "category": "Insight", "scope": "shared",
                                                      "content": "Gas spikes follow large NFT mints on mainnet."})
    assert r.json()["outcome"] == "admitted", r.text
    db.run("testing/set_crystal_props", rows=[{"id": "tr-ep", "props": {"valid_from": YEAR_10000_MS}},
                                             {"id": "tr-e", "props": {"valid_from": -62_135_596_800_000 - 50_400_000}}])
    for who in (h, mate, api.admin):
        for path in ("/episodes", "/episodes/tr-ep", "/entries", "/entries/tr-e"):
            got = api.client.get(path, headers=who)
            assert got.status_code == 200, (path, got.text)
    assert api.client.get("/episodes/tr-ep", headers=mate).json()["valid_from"].startswith("9999-12-31")


# ---------------------------------------------------------------- lists carry no vectors


def test_episode_lists_carry_no_embeddings(api: Api, db) -> None:
    h = api.headers("vec-a", CLADE)
    assert api.client.post("/episodes", headers=h, json={"id": "vec-ep", "type": "observation",
                                                          "text": "a skill's episode"}).status_code == 201
    db.run("testing/set_crystal_props", rows=[{"id": "vec-ep", "props": {
        "embedding_procedural": [0.5] * 8, "embedding_causal": [0.25] * 8, "embedding_semantic": [0.125] * 8}}])
    listed = api.client.get("/episodes", headers=h).json()
    assert [e["id"] for e in listed] == ["vec-ep"]
    assert not [k for e in listed for k in e if k.startswith("embedding")]
    assert not [k for k in api.client.get("/episodes/vec-ep", headers=h).json() if k.startswith("embedding")]


# ---------------------------------------------------------------- import


def test_an_import_that_is_not_utf8_is_a_4xx(api: Api) -> None:
    r = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                        content=b'{"record": "header"}\n\xff\xfe not text\n')
    assert r.status_code == 422 and "UTF-8" in r.text, r.text


# ---------------------------------------------------------------- streams end with their key


def _stream_until_closed(client: httpx.Client, path: str, headers: dict[str, str], revoke: Any) -> list[str]:
    """Opens the stream (no max_seconds: endless but for the key), revokes the key once subscribed, and returns
    the lines read once the server closed it (the reader is left behind if it never does)."""
    lines: list[str] = []
    subscribed, ended = threading.Event(), threading.Event()

    def read() -> None:
        with client.stream("GET", path, headers=headers) as r:
            assert r.status_code == 200, r.status_code
            for line in r.iter_lines():
                lines.append(line)
                subscribed.set()
        ended.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert subscribed.wait(30)
    revoke()
    reader.join(60)
    assert ended.is_set(), f"{path} still open after its key was revoked: {lines}"
    return lines


def test_an_event_stream_ends_when_its_key_is_revoked(db, neo4j_server, embedder) -> None:
    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)
    with served(app, "authority") as url, httpx.Client(base_url=url, timeout=60) as client:
        api = Api(client, db)
        rest = api.headers("st-a", CLADE)
        console = api.headers("st-a", CLADE, scopes=("read", "person"))

        def revoke(h: dict[str, str]) -> Any:
            key_id = client.get("/agents/me", headers=h).json()["key_id"]
            return lambda: client.delete(f"/keys/{key_id}", headers=api.admin).raise_for_status()

        lines = _stream_until_closed(client, "/events/stream", rest, revoke(rest))
        assert any("revoked" in line for line in lines), lines
        signed = client.post("/console/sign-in", data={"key": console["X-API-Key"]}, follow_redirects=False)
        assert signed.status_code == 303, signed.text
        lines = _stream_until_closed(client, "/console/agents/st-a/events/stream", {}, revoke(console))
        assert any("revoked" in line for line in lines), lines


# ---------------------------------------------------------------- forks pass the Admission Gate


def test_a_forked_entry_passes_the_gate_at_its_provenance_weight(api: Api) -> None:
    from grimoire.graph.knowledge.admission import AdmissionConfig
    from grimoire.graph.model.enums import Provenance

    a, mate, other = api.headers("fk-a", CLADE), api.headers("fk-b", CLADE), api.headers("fk-c", OTHER)
    r = api.client.post("/entries", headers=a, json={
        "id": "fk-e", "category": "Heuristic", "scope": "public",
        "content": "Rebalance the Morpho vault when gas is under 10 gwei and utilisation is below 80 percent."})
    assert r.json()["outcome"] == "admitted", r.text
    own = api.client.get("/entries/fk-e", headers=a).json()["confidence"]
    weights = AdmissionConfig().provenance_weight
    for h, provenance in ((mate, Provenance.Clade), (other, Provenance.Lethe)):
        forked = api.client.post("/crystals/fk-e/fork", headers=h, json={"scope": "private"})  # unseen by the other
        assert forked.status_code == 201, forked.text
        body = forked.json()
        assert (body["outcome"], body["provenance"]) == ("admitted", provenance.value), body
        assert body["decision_id"] and body["confidence"] == pytest.approx(own * weights[provenance])
        stored = api.client.get(f"/entries/{body['id']}", headers=h).json()
        assert stored["confidence"] == pytest.approx(own * weights[provenance]) and stored["confidence"] < own
        assert stored["provenance"] == provenance.value
        decision = api.client.get(f"/admission/decisions/{body['decision_id']}", headers=h)
        assert decision.status_code == 200, decision.text
        tree = api.client.get(f"/crystals/{body['id']}/provenance/tree", headers=h).json()
        assert (tree["operation"], [p["crystal_id"] for p in tree["parents"]]) == ("forked", ["fk-e"])
    # forked again by the same agent, the gate sees its own copy: a duplicate, nothing new
    again = api.client.post("/crystals/fk-e/fork", headers=mate, json={"scope": "private"}).json()
    assert again["outcome"] == "skipped"


def test_a_frozen_entrys_new_version_passes_the_gate(api: Api) -> None:
    h = api.headers("vr-a", CLADE)
    r = api.client.post("/entries", headers=h, json={
        "id": "vr-e", "category": "Heuristic",
        "content": "Exit Pendle PT positions a week before maturity when the implied yield falls under 4 percent."})
    assert r.json()["outcome"] == "admitted", r.text
    admitted = r.json()["confidence"]
    assert api.client.post("/entries/vr-e/upvote", headers=h).status_code == 200  # the old text earned more
    assert api.client.get("/entries/vr-e", headers=h).json()["confidence"] > admitted
    assert api.client.post("/crystals/vr-e/lifecycle", headers=h, json={"to": "frozen"}).status_code == 200
    made = api.client.post("/crystals/vr-e/versions", headers=h, json={
        "text": "Exit Pendle PT positions ten days before maturity when the implied yield falls under 4 percent."})
    assert made.status_code == 201, made.text
    version = api.client.get(f"/entries/{made.json()['id']}", headers=h).json()
    assert version["confidence"] == pytest.approx(admitted)  # the gate's, for new text: not the votes the old earned


def test_an_inherited_graph_passes_the_gate(api: Api) -> None:
    before, heir = api.headers("ih-old", CLADE), api.headers("ih-new", CLADE)
    cause = "ETH perpetual funding turned negative at -0.03% per 8 hours on Binance"
    effect = "Aave WETH borrow utilisation dropped from 91% to 78% over 2 days"
    for eid, text in (("ih-cause", cause), ("ih-effect", effect)):
        r = api.client.post("/entries", headers=before, json={"id": eid, "category": "Insight", "content": text})
        assert r.json()["outcome"] == "admitted", r.text
    assert api.client.post("/causal/links", headers=before, json={"links": [
        {"cause": "ih-cause", "effect": "ih-effect", "weight": 0.9}]}).status_code == 201
    r = api.client.post("/entries", headers=heir, json={"id": "ih-mine", "category": "Insight", "content": cause})
    assert r.json()["outcome"] == "admitted", r.text  # the heir knows the cause already
    graph = api.client.get("/agents/ih-old/causal-graph", headers=before).json()
    made = api.client.post("/agents/ih-new/inherit-causal-graph", headers=heir, json=graph)
    assert made.status_code == 201, made.text
    assert made.json()["entries"] == ["ih-new:ih-effect"]  # the cause's copy is a duplicate of its own: skipped
    assert api.client.get("/entries/ih-new:ih-cause", headers=heir).status_code == 404
    copy = api.client.get("/entries/ih-new:ih-effect", headers=heir).json()
    assert copy["provenance"] == "Predecessor" and copy["confidence"] == pytest.approx(0.3)
    assert api.client.get(f"/admission/decisions/{copy['admission_id']}", headers=heir).status_code == 200
    links = api.client.get("/agents/ih-new/causal-graph", headers=heir).json()["links"]
    assert [(lk["cause"], lk["effect"]) for lk in links] == [("ih-mine", "ih-new:ih-effect")]
