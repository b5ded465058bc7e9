"""The Pi hooks over HTTP: after_turn writes a turn as one idempotent batch of episodes; before_compact
returns an agent's warnings, playbook heuristics and recent unconsolidated episodes, and nothing of
anyone else's it may not see."""

from __future__ import annotations

from typing import Any

from grimoire.graph.db.connection import Database
from tests.conftest import Api


def _turn(turn_id: str, n: int = 3, **extra: Any) -> dict[str, Any]:
    items: list[dict[str, Any]] = [{"kind": "message", "role": "user", "text": f"{turn_id}: rebalance the LP?"}]
    items += [{"kind": "tool_call", "tool": "uniswap.quote", "text": f"{turn_id}: quote {i} WETH -> USDC"}
              for i in range(1, n - 1)]
    items.append({"kind": "observation", "text": f"{turn_id}: gas spiked to 80 gwei", "interrupted": True,
                  "prediction": {"metric": "slippage_bps", "expected": 12, "actual": 15}})
    return {"turn_id": turn_id, "tick": 7, "regime": "bull", "items": items[:n], **extra}


def _entry(api: Api, h: dict[str, str], entry_id: str, category: str, content: str, scope: str = "private",
           **props: Any) -> None:
    r = api.client.post("/entries", headers=h, json={"id": entry_id, "category": category, "content": content,
                                                      "scope": scope})
    assert r.status_code == 201 and r.json()["entry_id"] == entry_id, r.text
    api.db.run("testing/set_entry_props", id=entry_id, props={"status": "active", **props})


def _follows(db: Database, episode_id: str) -> list[str]:
    return [r["id"] for r in db.fetch("testing/follows", id=episode_id)]


def test_after_turn_writes_one_idempotent_batch(api: Api, db: Database) -> None:
    h = api.headers("hook-1", "clade-h")
    r = api.client.post("/hooks/after_turn", headers=h, json=_turn("t-1", 4))
    assert r.status_code == 201, r.text
    first = r.json()
    ids = first["ids"]
    assert len(ids) == 4 and first["created"] == ids and first["existing"] == [] and first["last_id"] == ids[-1]
    assert first["agent_id"] == "hook-1" and len(first["audit_ids"]) == 1
    again = api.client.post("/hooks/after_turn", headers=h, json=_turn("t-1", 4)).json()
    assert again["ids"] == ids and again["created"] == [] and again["existing"] == ids
    eps = [api.client.get(f"/episodes/{i}", headers=h).json() for i in ids]
    assert [e["type"] for e in eps] == ["conversation", "action", "action", "observation"]
    assert eps[0]["text"] == "user: t-1: rebalance the LP?" and eps[1]["tool"] == "uniswap.quote"
    assert {(e["tick"], e["regime"], e["agent_id"], e["scope"]) for e in eps} == {(7, "bull", "hook-1", "private")}
    assert eps[3]["interrupted"] is True
    assert (eps[3]["prediction_expected"], eps[3]["prediction_actual"]) == (12, 15)
    assert [_follows(db, i) for i in ids] == [[], [ids[0]], [ids[1]], [ids[2]]]
    # The next turn continues the thread.
    nxt = api.client.post("/hooks/after_turn", headers=h, json=_turn("t-2", 2, follows=first["last_id"])).json()
    assert _follows(db, nxt["ids"][0]) == [ids[-1]]
    # Bad input: an unknown episode to follow, an item the episode model refuses, an empty turn.
    assert api.client.post("/hooks/after_turn", headers=h, json=_turn("t-3", follows="nope")).status_code == 422
    bad = _turn("t-4")
    bad["items"][-1]["prediction"] = {"expected": "lots"}
    r = api.client.post("/hooks/after_turn", headers=h, json=bad)
    assert r.status_code == 422 and "items[2].prediction" in r.text, r.text
    assert api.client.post("/hooks/after_turn", headers=h, json={"turn_id": "t-5", "items": []}).status_code == 422


