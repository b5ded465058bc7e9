"""Query understanding (issue 22 point 2): the times a query names, whether it asks for a time, whether a
text tells one (graph/retrieval/query_understanding.py), and the lists built from them without a database
(graph/retrieval/understood.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from grimoire.graph.retrieval import understood
from grimoire.graph.retrieval.backends import _POSSESSIVE
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.query_understanding import asks_time, tells_time, windows

ANCHOR = int(datetime(2026, 11, 26, tzinfo=UTC).timestamp() * 1000)


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def _spans(query: str, slack: float = 1.0) -> list[tuple[str, str]]:
    return [(_day(w.start), _day(w.end)) for w in windows(query, ANCHOR, slack)]


@pytest.mark.parametrize("query", [
    "What painting did Melanie show to Caroline on October 13, 2023?",
    "What did she paint on 13 October, 2023?",
    "What did she paint on 13th of October 2023?",
    "What did she paint on Oct. 13 2023?",
    "What happened on 2023-10-13?",
])
def test_a_date_is_its_day_stretched_forward_by_the_slack(query: str) -> None:
    assert _spans(query) == [("2023-10-13", "2023-10-15")]
    assert _spans(query, slack=7) == [("2023-10-13", "2023-10-21")]


def test_a_month_and_year_is_the_month() -> None:
    assert _spans("What did John host in May 2023?", slack=0) == [("2023-05-01", "2023-06-01")]
    assert _spans("What setback did she face in December, 2023?", slack=0) == [("2023-12-01", "2024-01-01")]


def test_a_month_without_a_year_is_that_month_of_every_recent_year() -> None:
    spans = _spans("When did Melanie go camping in June?", slack=0)
    assert ("2023-06-01", "2023-07-01") in spans and ("2026-06-01", "2026-07-01") in spans
    assert all(start[5:7] == "06" for start, _ in spans) and len(spans) == 31


def test_a_year() -> None:
    assert _spans("How many times has she gone to the beach in 2023?", slack=0) == [("2023-01-01", "2024-01-01")]


def test_before_and_after_stretch_the_window() -> None:
    # The weekend before April 10: the window reaches back (twice the slack) and ends after the day.
    assert _spans("What did Maria do last weekend before April 10, 2023?", slack=3) == [("2023-04-04", "2023-04-14")]
    assert _spans("What did she do after April 10, 2023?", slack=3) == [("2023-04-11", "2023-04-20")]


def test_relative_times_count_back_from_the_anchor_unless_a_date_is_named() -> None:
    assert _spans("What did I do yesterday?", slack=0) == [("2026-11-25", "2026-11-26")]
    assert _spans("What happened two weeks ago?", slack=0) == [("2026-11-08", "2026-11-15")]
    assert _spans("What happened 3 days ago?", slack=0) == [("2026-11-22", "2026-11-24")]
    # Beside a date, "last weekend" is relative to it, not to now: only the date's window.
    assert len(_spans("What did Maria do last weekend before April 10, 2023?")) == 1


@pytest.mark.parametrize("query", [
    "When did Jon lose his job?", "May I ask what she likes?", "What is Caroline's favourite book?",
    "How many times did she go?", "What did she say about 2023 being hard?",
])
def test_no_time_named(query: str) -> None:
    assert windows(query, ANCHOR) == []


def test_an_impossible_date_is_no_window() -> None:
    assert windows("What happened on February 30, 2023?", ANCHOR) == []


@pytest.mark.parametrize(("query", "expected"), [
    ("When did Melanie go camping in June?", True),
    ("How long ago was Caroline's 18th birthday?", True),
    ("How long has Melanie been practicing art?", True),
    ("What year did John start surfing?", True),
    ("In what month did they meet?", True),
    ("How many weeks passed between the two trips?", True),
    ("What did Melanie paint?", False),
    ("Who did Maria have dinner with on May 3, 2023?", False),
    ("How many times has she gone to the beach?", False),
])
def test_asks_time(query: str, expected: bool) -> None:
    assert asks_time(query) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Caroline: I went to a support group yesterday.", True),
    ("Melanie: We went camping last week!", True),
    ("Jon: I lost my job a few months ago.", True),
    ("Gina: The store opens on Saturday.", True),
    ("Maria: Back in 2019 I moved here.", True),
    ("John: It was in July.", True),
    ("Melanie: That sounds great, I love it!", False),
    ("Caroline: You may like this one.", False),
    (None, False),
])
def test_tells_time(text: str | None, expected: bool) -> None:
    assert tells_time(text) is expected


def test_possessives_come_off_names() -> None:
    assert _POSSESSIVE.sub("", "What are Caroline's plans? Jon\u2019s too") == "What are Caroline plans? Jon too"
    assert _POSSESSIVE.sub("", "it's what's") == "it what"  # harmless: the lookup keeps whole names only


def _ctx(text: str, found: dict[str, str], **query: object) -> SimpleNamespace:
    config = RetrievalConfig.model_validate({"query": query})
    return SimpleNamespace(config=config, req=SimpleNamespace(text=text), traces={},
                           found={i: Candidate(id=i, kind="episode", text=t) for i, t in found.items()})


def test_telling_lists_the_candidates_that_tell_a_time_in_fused_order() -> None:
    found = {"a": "Mel: Sounds fun!", "b": "Mel: We went last week.", "c": "Mel: On Sunday we hiked."}
    ctx = _ctx("When did Mel go hiking?", found, time_telling=True)
    assert understood.telling(ctx, ["c", "a", "b", "z"]) == {"time_telling": ["c", "b"]}  # type: ignore[arg-type]
    assert ctx.traces["b"]["time_telling"]["rank"] == 2


def test_telling_is_nothing_for_a_question_not_asking_when_or_when_off() -> None:
    found = {"b": "Mel: We went last week."}
    assert understood.telling(_ctx("Where did Mel go?", found, time_telling=True), ["b"]) == {}  # type: ignore[arg-type]
    assert understood.telling(_ctx("When did Mel go?", found, time_telling=False), ["b"]) == {}  # type: ignore[arg-type]


def test_the_kept_defaults() -> None:
    q = RetrievalConfig().query
    assert (q.time_windows, q.time_telling, q.short_context) == (True, True, True)
    assert (q.entity_lists, q.entity_focus, q.possessives) == (False, False, False)
    assert (q.slack_days, q.short_chars, q.context_weight) == (1.0, 80, 1.0)
