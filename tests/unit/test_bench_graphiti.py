"""The graphiti side-by-side benchmark's pure parts (bench/graphiti.py): graphiti is loaded with the very turns,
texts, times and vectors Grimoire stores, one group per conversation; the questions asked are categories 1-4;
recall counts the evidence among the first k."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench import graphiti
from grimoire.graph.model.episode import EpisodeIn
from grimoire.loaders.locomo import Conversation, Question, agent_for

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _conversation(sample: str, turns: list[tuple[str, str]], questions: list[Question]) -> Conversation:
    conv = Conversation(sample)
    for i, (who, text) in enumerate(turns):
        conv.episodes.append(EpisodeIn(id=f"{sample}:D1:{i + 1}", agent_id=agent_for(sample), type="conversation",
                                       text=f"{who}: {text}", valid_from=WHEN))
    conv.questions = questions
    return conv


def test_workload_writes_each_turn_with_grimoires_text_time_and_vector_in_its_conversations_group() -> None:
    a = _conversation("conv-1", [("Caroline", "Hey Mel!"), ("Melanie", "Hi: fine"), ("Caroline", "Good")], [])
    b = _conversation("conv-2", [("Jon", "Dance class")], [])
    texts = [e.text for c in (a, b) for e in c.episodes] + ["Caroline", "Melanie", "Jon"]
    vectors = {t: [float(i), 1.0] for i, t in enumerate(texts)}
    load = graphiti.workload([a, b], vectors)
    assert [c["group_id"] for c in load] == ["locomo-conv-1", "locomo-conv-2"]
    assert load[0]["speakers"] == {"Caroline": vectors["Caroline"], "Melanie": vectors["Melanie"]}
    assert load[1]["speakers"] == {"Jon": vectors["Jon"]}
    second = load[0]["turns"][1]
    assert second == {"id": "conv-1:D1:2", "speaker": "Melanie", "text": "Melanie: Hi: fine",
                      "vector": vectors["Melanie: Hi: fine"], "valid_at": WHEN.isoformat()}
    assert [t["id"] for t in load[0]["turns"]] == [e.id for e in a.episodes]


def test_asked_keeps_categories_one_to_four_with_their_conversation() -> None:
    qs = [Question("when?", ["c:D1:1"], 2), Question("trick?", ["c:D1:1"], 5), Question("who?", ["c:D1:2"], 4)]
    conv = _conversation("c", [("A", "x"), ("B", "y")], qs)
    assert [(c.sample_id, q.question) for c, q in graphiti.asked([conv])] == [("c", "when?"), ("c", "who?")]


def test_recall_counts_the_evidence_among_the_first_k_only() -> None:
    found = [f"t{i}" for i in range(12)]
    assert graphiti.recall(found, ["t0", "t3"]) == 1.0
    assert graphiti.recall(found, ["t0", "t11"]) == 0.5  # t11 is 12th
    assert graphiti.recall(found, ["t0", "t11"], k=12) == 1.0
    assert graphiti.recall([], ["t0"]) == 0.0


def test_medians_are_over_the_rounds_p50_and_p95() -> None:
    one = [float(x) for x in range(1, 101)]
    rounds = [one, [x * 2 for x in one], one]
    out = graphiti.medians(rounds)
    assert out["p50_ms"] == pytest.approx(50.5)
    assert out["p95_ms"] == pytest.approx(95.05)
    assert len(out["rounds"]) == 3


def test_timed_rounds_ask_every_nth_question_spread_over_all_of_them() -> None:
    assert graphiti.timed(760) == list(range(0, 760, 4))  # 190, at most 200
    assert graphiti.timed(10) == list(range(10))
    assert graphiti.timed(401, most=200) == list(range(0, 401, 3))