def test_before_compact_keeps_what_must_survive(api: Api, db: Database) -> None:
    h = api.headers("hook-1", "clade-h")
    _entry(api, h, "w-own", "Warning", "Avoid adding WETH/USDC liquidity when 1h volatility exceeds 8%")
    _entry(api, h, "h-play", "Heuristic", "When the funding rate exceeds 0.1% for 8h, reduce the ETH long by half",
           in_playbook=True, strategy="eth-dca")
    _entry(api, h, "h-off", "Heuristic", "Rebalance the USDC/DAI pool when the peg deviates 30 bps")
    _entry(api, h, "w-old", "Warning", "Never bridge through the Ronin bridge without a 24h delay",
           status="archived")
    turns = [api.client.post("/hooks/after_turn", headers=h, json=_turn(f"c-{i}", 3)).json() for i in range(3)]
    done = api.client.post("/episodes", headers=h, json={"id": "consolidated-1", "type": "observation",
                                                          "text": "an old lesson, consolidated", "consolidated": True})
    assert done.status_code == 201
    r = api.client.post("/hooks/before_compact", headers=h, json={"episodes": 5})
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["agent_id"] == "hook-1"
    assert [w["id"] for w in state["warnings"]] == ["w-own"] and state["warnings"][0]["own"] is True
    assert [x["id"] for x in state["heuristics"]] == ["h-play"] and state["heuristics"][0]["strategy"] == "eth-dca"
    written = [i for t in turns for i in t["ids"]]
    assert [e["id"] for e in state["episodes"]] == written[-5:]  # the last five, oldest first
    assert state["episodes"][-1]["interrupted"] is True
    assert len(state["mental_models"]) == 13
    md = state["markdown"]
    for needle in ("### Active warnings (1)", "[w-own]", "[h-play] (confidence", "strategy eth-dca",
                   f"[{written[-1]}]", "interrupted", "12. Kelly Criterion: Optimal position sizing"):
        assert needle in md, (needle, md)
    assert "consolidated-1" not in md and "h-off" not in md and "w-old" not in md
    bare = api.client.post("/hooks/before_compact", headers=h, json={"episodes": 0, "mental_models": False}).json()
    assert bare["episodes"] == [] and bare["mental_models"] == [] and "mental models" not in bare["markdown"]


def test_hooks_are_isolated(api: Api, db: Database) -> None:
    a, b, c = api.headers("iso-a", "clade-x"), api.headers("iso-b", "clade-x"), api.headers("iso-c", "clade-y")
    # The same turn id from two agents: two sets of episodes, neither touching the other's.
    ta = api.client.post("/hooks/after_turn", headers=a, json=_turn("t-1")).json()
    tb = api.client.post("/hooks/after_turn", headers=b, json=_turn("t-1")).json()
    assert not set(ta["ids"]) & set(tb["ids"]) and tb["created"] == tb["ids"]
    assert api.client.get(f"/episodes/{ta['ids'][0]}", headers=b).status_code == 404
    _entry(api, a, "a-private", "Warning", "Avoid the stETH loop on Aave when Curve trades below 0.97")
    _entry(api, a, "a-shared", "Warning", "Exit Morpho vaults when utilisation stays above 95% for 2h",
           scope="shared")
    _entry(api, a, "a-play", "Heuristic", "When gas exceeds 60 gwei, delay rebalances by 2 hours", scope="shared",
           in_playbook=True)

    def state(h: dict[str, str], **body: Any) -> dict[str, Any]:
        r = api.client.post("/hooks/before_compact", headers=h, json=body)
        assert r.status_code == 200, r.text
        return r.json()

    sa, sb, sc = state(a), state(b), state(c)
    assert {w["id"] for w in sa["warnings"]} == {"a-private", "a-shared"}
    assert [x["id"] for x in sa["heuristics"]] == ["a-play"]
    assert {e["id"] for e in sa["episodes"]} == set(ta["ids"])
    # A clade peer gets the warning shared with the clade, as not its own; nothing else of A's.
    assert [(w["id"], w["own"], w["agent_id"]) for w in sb["warnings"]] == [("a-shared", False, "iso-a")]
    assert sb["heuristics"] == [] and {e["id"] for e in sb["episodes"]} == set(tb["ids"])
    assert "a-private" not in sb["markdown"] and "(confidence" in sb["markdown"]
    # Another clade: nothing of A's at all.
    assert sc["warnings"] == sc["heuristics"] == sc["episodes"] == []
    assert "iso-a" not in sc["markdown"] and "a-shared" not in sc["markdown"]
    # An agent's key acts for its agent only, reading or writing; following another's episode is unknown.
    assert api.client.post("/hooks/before_compact", headers=b, json={"agent_id": "iso-a"}).status_code == 403
    assert api.client.post("/hooks/after_turn", headers=b, json=_turn("t-9", agent_id="iso-a")).status_code == 403
    assert api.client.post("/hooks/after_turn", headers=b, json=_turn("t-9", follows=ta["last_id"])).status_code == 422
    # A read-only key reads its state and writes nothing.
    ro = api.headers("iso-a", "clade-x", scopes=("read",))
    assert {w["id"] for w in state(ro)["warnings"]} == {"a-private", "a-shared"}
    assert api.client.post("/hooks/after_turn", headers=ro, json=_turn("t-8")).status_code == 403
    # The admin names the agent and gets that agent's view, no more.
    assert api.client.post("/hooks/before_compact", headers=api.admin, json={}).status_code == 422
    as_admin = state(api.admin, agent_id="iso-b")
    assert [w["id"] for w in as_admin["warnings"]] == ["a-shared"] and as_admin["agent_id"] == "iso-b"
    written = api.client.post("/hooks/after_turn", headers=api.admin, json=_turn("t-7", agent_id="iso-c"))
    assert written.status_code == 201 and written.json()["agent_id"] == "iso-c"
    assert {e["id"] for e in state(c)["episodes"]} == set(written.json()["ids"])
