"""What a batch of episodes asks of the Curator after it is written (api/routes/episodes.py, Curator.after_ingest):
Reflexion only for the new episodes with a verified prediction, the tick check only when a new episode carries a
tick; a batch with neither (most of them) runs none of the learning statements, each of which reads every episode
of the agent's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from grimoire.graph.db.connection import Database
from tests.conftest import Api

AGENT, CLADE = "golem-after-ingest", "clade-after-ingest"


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every statement and transaction the service runs meanwhile."""
    names: list[str] = []
    original = Database.timed

    @contextmanager
    def timed(self: Database, name: str) -> Iterator[None]:
        names.append(name)
        with original(self, name):
            yield

    monkeypatch.setattr(Database, "timed", timed)
    return names


def _episodes(prefix: str, n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}-{i}", "type": "observation", "text": f"{prefix}: the pool's depth at step {i}", **extra}
            for i in range(n)]


def test_a_batch_without_predictions_or_ticks_asks_the_curator_nothing(api: Api, statements: list[str]) -> None:
    h = api.headers(AGENT, CLADE)
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": _episodes("plain", 20)})
    assert r.status_code == 201, r.text
    assert any("episodes.ingest" in s for s in statements)  # the write itself was seen
    assert [s for s in statements if s.startswith("learning/")] == []


def test_a_verified_prediction_is_reflected_on_and_ticks_are_checked(api: Api, db, statements: list[str]) -> None:
    h = api.headers(AGENT, CLADE)
    predicted = {"type": "action", "tool": "uniswap-swap", "token_pair": "WETH/USDC", "outcome": "positive",
                 "text": "swapped WETH for USDC: predicted 10 bps, got 12 bps",
                 "prediction": {"metric": "return_bps", "expected": 10.0, "actual": 12.0}}
    unverified = {**predicted, "prediction": {"metric": "return_bps", "expected": 10.0}}
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": [
        {**predicted, "id": "pred-verified"}, {**unverified, "id": "pred-open"}, predicted]})  # the last: no id
    assert r.status_code == 201, r.text
    assert "learning/to_reflect" in statements and "learning/cycle_input" not in statements
    given = r.json()["ids"][2]  # the id the service gave it
    assert {x["episode_id"] for x in db.fetch("testing/reflections", agent_id=AGENT)} == {"pred-verified", given}

    statements.clear()
    services = api.client.app.state.services
    every = services.settings.learning.every_ticks
    ticked = [{**e, "tick": i} for i, e in enumerate(_episodes("ticked", every + 1))]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": ticked})
    assert r.status_code == 201, r.text
    assert "learning/cycle_input" in statements and "learning/to_reflect" not in statements
    assert AGENT in services.curator.due  # the scheduler is asked for a cycle
    services.curator.due.discard(AGENT)
