"""Pseudo-relevance feedback in the served pipeline (graph/retrieval/feedback_terms.py, understood.feedback): the
words the caller's first BM25 hits share are searched again, so a turn that answers in other words than the
question's is found through them; the second search has the first's scope, so another agent's private turn full of
those words stays out, and an agent with no hit for the question gets no feedback list at all."""

from __future__ import annotations

from grimoire.graph.retrieval.config import QueryUnderstandingConfig, RetrievalConfig
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.visibility import Visibility

ME, OTHER, CLADE = "prf-me", "prf-other", "clade-prf"
QUESTION = "How does Melanie destress?"


def _retrieve(db, embedder, config: RetrievalConfig, agent: str = ME):
    return build(db, embedder, config).retrieve(
        RetrievalRequest(text=QUESTION, mode="hybrid", no_budget=True, k=20, explain=True,
                         filters={"kinds": ["episodes"]}),
        Visibility(agent, CLADE), agent)


def test_the_words_the_first_hits_share_find_the_turn_that_answers_in_other_words(api, db, embedder) -> None:
    mine = [
        ("prf-q1", "Melanie: work has been stressful, I destress by pottery and the lakeside trail"),
        ("prf-q2", "Melanie: when I need to destress it is pottery class and the lakeside trail"),
        ("prf-ans", "Saturday was pottery class again, then a long walk on the lakeside trail"),
    ] + [(f"prf-n{i}", f"Caroline: the support group met on day {i} and talked about adoption") for i in range(12)]
    theirs = [("prf-secret", "Melanie: pottery class and the lakeside trail, pottery and lakeside, trail and class")]
    for agent, rows in ((ME, mine), (OTHER, theirs)):
        r = api.client.post("/episodes/batch", headers=api.headers(agent, CLADE), json={"episodes": [
            {"id": i, "type": "conversation", "text": t, "scope": "private"} for i, t in rows]})
        assert r.status_code == 201, r.text
    off = RetrievalConfig(query=QueryUnderstandingConfig(short_context=False))
    on = RetrievalConfig(query=QueryUnderstandingConfig(short_context=False, feedback=True, feedback_docs=2))
    without = _retrieve(db, embedder, off)
    with_ = _retrieve(db, embedder, on)
    traced = {x.id: x for x in with_.results}
    # the answer shares no word with the question: the feedback list found it, through the words
    # the two hits on "destress" share (pottery, lakeside, trail, class)
    assert "bm25_feedback" in traced["prf-ans"].explain.backends
    assert "bm25_feedback" not in {b for x in without.results for b in x.explain.backends}
    found = traced["prf-ans"].explain.backends
    assert "bm25" not in found and found["bm25_feedback"]["rank"] <= 3  # no word of the question: BM25 alone misses
    rank = [x.id for x in with_.results]
    # the other agent's private turn, full of those words, is in no list
    assert "prf-secret" not in rank
    # an agent whose first search finds nothing of the question gets no feedback list
    theirs_only = _retrieve(db, embedder, on, OTHER)
    assert all("bm25_feedback" not in x.explain.backends for x in theirs_only.results)
