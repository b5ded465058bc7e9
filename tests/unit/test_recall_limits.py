"""Recall's limits (moltbot-memory.md 16, "Max search results 20", "Min search score 0.3"): at most 20 results, and a
result needs a search score (its match, before relevance) of 0.3 — a weak match is left out, a fading memory that
matches well is not. The strategy here hands recall its hits (no database is read: recall ranks what it is given)."""

from __future__ import annotations

from grimoire.graph.memory.recall import MIN_SEARCH_SCORE, RESULTS, Found, Hit, Recall
from grimoire.graph.memory.triggers import QueryType

NOW = 1_770_000_000_000
DAY = 86_400_000


def _memory(i: int, days_ago: float = 0.0) -> dict[str, object]:
    at = int(NOW - days_ago * DAY)
    return {"id": f"m{i}", "agent_id": "a", "store": "episodic", "text": f"memory {i}", "base_relevance": 0.8,
            "valid_from": at, "recorded_at": at, "last_accessed_at": at, "access_count": 1}


class Given:
    """A strategy that finds what it was given."""

    query_type = QueryType.general

    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits

    def find(self, db: object, agent_id: str, query: str, limit: int) -> Found:
        return Found(self.hits)


def _recall(hits: list[Hit], **kw: object) -> list[str]:
    recall = Recall(db=None, hybrid=lambda a, q, k: [], keyword=lambda a, w, k: [])  # type: ignore[arg-type]
    recall.strategies[QueryType.general] = Given(hits)
    return [m.id for m in recall.recall("a", "memory", QueryType.general, now=NOW, **kw).results]


def test_at_most_twenty_by_default() -> None:
    assert RESULTS == 20 and MIN_SEARCH_SCORE == 0.3
    assert len(_recall([Hit(_memory(i), 1.0, "test") for i in range(30)])) == 20
    assert len(_recall([Hit(_memory(i), 1.0, "test") for i in range(30)], k=5)) == 5


def test_a_weak_match_is_left_out_a_fading_memory_that_matches_is_not() -> None:
    weak, enough = Hit(_memory(1), 0.25, "test"), Hit(_memory(2), 0.35, "test")
    fading = Hit(_memory(3, days_ago=30), 0.9, "test")  # fading: relevance 0.26 after thirty days
    got = _recall([weak, enough, fading])
    assert "m1" not in got and "m2" in got and "m3" in got
    assert "m1" in _recall([weak, enough], min_match=0.2)
