"""What the query says, in the served pipeline (graph/retrieval/understood.py): a question naming a date finds the
turns of that day, read in full for a caller whose reach is ranked exactly and as a boost among the candidates for
a larger one (a month of a busy agent's episodes is too many to score on every query)."""

from __future__ import annotations

from grimoire.graph.retrieval.config import QueryUnderstandingConfig, RetrievalConfig
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.visibility import Visibility

# Hiking on many days; the day the question names has a turn that says less about hiking than the others.
DAYS = [f"2023-0{m}-{d:02d}T15:00:00Z" for m in (3, 4, 6, 7) for d in (2, 9, 16, 23)]
DAY = "2023-05-08T15:00:00Z"
QUESTION = "What did Melanie do outdoors on 8 May 2023?"


def _ranked(db, embedder, config: RetrievalConfig) -> list[str]:
    res = build(db, embedder, config).retrieve(
        RetrievalRequest(text=QUESTION, mode="hybrid", no_budget=True, k=5, filters={"kinds": ["episodes"]}),
        Visibility("qu-1", "clade-qu"), "qu-1")
    return [x.id for x in res.results]


def test_a_question_naming_a_date_finds_that_day_in_either_reach(api, db, embedder) -> None:
    h = api.headers("qu-1", "clade-qu")
    episodes = [{"id": f"qu-{i:02d}", "type": "conversation", "valid_from": at,
                 "text": f"Melanie: we went hiking in the mountains outdoors again, trail number {i}"}
                for i, at in enumerate(DAYS)]
    episodes.append({"id": "qu-day", "type": "conversation", "valid_from": DAY,
                     "text": "Melanie: took the kids camping by the lake this weekend"})
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": episodes})
    assert r.status_code == 201, r.text
    off = RetrievalConfig(query=QueryUnderstandingConfig(time_windows=False, time_telling=False, short_context=False))
    assert _ranked(db, embedder, off)[0] != "qu-day"
    on = RetrievalConfig(query=QueryUnderstandingConfig(time_telling=False, short_context=False))
    assert _ranked(db, embedder, on)[0] == "qu-day"  # the day read in full (a reach ranked exactly)
    large = on.model_copy(update={"exact_below": 0})  # as if the caller saw too much to rank exactly
    assert _ranked(db, embedder, large)[0] == "qu-day"  # the day's candidate boosted
