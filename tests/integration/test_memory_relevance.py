"""Relevance decay in the graph (issue 16, point 5; section 9): memories said at chosen ages come back with
the formula's score and status (values written out), search returns active and fading ones, dormant ones
only when asked explicitly, archived ones never; reinforcement (9.4) adds an access and restarts the clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.conftest import Api

AGENT, CLADE = "decaying", "clade-d"

# (message, age in days, store, expected score, expected status)
MEMORIES = [
    ("Remember that Postgres uses MVCC.", 0, "semantic", 1.0, "active"),                   # 1.2 capped
    ("Remember that we met the auditors yesterday.", 10, "episodic", 0.592654, "active"),  # 0.8 e^-0.3
    ("Remember that the release happened on time.", 30, "episodic", 0.325256, "fading"),   # 0.8 e^-0.9
    ("I prefer tabs over spaces.", 60, "semantic", 0.138851, "dormant"),                     # 0.7 × 1.2 e^-1.8
    ("Remember that the server incident was resolved quickly.", 100, "episodic", 0.039830, "archived"),
    ("Save this to the vault: the spare key is under the mat.", 365, "vault", 1.0, "active"),
]


def _say(api: Api, h: dict[str, str], text: str, days: float) -> dict[str, Any]:
    at = datetime.now(UTC) - timedelta(days=days)
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "at": at.isoformat()})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_scores_and_statuses_at_chosen_ages_follow_the_formula(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    ids = []
    for text, days, store, expected, status in MEMORIES:
        out = _say(api, h, text, days)
        assert out["store"] == store, (text, out)
        ids.append(out["memory_id"])
        got = api.client.get(f"/agents/{AGENT}/memories/{out['memory_id']}", headers=h).json()
        assert got["relevance"]["score"] == pytest.approx(expected, abs=2e-4), text
        assert got["relevance"]["status"] == status, text
        assert got["access_count"] == 1 and got["base_relevance"] == (0.7 if text.startswith("I prefer") else 1.0)

    def found(q: str, explicit: bool) -> list[str]:
        r = api.client.get(f"/agents/{AGENT}/recall", headers=h, params={"q": q, "explicit": explicit, "k": 20})
        return [m["id"] for m in r.json()["results"]]

    assert ids[2] in found("release on time", False)           # fading: searchable
    assert ids[3] not in found("tabs over spaces", False)      # dormant: only when asked explicitly
    assert ids[3] in found("tabs over spaces", True)
    assert ids[4] not in found("server incident resolved", True)  # archived: never
    listed = {m["id"]: m["relevance"]["status"] for m in api.client.get(f"/agents/{AGENT}/memories", headers=h).json()}
    assert [listed[i] for i in ids] == [m[4] for m in MEMORIES]

    # reinforcement: used twice -> access 3, the clock restarts: 0.8 × log2(4) = 1.6 -> 1.0, active again
    for _ in range(2):
        r = api.client.post(f"/agents/{AGENT}/memories/reinforce", headers=h, json={"ids": [ids[4]], "reason": "used"})
        assert r.status_code == 200 and r.json()[0]["id"] == ids[4]
    revived = api.client.get(f"/agents/{AGENT}/memories/{ids[4]}", headers=h).json()
    assert revived["access_count"] == 3 and revived["relevance"]["status"] == "active"
    assert revived["relevance"]["raw"] == pytest.approx(1.6, abs=1e-3)
    assert ids[4] in found("server incident resolved", False)
