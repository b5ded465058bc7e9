"""The language-model Reasoner against a local fake chat server: a good answer is used and named; a
junk answer, a timeout, a refused connection or an HTTP error makes the rule-based Reasoner answer,
and the Judged (and the admission decision) says why."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from grimoire.graph.knowledge.admission import evaluate
from grimoire.graph.knowledge.llm import Breaker, ChatClient, LanguageModelReasoner, ReasonerUnavailable
from grimoire.graph.knowledge.reasoner import (
    Candidate,
    ClusterSummary,
    Comparison,
    Judged,
    Lesson,
    RuleBasedReasoner,
    judged_utility,
)
from grimoire.graph.model.enums import EntryCategory, MarketRegime, Provenance
from grimoire.graph.services import build_reasoner
from grimoire.graph.settings import Settings
from tests import fake_chat
from tests.fake_chat import FakeChat, dead_url

MODEL = "test-model"
TIMEOUT = 0.4
RULES = RuleBasedReasoner()
CANDIDATE = Candidate("When WETH utilisation passes 90% then reduce leverage below 2x", EntryCategory.Heuristic,
                      regime=MarketRegime.high_vol, evidence=2)
CLUSTER = ClusterSummary(key="uniswap_swap|1|WETH/USDC", tool="uniswap_swap", chain="1", token_pair="WETH/USDC",
                         regime="low_vol", strategy=None, positives=4, negatives=1, neutrals=0, mean_gain=0.012,
                         texts=("swapped 2 WETH for USDC, +1.1%", "swapped 1 WETH, +0.8%"))
COMPARISON = Comparison("slippage", expected=0.002, actual=0.011, tolerance=0.003, tool="uniswap_swap",
                        token_pair="WETH/USDC", regime="high_vol", history=((0.002, 0.009), (0.001, 0.008)))


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    with FakeChat().running() as f:
        yield f


def reasoner(url: str, *, key: str | None = None, retry_after: float = 30.0) -> LanguageModelReasoner:
    return LanguageModelReasoner(ChatClient(url, MODEL, key, TIMEOUT), breaker=Breaker(retry_after))


def test_good_answers_are_used_and_named(fake: FakeChat) -> None:
    r = reasoner(fake.url)
    assert r.name == "language-model:test-model"
    assert r.future_utility_judged(CANDIDATE) == (pytest.approx(fake_chat.GOOD_UTILITY), Judged(r.name))
    assert r.future_utility(CANDIDATE) == pytest.approx(fake_chat.GOOD_UTILITY)
    assert r.distill(CLUSTER) == (Lesson(EntryCategory.Heuristic, fake_chat.GOOD_LESSON, 1), Judged(r.name))
    text, lesson, judged = r.reflect(COMPARISON)
    assert judged == Judged(r.name) and judged.label == "language-model:test-model"
    assert text.startswith("predicted slippage +0.002, actual +0.011")
    assert fake_chat.GOOD_INTERPRETATION in text and fake_chat.GOOD_COUNTERFACTUAL in text
    assert lesson == Lesson(EntryCategory.Insight, fake_chat.GOOD_INSIGHT, 0)


def test_requests_follow_the_chat_api(fake: FakeChat) -> None:
    reasoner(fake.url, key="sk-test").future_utility(CANDIDATE)
    reasoner(fake.url).future_utility(CANDIDATE)
    (with_key, headers), (_, no_key_headers) = fake.requests
    assert with_key["model"] == MODEL and with_key["temperature"] == 0
    assert with_key["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in with_key["messages"]] == ["system", "user"]
    assert CANDIDATE.content in with_key["messages"][1]["content"]
    assert "useful for future decisions in similar conditions" in with_key["messages"][1]["content"]
    assert headers["Authorization"] == "Bearer sk-test"
    assert "Authorization" not in no_key_headers


def test_contradiction_stays_rule_based(fake: FakeChat) -> None:
    r = reasoner(fake.url)
    assert r.contradicts("Gas rises at night", "Gas falls at night")
    assert not r.contradicts("Gas is cheap at night", "Gas is cheapest overnight")
    assert fake.requests == []


def test_a_cluster_that_teaches_nothing_yet_is_not_asked(fake: FakeChat) -> None:
    small = ClusterSummary("k", "t", None, None, None, None, positives=1, negatives=1, neutrals=5, mean_gain=None)
    r = reasoner(fake.url)
    assert r.distill(small) == (None, Judged(r.name))
    assert fake.requests == []


def _falls_back(r: LanguageModelReasoner, reason: str | None = None, prefix: str | None = None) -> None:
    """Every method answers as the rule-based Reasoner does, with Judged('rule-based', fallback=reason)."""
    utility, judged = r.future_utility_judged(CANDIDATE)
    lesson, distilled = r.distill(CLUSTER)
    text, insight, reflected = r.reflect(COMPARISON)
    assert utility == RULES.future_utility(CANDIDATE)
    assert r.future_utility(CANDIDATE) == RULES.future_utility(CANDIDATE)
    assert lesson == RULES.distill(CLUSTER)[0]
    assert (text, insight) == RULES.reflect(COMPARISON)[:2]
    for j in (judged, distilled, reflected):
        assert j.reasoner == "rule-based"
        assert j.fallback is not None
        if reason is not None:
            assert j.fallback == reason
        if prefix is not None:
            assert j.fallback.startswith(prefix), j.fallback
        assert j.label == f"rule-based (fallback: {j.fallback})"


def test_junk_answers_fall_back_to_the_rules(fake: FakeChat) -> None:
    fake.behaviour = "junk"
    r = reasoner(fake.url)
    _falls_back(r, prefix="junk: not JSON")
    assert len(fake.requests) == 4  # junk does not stop the next question being asked


@pytest.mark.parametrize(("content", "why"), [
    ('{"utility": 1.7, "category": "Heuristic", "interpretation": ""}', "junk: "),
    ('{"utility": "high"}', "junk: "),
    ("[]", "junk: "),
    ('{"category": "Warning", "content": "Avoid it", "polarity": 1}', "junk: "),
    ('{"category": "Heuristic", "content": "  ", "polarity": 1}', "junk: "),
    ('{"interpretation": "x", "counterfactual": "y", "insight": null, "extra": 1}', "junk: "),
])
def test_answers_that_do_not_validate_are_junk(fake: FakeChat, content: str, why: str) -> None:
    fake.behaviour = "content"
    fake.content = content
    _falls_back(reasoner(fake.url), prefix=why)


def test_a_fenced_json_answer_is_read(fake: FakeChat) -> None:
    fake.behaviour = "content"
    fake.content = '```json\n{"utility": 0.25}\n```'
    r = reasoner(fake.url)
    assert r.future_utility_judged(CANDIDATE) == (0.25, Judged(r.name))


def test_a_none_lesson_is_the_models_answer(fake: FakeChat) -> None:
    fake.behaviour = "content"
    fake.content = '{"category": "none"}'
    r = reasoner(fake.url)
    assert r.distill(CLUSTER) == (None, Judged(r.name))


def test_a_timeout_falls_back_and_the_model_rests(fake: FakeChat) -> None:
    fake.behaviour = "slow"
    fake.delay = TIMEOUT * 4
    r = reasoner(fake.url)
    started = time.monotonic()
    _falls_back(r, reason="timeout")
    # Only the first question waited out the timeout; the rest fell back at once.
    assert len(fake.requests) == 1
    assert time.monotonic() - started < TIMEOUT * 3


def test_the_model_is_asked_again_after_the_rest(fake: FakeChat) -> None:
    now = [100.0]
    r = LanguageModelReasoner(ChatClient(fake.url, MODEL, None, TIMEOUT), breaker=Breaker(30, clock=lambda: now[0]))
    fake.behaviour = "error"
    assert r.future_utility_judged(CANDIDATE)[1] == Judged("rule-based", "HTTP 500")
    fake.behaviour = "good"
    now[0] += 29
    assert r.future_utility_judged(CANDIDATE)[1] == Judged("rule-based", "HTTP 500")
    assert len(fake.requests) == 1
    now[0] += 2
    assert r.future_utility_judged(CANDIDATE) == (pytest.approx(fake_chat.GOOD_UTILITY), Judged(r.name))


def test_a_server_that_is_down_falls_back() -> None:
    _falls_back(reasoner(dead_url()), reason="connection refused")


def test_an_http_error_falls_back(fake: FakeChat) -> None:
    fake.behaviour = "error"
    _falls_back(reasoner(fake.url), reason="HTTP 500")
    _falls_back(reasoner(fake.url + "/wrong"), reason="HTTP 404")


def test_the_client_names_each_failure(fake: FakeChat) -> None:
    messages = [{"role": "user", "content": "hello"}]
    assert ChatClient(fake.url, MODEL).complete(messages) == "{}"
    cases = {"junk": None, "error": "HTTP 500", "slow": "timeout"}
    fake.delay = TIMEOUT * 3
    for behaviour, reason in cases.items():
        fake.behaviour = behaviour
        if reason is None:
            assert ChatClient(fake.url, MODEL).complete(messages) == fake_chat.JUNK  # junk is the reasoner's call
            continue
        with pytest.raises(ReasonerUnavailable) as caught:
            ChatClient(fake.url, MODEL, timeout_seconds=TIMEOUT).complete(messages)
        assert caught.value.reason == reason and not caught.value.junk
    with pytest.raises(ReasonerUnavailable) as caught:
        ChatClient(dead_url(), MODEL).complete(messages)
    assert caught.value.reason == "connection refused"


def test_a_body_that_is_not_a_chat_completion_is_junk(fake: FakeChat) -> None:
    fake.behaviour = "html"
    with pytest.raises(ReasonerUnavailable) as caught:
        ChatClient(fake.url, MODEL).complete([{"role": "user", "content": "x"}])
    assert caught.value.junk and caught.value.reason.startswith("junk: not a chat completion")
    _falls_back(reasoner(fake.url), prefix="junk: not a chat completion")


def test_an_empty_message_is_junk(fake: FakeChat) -> None:
    fake.behaviour = "content"
    fake.content = ""
    assert ChatClient(fake.url, MODEL).complete([{"role": "user", "content": "x"}]) == ""
    _falls_back(reasoner(fake.url), prefix="junk: not JSON")


def test_the_client_refuses_urls_that_are_not_http() -> None:
    with pytest.raises(ValueError):
        ChatClient("ftp://example.org", MODEL)


def test_the_admission_decision_says_who_judged_the_utility(fake: FakeChat) -> None:
    def decide(r: object) -> str:
        return evaluate(CANDIDATE, [], provenance=Provenance.SelfLearned, requested_confidence=None,
                        now_ms=0, event_ms=0, half_life_ms=None, reasoner=r).reasoner  # type: ignore[arg-type]

    assert decide(RULES) == "rule-based"
    assert decide(reasoner(fake.url)) == "language-model:test-model"
    fake.behaviour = "slow"
    fake.delay = TIMEOUT * 3
    assert decide(reasoner(fake.url)) == "rule-based (fallback: timeout)"
    assert decide(reasoner(dead_url())) == "rule-based (fallback: connection refused)"


def test_a_reasoner_without_the_judged_method_is_named_as_itself() -> None:
    class Plain:
        name = "plain"

        def future_utility(self, candidate: Candidate) -> float:
            return 0.5

    assert judged_utility(Plain(), CANDIDATE) == (0.5, Judged("plain"))  # type: ignore[arg-type]


def test_the_settings_choose_the_reasoner() -> None:
    assert isinstance(build_reasoner(Settings()), RuleBasedReasoner)
    built = build_reasoner(Settings(GRIMOIRE_REASONER_URL="http://127.0.0.1:9/v1", GRIMOIRE_REASONER_MODEL="m",
                                    GRIMOIRE_REASONER_API_KEY="k", GRIMOIRE_REASONER_TIMEOUT_SECONDS=2.5))
    assert isinstance(built, LanguageModelReasoner) and built.name == "language-model:m"
    assert built.client == ChatClient("http://127.0.0.1:9/v1", "m", "k", 2.5)
    with pytest.raises(ValueError):
        Settings(GRIMOIRE_REASONER_URL="localhost:11434")
