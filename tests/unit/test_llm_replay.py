"""Loop 3's replay (graph/context/replay.py) and the consistency check (graph/learning/consistency.py) against a
local fake chat server: a number in [0, 1] is a score, anything else is none; the gate is strict; a model that is
down is not asked again at once; consistency is the mean pairwise cosine of the claim and its three restatements."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from grimoire.graph.context.categories import ContextCategory as C
from grimoire.graph.context.replay import GATE, ReplayDecision, Replayed, Replayer, prompt
from grimoire.graph.knowledge.llm import Breaker, ChatClient, LanguageModelReasoner, ReasonerUnavailable
from grimoire.graph.knowledge.reasoner import Candidate, RuleBasedReasoner
from grimoire.graph.learning import consistency
from grimoire.graph.model.enums import EntryCategory
from tests.fake_chat import FakeChat, dead_url

ORIGINAL = {C.playbook: 0.2, C.causal_edges: 0.1, C.insights: 0.7}
PROPOSED = {C.playbook: 0.14, C.causal_edges: 0.16, C.insights: 0.7}
DECISION = ReplayDecision(id="dec-1", task="swap", phase="decide", regime="bear", injected='{"playbook": 300}',
                          missing=["no causal explanation"], outcome_quality=0.2, reasoning=None)


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    with FakeChat().running() as f:
        f.behaviour = "content"
        yield f


def replayer(url: str) -> Replayer:
    return Replayer(ChatClient(url, "cheap", None, 0.5))


@pytest.mark.parametrize(("answer", "quality"), [('{"quality": 0.8}', 0.8), ("0.6", 0.6), ('{"quality": 0}', 0.0),
                                                 ("```json\n{\"quality\": 0.9}\n```", 0.9)])
def test_a_number_in_the_unit_interval_is_a_score(fake: FakeChat, answer: str, quality: float) -> None:
    fake.content = answer
    out = replayer(fake.url).replay(DECISION, "causal_over_playbook", ORIGINAL, PROPOSED)
    assert out.quality == pytest.approx(quality) and out.failure is None and out.before == pytest.approx(0.2)


@pytest.mark.parametrize("answer", ["Probably 0.8", '{"quality": 1.2}', '{"quality": -0.1}', '{"quality": "0.8"}',
                                    '{"quality": 0.8, "why": "more causal edges"}', "true", '{"score": 0.8}'])
def test_anything_else_is_no_score(fake: FakeChat, answer: str) -> None:
    fake.content = answer
    out = replayer(fake.url).replay(DECISION, "causal_over_playbook", ORIGINAL, PROPOSED)
    assert out.quality is None and out.failure is not None and out.failure.startswith("junk")
    assert not out.passes


def test_a_model_that_is_down_is_not_asked_again_at_once() -> None:
    r = replayer(dead_url())
    first = r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED)
    second = r.replay(DECISION, "causal_over_playbook", ORIGINAL, PROPOSED)
    assert first.quality is None and first.failure == "connection refused" and second.failure == "connection refused"


def test_junk_does_not_mark_the_model_down(fake: FakeChat) -> None:
    r = replayer(fake.url)
    fake.content = "no idea"
    assert r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).quality is None
    fake.content = '{"quality": 0.7}'
    assert r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).quality == pytest.approx(0.7)
    assert len(fake.requests) == 2


def test_one_breaker_per_model_for_the_reasoner_the_replay_and_the_consistency_check(fake: FakeChat) -> None:
    """The model's outage seen by Loop 3's replay is remembered by the Reasoner and the consistency check, which ask
    the same model (its URL and name) and do not wait out a failure of their own; another model is not affected."""
    fake.behaviour = "error"
    client = ChatClient(fake.url, "cheap", None, 0.5)
    assert replayer(fake.url).replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).failure == "HTTP 500"
    assert len(fake.requests) == 1 and Breaker.of(client).state == "open"
    fake.behaviour = "good"   # back, but not asked until the rest is over
    candidate = Candidate(content="Use the deeper pool", category=EntryCategory.Heuristic)
    utility, judged = LanguageModelReasoner(client).future_utility_judged(candidate)
    assert judged.fallback == "HTTP 500" and utility == RuleBasedReasoner().future_utility(candidate)
    measured = consistency.measure(client, lambda t: np.ones((len(t), 2)), "claim", None)
    assert measured.consistency is None and measured.failure == "HTTP 500" and measured.unreachable
    assert len(fake.requests) == 1
    other = ChatClient(fake.url, "another-model", None, 0.5)   # another model at the same server: its own breaker
    assert LanguageModelReasoner(other).future_utility_judged(candidate)[1].fallback is None
    assert len(fake.requests) == 2 and Breaker.of(client) is not Breaker.of(other)


def test_the_model_coming_back_is_noticed_by_one_probe(fake: FakeChat) -> None:
    """Half-open: when the rest is over one question goes through while the others still fall back; its answer
    closes the breaker, or a failure opens it for another rest."""
    now = [100.0]
    client = ChatClient(fake.url, "cheap", None, 0.5)
    breaker = Breaker.of(client)
    breaker.clock = lambda: now[0]
    fake.behaviour = "error"
    r = replayer(fake.url)
    assert r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).failure == "HTTP 500"
    now[0] += breaker.retry_after_seconds + 1
    assert breaker.down() is None and breaker.state == "half-open"   # this caller is the probe...
    assert breaker.down() == "HTTP 500" and len(fake.requests) == 1   # ...the others still wait
    now[0] += breaker.retry_after_seconds + 1   # a probe that never reported: the next caller probes after a rest
    with pytest.raises(ReasonerUnavailable):   # and fails: open for another rest, not asked meanwhile
        consistency.restate(client, "claim", None)
    assert breaker.state == "open" and len(fake.requests) == 2
    assert r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).failure == "HTTP 500" and len(fake.requests) == 2
    now[0] += breaker.retry_after_seconds + 1
    fake.behaviour, fake.content = "content", '{"quality": 0.7}'
    assert r.replay(DECISION, "boost_missing", ORIGINAL, PROPOSED).quality == pytest.approx(0.7)   # the probe
    assert breaker.state == "closed" and len(fake.requests) == 3
    assert r.replay(DECISION, "causal_over_playbook", ORIGINAL, PROPOSED).quality == pytest.approx(0.7)
    assert len(fake.requests) == 4


def test_the_gate_is_strict() -> None:
    assert GATE == 0.15
    assert Replayed(decision_id="d", kind="k", before=0.2, quality=0.36).passes
    assert not Replayed(decision_id="d", kind="k", before=0.2, quality=0.35).passes
    assert not Replayed(decision_id="d", kind="k", before=0.2, quality=None, failure="timeout").passes


def test_the_prompt_shows_the_decision_and_what_the_alternative_changes() -> None:
    text = prompt(DECISION, "causal_over_playbook", ORIGINAL, PROPOSED)
    assert "playbook: 20.0% -> 14.0% of the budget (less)" in text
    assert "causal_edges: 10.0% -> 16.0% of the budget (more)" in text
    assert "insights" not in text.split("what the alternative changes:")[1].split("the agent's reasoning")[0]
    assert "no causal explanation" in text and "recorded outcome quality: 0.200" in text and '"quality"' in text


def test_consistency_is_the_mean_pairwise_cosine() -> None:
    assert consistency.mean_pairwise_cosine(np.ones((4, 3))) == pytest.approx(1.0)
    assert consistency.mean_pairwise_cosine(np.eye(4)) == pytest.approx(0.0)
    # two pairs of identical vectors, orthogonal to each other: 2 of the 6 pairs agree
    v = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])
    assert consistency.mean_pairwise_cosine(v) == pytest.approx(2 / 6)
    assert consistency.rescored(0.6, 1.0, 0.2) == pytest.approx(0.6 - 0.15 * 0.8)
    assert consistency.rescored(None, 1.0, 0.2) is None


def test_the_claim_is_restated_three_times_and_embedded_with_them(fake: FakeChat) -> None:
    answers = iter(["A", "A", "B"])
    fake.behaviour, fake.script = "script", lambda p: json.dumps({"restatement": next(answers)})
    seen: list[list[str]] = []

    def embed(texts: Sequence[str]) -> np.ndarray:
        seen.append(list(texts))
        return np.array([[1.0, 0.0] if t in ("claim", "A") else [0.0, 1.0] for t in texts])

    out = consistency.measure(ChatClient(fake.url, "cheap", None, 0.5), embed, "claim", "Heuristic")
    assert seen == [["claim", "A", "A", "B"]]
    assert out.consistency == pytest.approx(3 / 6) and out.failure is None
    assert [b["temperature"] for b, _ in fake.requests] == [consistency.TEMPERATURE] * 3


def test_no_restatement_is_no_consistency() -> None:
    out = consistency.measure(ChatClient(dead_url(), "cheap", None, 0.5), lambda t: np.ones((len(t), 2)), "claim",
                              None)
    assert out.consistency is None and out.failure == "connection refused" and out.unreachable


def test_junk_or_a_failing_embedder_is_no_consistency_but_the_model_is_not_down(fake: FakeChat) -> None:
    """PROMOTE stops asking for the rest of its batch only when the model did not answer (`unreachable`): a junk
    answer or an embedder that fails leaves that one promotion waiting, and raises nothing into the cycle."""
    fake.behaviour, fake.script = "script", lambda p: "not json"
    junk = consistency.measure(ChatClient(fake.url, "cheap", None, 0.5), lambda t: np.ones((len(t), 2)), "claim",
                               None)
    assert junk.consistency is None and junk.failure is not None and not junk.unreachable
    fake.script = lambda p: json.dumps({"restatement": "A"})

    def broken(texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("model file gone")

    failed = consistency.measure(ChatClient(fake.url, "cheap", None, 0.5), broken, "claim", None)
    assert failed.consistency is None and failed.failure == "embedder: RuntimeError" and not failed.unreachable
