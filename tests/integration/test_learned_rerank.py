"""The learned rerank of the head in the served pipeline (graph/retrieval/learned_rerank.py; issue 41, "reranking"):
off, the pipeline's order and no model loaded; on, the head in the model's order (its scores of the texts the
pipeline put there), the rest where they were, and the explanation saying what moved."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from grimoire.graph.episodes import ingest
from grimoire.graph.model.enums import EpisodeType
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.retrieval import learned_rerank
from grimoire.graph.retrieval.config import LearnedRerankConfig, RetrievalConfig
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.retrieval.result import RetrievedItem
from grimoire.graph.visibility import Visibility

pytest.importorskip("nanoranker")

WHEN = datetime(2023, 5, 8, 15, tzinfo=UTC)
QUESTION = "Which pottery class did Caroline sign up for?"
TEXTS = ["Caroline: I signed up for a pottery class at the community studio downtown.",
         "Melanie: Caroline keeps asking which class to sign up for, pottery or painting, and cannot decide.",
         "Caroline: the pottery shop on the corner sells cups and plates, I bought two of them.",
         "Melanie: my sister keeps talking about pottery and says working the clay is relaxing.",
         "Caroline: the weather was lovely for a walk along the river this afternoon, warm and bright.",
         "Melanie: we had pancakes with blueberries for breakfast, the kids loved them a lot this time.",
         "Caroline: my car needed new tyres so I spent the morning at the garage waiting for a while.",
         "Melanie: the football match on the radio went into extra time and ended in a draw yesterday."]
HEAD = 7  # all but the last: the model puts the three pottery turns first, the pipeline does not


def _ranked(db, embedder, config: RetrievalConfig) -> list[RetrievedItem]:
    res = build(db, embedder, config).retrieve(
        RetrievalRequest(text=QUESTION, mode="hybrid", no_budget=True, k=20, explain=True,
                         filters={"kinds": ["episodes"]}),
        Visibility("lr-1", "clade-lr"), "lr-1")
    return res.results


def test_the_stage_reorders_the_head_when_on_and_does_nothing_when_off(db, embedder,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ingest(db, embedder, [EpisodeIn(id=f"lr-{i}", agent_id="lr-1", type=EpisodeType.conversation, text=t,
                                    valid_from=WHEN) for i, t in enumerate(TEXTS)], actor="test", clade="clade-lr")
    monkeypatch.setattr(learned_rerank, "_scorer", None)
    off = _ranked(db, embedder, RetrievalConfig())
    assert len(off) == len(TEXTS)
    assert learned_rerank._scorer is None  # off: the model is never loaded
    assert all(r.explain and "learned_rerank" not in r.explain.backends for r in off)

    on = _ranked(db, embedder, RetrievalConfig(learned_rerank=LearnedRerankConfig(enabled=True, head=HEAD)))
    scores = learned_rerank.scorer().score(QUESTION, [r.text or "" for r in off[:HEAD]])
    expected = [off[i].id for i in learned_rerank.head_order(scores, 1.0)] + [r.id for r in off[HEAD:]]
    assert [r.id for r in on] == expected
    assert [r.id for r in on[:HEAD]] != [r.id for r in off[:HEAD]]  # the model disagrees with the pipeline here
    for r in on[:HEAD]:
        assert r.explain is not None
        trace = r.explain.backends["learned_rerank"]
        assert trace["before"] == [o.id for o in off].index(r.id) + 1
    assert [r.explain.backends["learned_rerank"]["rank"] for r in on[:HEAD] if r.explain] == list(range(1, HEAD + 1))
    assert all(r.explain and "learned_rerank" not in r.explain.backends for r in on[HEAD:])
