"""PROMOTE's thresholds on the values the spec defines (graph/learning/promote.py `promotable`): a heuristic voted up
to 0.7 enters PLAYBOOK.md at the next cycle, though decay since the vote (measured from that last access) has taken
it to 0.69999...; one vote short stays out; one decayed under the demotion line since its vote is not promoted."""

from __future__ import annotations

from typing import Any

from grimoire.graph.ids import now_ms

MINUTE, DAY = 60_000, 86_400_000
TEXTS = {"h-at": "When Aave utilisation passes 92% then cut leverage to 1.5x within 10 blocks",
         "h-under": "When the Curve 3pool skews past 70% USDT then exit the pool within 50 blocks"}


def _heuristic(api: Any, h: dict[str, str], entry_id: str, text: str, target: float) -> float:
    r = api.client.post("/entries", headers=h, json={"id": entry_id, "category": "Heuristic", "content": text})
    assert r.status_code in (200, 201), r.text
    confidence = api.client.get(f"/entries/{entry_id}", headers=h).json()["confidence"]
    while confidence < target - 1e-9:  # +0.1 a vote, and the vote resets its decay clock
        r = api.client.post(f"/entries/{entry_id}/upvote", headers=h)
        assert r.status_code == 200, r.text
        confidence = r.json()["confidence"]
    return confidence


def _cycle(api: Any, agent: str, clade: str, now: int) -> dict[str, dict[str, Any]]:
    # something new since the last cycle (else the cycle is up to date and does not run)
    r = api.client.post("/episodes", headers=api.headers(agent, clade),
                        json={"type": "observation", "text": "Aave utilisation read 88% at the close"})
    assert r.status_code == 201, r.text
    report = api.client.app.state.services.curator.run(agent, clade=clade, actor="test", now=now)
    assert report.status == "complete"
    ops = api.client.get(f"/curator/cycles/{report.cycle['id']}/operations", headers=api.headers(agent, clade))
    assert ops.status_code == 200, ops.text
    return {op["entry_id"]: op for op in ops.json() if op["op"] == "PROMOTE"}


def test_a_heuristic_voted_up_to_the_threshold_enters_the_playbook(api) -> None:
    agent, clade = "promote-b", "clade-pb"
    h = api.headers(agent, clade)
    at = _heuristic(api, h, "h-at", TEXTS["h-at"], 0.7)
    under = _heuristic(api, h, "h-under", TEXTS["h-under"], 0.6)
    assert (at, under) == (0.7, 0.6)
    later = now_ms() + 10 * MINUTE  # decay from the vote: 0.7 x retention < 0.7 at the cycle's clock
    effective = api.client.app.state.services.db.rows("entries/effective_confidence", ids=["h-at"], now=later,
                                                     floor=0.05)[0]["effective_confidence"]
    assert 0.69 < effective < 0.7
    promoted = _cycle(api, agent, clade, later)
    assert "h-at" in promoted and "h-under" not in promoted, promoted
    playbook = api.client.get("/playbook", headers=h).text
    assert TEXTS["h-at"] in playbook and TEXTS["h-under"] not in playbook
    assert api.client.get("/entries/h-at", headers=h).json()["status"] == "active"


def test_a_heuristic_decayed_under_the_demotion_line_since_its_vote_is_not_promoted(api) -> None:
    agent, clade = "promote-c", "clade-pc"
    h = api.headers(agent, clade)
    assert _heuristic(api, h, "h-late", TEXTS["h-at"], 0.7) == 0.7
    later = now_ms() + 400 * DAY
    effective = api.client.app.state.services.db.rows("entries/effective_confidence", ids=["h-late"], now=later,
                                                     floor=0.05)[0]["effective_confidence"]
    assert effective < 0.4  # the demotion line (LearningConfig.demote_below)
    promoted = _cycle(api, agent, clade, later)
    assert "h-late" not in promoted, promoted
    assert TEXTS["h-at"] not in api.client.get("/playbook", headers=h).text
