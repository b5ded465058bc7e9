"""The attention score (context-governor.md "EFE Composite Attention Score"; graph/context/attention.py): four
parts added without weights, the dominant part kept on the item; S3.2's weighted sum kept as a setting."""

from __future__ import annotations

import pytest

from grimoire.graph.context.affect import Pad
from grimoire.graph.context.attention import Ranking, Scorer, affective
from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.items import Item

C = ContextCategory


def item(ident: str = "x", relevance: float = 0.6, recency: float = 0.5, confidence: float = 0.5,
         pad: tuple[float, ...] | None = None) -> Item:
    return Item(id=ident, category=C.playbook, text="t", summary="t", tag="heuristic", relevance=relevance,
                recency=recency, confidence=confidence, pad=pad)


def test_the_documents_score_is_the_default() -> None:
    assert GovernorConfig().attention_ranking == Ranking.efe
    assert Scorer().ranking == Ranking.efe


def test_the_score_is_the_sum_of_the_four_parts() -> None:
    pad = Pad(pleasure=-0.6, arousal=0.8, dominance=0.0)
    x = item(relevance=0.8, recency=0.5, confidence=0.25, pad=(-0.3, 0.4, 0.0))   # same direction: |cos| 1
    scored = Scorer(pad=pad, vitality=0.4).score(x)
    pragmatic, epistemic = 0.8 * 0.25, 0.8 * 0.5 * 0.75
    affect, mortality = 1.0, 0.6 * 0.8
    assert scored.score == pytest.approx(pragmatic + epistemic + affect + mortality)
    assert scored.dominant == "affective"


def test_affective_bias_is_the_absolute_cosine() -> None:
    now = Pad(pleasure=0.5, arousal=0.5, dominance=0.0)
    assert affective(now, (-0.5, -0.5, 0.0)) == pytest.approx(1.0)          # incongruent draws attention too
    assert affective(now, (0.5, -0.5, 0.0)) == pytest.approx(0.0)           # orthogonal: none
    assert affective(Pad(), (0.5, 0.5, 0.5)) == 0.0                          # a neutral mood
    assert affective(now, None) == 0.0 and affective(now, (0.0, 0.0, 0.0)) == 0.0


def test_mortality_urgency_is_near_zero_when_healthy_and_dominates_when_dying() -> None:
    x = item(relevance=0.9, confidence=0.9, recency=1.0)
    healthy, dying = Scorer(vitality=1.0).score(x), Scorer(vitality=0.05).score(x)
    assert healthy.dominant == "pragmatic"
    assert dying.dominant == "mortality"
    assert dying.score - healthy.score == pytest.approx(0.95 * 0.9)


def test_an_uncertain_fresh_item_is_epistemic_and_a_trusted_one_pragmatic() -> None:
    s = Scorer()
    assert s.score(item(confidence=0.1, recency=1.0)).dominant == "epistemic"
    assert s.score(item(confidence=0.9, recency=1.0)).dominant == "pragmatic"
    assert s.score(item(relevance=0.0)).dominant is None      # nothing to rank it by


def test_the_mood_reorders_a_category() -> None:
    """Two heuristics alike but for their PAD association: under fear, the fear-laden one goes first; in a neutral
    mood the more relevant one does (the old weighted sum saw no mood at all)."""
    fearful = item("fear", relevance=0.6, pad=(-0.7, 0.7, -0.2))
    plain = item("plain", relevance=0.7)
    fear = Pad(pleasure=-0.6, arousal=0.7, dominance=-0.2)
    ranked = Scorer(pad=fear).rank({C.playbook: [plain, fearful]})[C.playbook]
    assert max(ranked, key=lambda i: i.score).id == "fear"
    calm = Scorer(pad=Pad()).rank({C.playbook: [plain, fearful]})[C.playbook]
    assert max(calm, key=lambda i: i.score).id == "plain"
    old = Scorer(ranking=Ranking.weighted, pad=fear).rank({C.playbook: [plain, fearful]})[C.playbook]
    assert max(old, key=lambda i: i.score).id == "plain"


def test_the_weighted_ranking_is_s3_2s_sum() -> None:
    x = Scorer(ranking=Ranking.weighted).score(item(relevance=0.8, recency=0.4, confidence=0.9))
    assert x.score == pytest.approx(0.8 * 0.5 + 0.4 * 0.3 + 0.9 * 0.2)
    assert x.dominant == "relevance"


def test_weights_given_replace_the_defaults_for_the_parts_they_name() -> None:
    x = item(relevance=0.8, recency=1.0, confidence=0.5)
    base = Scorer().score(x)
    doubled = Scorer(weights={"epistemic": 2.0}).score(x)
    assert doubled.score == pytest.approx(base.score + 0.8 * 1.0 * 0.5)
    assert Scorer(weights={"pragmatic": 0.0, "epistemic": 0.0}).score(x).score == 0.0
