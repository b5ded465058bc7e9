"""Knowledge crystals' rules against hand-computed numbers (issue 19, first part; graph/crystals/): the lifecycle's
exact transitions and a refusal for every other pair, the importance formula, hormone levels after scripted spikes
and elapsed times with their modulations, and sensitivity tagging on labelled examples."""

from __future__ import annotations

import itertools
import math

import pytest

from grimoire.graph.model.crystal import hormones, importance, lifecycle, sensitivity
from grimoire.graph.model.crystal.hormones import HormonalEvent as E
from grimoire.graph.model.crystal.hormones import HormonalState
from grimoire.graph.model.crystal.lifecycle import IllegalTransition
from grimoire.graph.model.crystal.lifecycle import Lifecycle as S

MIN = 60_000

ALLOWED = {(S.generated, S.activated), (S.generated, S.consolidated), (S.generated, S.expired),
           (S.generated, S.frozen), (S.activated, S.consolidated), (S.activated, S.archived),
           (S.activated, S.frozen), (S.frozen, S.frozen)}


@pytest.mark.parametrize(("current", "target"), list(itertools.product(S, S)))
def test_exactly_the_state_diagrams_transitions(current: S, target: S) -> None:
    if (current, target) in ALLOWED:
        lifecycle.check(current, target)
        assert lifecycle.allowed(current, target)
    else:
        with pytest.raises(IllegalTransition) as refused:
            lifecycle.check(current, target)
        assert f"{current.value} → {target.value}" in str(refused.value)
        assert not lifecycle.allowed(current, target)


def test_skills_never_expire_frozen_is_immutable_and_only_expired_and_archived_are_purged() -> None:
    with pytest.raises(IllegalTransition, match="a skill never expires"):
        lifecycle.check(S.generated, S.expired, skill=True)
    assert not lifecycle.mutable(S.frozen) and lifecycle.mutable(S.activated)
    assert {S.expired, S.archived} == lifecycle.PURGEABLE and S.generated == lifecycle.INITIAL


def test_importance_by_hand() -> None:
    assert importance.frequency(0) == pytest.approx(0.0951626, abs=1e-7)   # 1 - e^-0.1
    assert importance.frequency(9) == pytest.approx(0.6321206, abs=1e-7)   # 1 - e^-1
    half_life = 1_386_294_361                                               # ln 2 / 5e-10 ms, about 16 days
    assert importance.importance(9, 0) == pytest.approx(0.6321206, abs=1e-7)
    assert importance.importance(9, half_life) == pytest.approx(0.3160603, abs=1e-7)
    # valence 1 halves the rate (emotion decay resistance 0.5): e^(-ln2 / 2) = 0.7071068
    assert importance.importance(9, half_life, valence=-1.0) == pytest.approx(0.4469767, abs=1e-7)
    # and a hormonal decay resistance of 0.5 halves it again: e^(-ln2 / 4) = 0.8408964
    assert importance.importance(9, half_life, valence=1.0, decay_resistance=0.5) == pytest.approx(
        0.6321206 * 0.8408964, abs=1e-7)
    low = importance.importance(0, 5e9)                                     # 0.0951626 * e^-2.5
    assert low == pytest.approx(0.0078115, abs=1e-7)
    assert importance.forgotten(low) and not importance.forgotten(low, skill=True)
    assert importance.promoted(0.75) and not importance.promoted(0.7)


def test_hormone_levels_after_scripted_spikes_and_elapsed_time() -> None:
    s = HormonalState(at=0)
    s = s.spike(E.reward, 0)                                 # dopamine 0.15 + 0.3
    assert s.dopamine == pytest.approx(0.45)
    assert s.at_time(30 * MIN).dopamine == pytest.approx(0.30)             # half-way back to 0.15 in 30 min
    assert s.at_time(60 * MIN).dopamine == pytest.approx(0.225)
    s = s.spike(E.error, 0)
    assert s.cortisol == pytest.approx(0.32) and s.at_time(60 * MIN).cortisol == pytest.approx(0.17)
    a = HormonalState(at=0).spike(E.achievement, 0)
    assert (a.dopamine, a.oxytocin) == (pytest.approx(0.55), pytest.approx(0.30))
    assert a.at_time(45 * MIN).oxytocin == pytest.approx(0.20)
    full = a.spike(E.achievement, 0).spike(E.achievement, 0)
    assert full.dopamine == 1.0 and full.oxytocin == pytest.approx(0.7)   # clamped at 1
    assert HormonalState(cortisol=0.0005, at=0).at_time(0).cortisol == 0.0  # under 0.001: 0
    # later spikes decay first: 30 min after the reward, a second reward
    assert HormonalState(at=0).spike(E.reward, 0).spike(E.reward, 30 * MIN).dopamine == pytest.approx(0.60)

    # the modulations at dopamine 0.45, cortisol 0.32, oxytocin 0.10
    m = s.consolidation()
    assert m["decay_resistance"] == pytest.approx(0.206) and m["merge_threshold"] == pytest.approx(0.9296)
    assert m["halt_untrusted_ingestion"] is False
    r = s.retrieval()
    assert r["importance_boost"] == pytest.approx(1.09) and r["recency_bias"] == pytest.approx(1.096)


def test_the_network_cortisol_override_raises_cortisol_until_it_expires() -> None:
    s = HormonalState(at=0).with_override(0.9, 5 * MIN, "suspicious skill burst", 0)
    assert s.effective_cortisol == 0.9 and s.cortisol == pytest.approx(0.02)
    m = s.consolidation()
    assert m["merge_threshold"] == pytest.approx(0.947) and m["halt_untrusted_ingestion"] is True
    assert m["decay_resistance"] == pytest.approx(0.32)       # 0.9 x 0.3 + 0.15 x 0.2 + 0.10 x 0.2
    later = s.at_time(5 * MIN)
    assert later.override is None and later.consolidation()["halt_untrusted_ingestion"] is False


def test_a_crystals_influence_from_its_text() -> None:
    got = hormones.influence("Deployed the release, thanks team! The build crashed once.", session=True)
    # achievement (deployed): dopamine 0.4, oxytocin 0.2; error (crashed): cortisol 0.3; social (thanks, team):
    # oxytocin 0.3; a session's +0.1 oxytocin
    assert got == {"dopamine": pytest.approx(0.4), "cortisol": pytest.approx(0.3), "oxytocin": pytest.approx(0.6),
                   "valence": pytest.approx(0.35)}
    assert hormones.events_in("Shipped the milestone; urgent deadline next") == [E.achievement, E.urgency]
    assert hormones.influence("The pool rebalanced at noon.") == {"dopamine": 0.0, "cortisol": 0.0,
                                                                 "oxytocin": 0.0, "valence": 0.0}


CONFIDENTIAL = ["my password is hunter2", "PASSWORD: Tr0ub4dor&3", "the OpenAI api key is in the vault",
                "export STRIPE_SECRET_KEY=...", "OPENAI_API_KEY=abc", "Authorization: Bearer abcdef0123456789abcdef",
                "token sk-proj-abcdefghijklmnop1234", "AKIAIOSFODNN7EXAMPLE is the access key id",
                "-----BEGIN RSA PRIVATE KEY-----", "keep the seed phrase offline",
                "ghp_abcdefghijklmnopqrstuvwxyz012345",
                "the refresh token expired", "client secret: 9f8e7d"]
PERSONAL = ["my name is Priya", "email me at priya@example.com", "I think the redesign is ugly",
            "In my opinion the API is too slow", "I'm anxious about the launch", "my wife handles the taxes",
            "I live in Lisbon", "call me at +1 415-555-0134", "I prefer tea over coffee"]
NORMAL = ["The ETH/USDC pool rebalanced at noon.", "Gas fell below 10 gwei overnight.",
          "Tokens per second doubled after the upgrade.", "The secretary function is deprecated.",
          "Use the passwordless login flow.", "The team shipped the fix.", "Thinking models are slower.",
          "Keyboard shortcuts are listed in the docs.", "The API returns 429 when rate limited."]


# What DeFi agents hold (issue 36): raw keys, seed phrases, JWTs, bearer tokens; and what only looks like them.
KEY = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
DEFI_SECRETS = [f"the hot wallet key {KEY}", KEY, f"pk={KEY}", f"signer 0x{KEY} for the vault", KEY.upper(),
                "legal winner thank year wave sausage worth useful legal winner thank yellow",
                "abandon ability able about above absent absorb abstract absurd abuse access accident acoustic acquire "
                "across act actor actress actual adapt adjust admit adult advance",
                "backup: letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
                "write down the recovery phrase on paper",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJnb2xlbS0xIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
                "curl -H 'Authorization: Bearer 9f86d081884c7d659a2feaa0c55ad015'"]
DEFI_NORMAL = ["Swapped 2 ETH on the pool at 0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640 for USDC.",
               "wallet 0xd8da6bf26964af9d7eed9e03e53415d37aa96045 repaid its loan",
               f"a 63-hex string {KEY[:63]} and a 65-hex one {KEY}a are neither",
               "the quick brown fox jumps over the lazy dog and then runs away quickly into forest shade",
               "oracle price lagged behind market moves during volatile hours when liquidity thinned out fast "
               "and spreads widened for every major pair",
               "Rebalance weekly: sell winners, buy losers, keep fees under budget and slippage under one percent.",
               "monitor pool depth every block before routing large swaps to avoid heavy price impact"]


@pytest.mark.parametrize(("text", "expected"), [(t, "confidential") for t in DEFI_SECRETS]
                         + [(t, "normal") for t in DEFI_NORMAL])
def test_what_defi_agents_hold_is_confidential_and_addresses_are_not(text: str, expected: str) -> None:
    assert sensitivity.tag(text) == expected


def test_a_seed_phrase_is_twelve_words_in_a_row() -> None:
    words = ["legal", "winner", "thank", "year", "wave", "sausage", "worth", "useful", "legal", "winner", "thank",
             "yellow"]
    assert sensitivity.seed_phrase(" ".join(words)) and sensitivity.seed_phrase("\n".join(words))
    assert not sensitivity.seed_phrase(" ".join(words[:11]))  # eleven are not a phrase
    assert not sensitivity.seed_phrase(", ".join(words))      # a list with punctuation is prose
    assert not sensitivity.seed_phrase(" ".join(words).title())  # seed phrases are lowercase
    assert not sensitivity.seed_phrase(" ".join([*words[:6], "and", *words[6:]]))  # a function word breaks it


@pytest.mark.parametrize(("text", "expected"), [(t, "confidential") for t in CONFIDENTIAL]
                         + [(t, "personal") for t in PERSONAL] + [(t, "normal") for t in NORMAL])
def test_sensitivity_tagging_on_labelled_examples(text: str, expected: str) -> None:
    assert sensitivity.tag(text) == expected


# ---------------------------------------------------------------- fields, governance, views, pricing, modulation


def test_crystal_fields_map_what_grimoire_keeps() -> None:
    from grimoire.graph.model.crystal import fields

    e = fields.for_entry("Heuristic", "Clade", "Repay before the unlock", 1_000)
    assert (e["semantic_type"], e["origin"], e["epistemic_layer"]) == ("task_pattern", "peer", "directive")
    assert e["lifecycle"] == "generated" and e["access_count"] == 0 and e["importance_score"] == 0.095163
    m = fields.for_entry("Insight", "SelfLearned", "x", 1_000, mental_model=True)
    assert m["epistemic_layer"] == "mental_model" and m["origin"] == "inferred"
    mem = fields.for_memory("preference", "semantic", "I prefer Lido", True, 1_000)
    assert (mem["semantic_type"], mem["origin"], mem["epistemic_layer"]) == ("preference", "user_input", "directive")
    assert mem["hormone_oxytocin"] == 0.1 and mem["importance_score"] == round(1 - math.exp(-0.2), 6)  # f(1)
    proc = fields.for_memory("fact", "procedural", "deploy: 1. build 2. ship", False, 1_000)
    assert proc["semantic_type"] == "task_pattern" and proc["origin"] == "session"
    ep = fields.for_episode("action", "The swap failed with an error", 1_000)
    assert ep["origin"] == "indexed" and ep["hormone_cortisol"] == 0.3 and ep["emotional_valence"] == -0.15


def test_governance_keeps_confidential_private_and_sets_the_lifespan() -> None:
    from grimoire.graph.model.crystal.governance import govern
    from grimoire.graph.model.governance import GovernanceIn, Lifespan

    g = govern("the api key is sk-abcdefghijklmnopqrstu", "public", None, 1_000)
    assert g == {"sensitivity": "confidential", "lifespan": "decay", "priority": 0, "scope": "private",
                 "requested_scope": "public"}
    assert govern("I think ETH will rally", "shared", None, 0)["scope"] == "shared"  # personal: labelled only
    ttl = govern("a note", "private", GovernanceIn(lifespan=Lifespan.ttl, ttl_ms=5_000, priority=3), 1_000)
    assert ttl["expires_at"] == 6_000 and ttl["ttl_ms"] == 5_000 and ttl["priority"] == 3
    assert govern("a note", "public", None, 0, default_lifespan=Lifespan.permanent)["lifespan"] == "permanent"
    with pytest.raises(ValueError):
        GovernanceIn(lifespan=Lifespan.ttl)
    with pytest.raises(ValueError):
        GovernanceIn(ttl_ms=5_000)


def test_perspective_views() -> None:
    from grimoire.graph.crystals.perspectives import Perspective, view

    text = ("Open the vault page. Call withdraw() with every share because the rate falls when utilisation drops. "
            "The Morpho SDK and the Uniswap API help.")
    assert view(text, Perspective.procedural) == "Steps: Open the vault page. Call withdraw() with every share " \
                                                 "because the rate falls when utilisation drops."
    assert view(text, Perspective.causal).startswith("Cause and effect: Call withdraw() with every share because")
    entity = view(text, Perspective.entity)
    assert entity.startswith("Tools and technologies: ") and "withdraw()" in entity and "SDK" in entity
    assert view("nothing here", Perspective.causal) == "Cause and effect: nothing here"


def test_price_and_gates_by_hand() -> None:
    from grimoire.graph.crystals.pricing import price, scarcity

    assert (scarcity(1), scarcity(3), scarcity(9)) == (1.5, 1.2, 1.0)
    two = price({"execution_count": 2, "success_count": 2, "reward_sum": 2.0})
    assert two.listed is False and two.gates.model_dump() == {"executions": False, "success_rate": True}
    # 5 executions, 4 successes (0.8); rewards summing 3.0 (mean 0.6: score 0.8); quality 0.64; 9 buyers and 0
    # bounties: demand 1 + ln(10)·0.1 = 1.2302585; reputation 0.9; uncommon (3 in its category): 1.2.
    p = price({"execution_count": 5, "success_count": 4, "reward_sum": 3.0, "unique_buyers": 9},
              in_category=3, reputation=0.9)
    assert p.listed is True and p.quality == pytest.approx(0.64)
    assert p.price_usdc == pytest.approx(0.01 * 0.64 * (1 + math.log(10) * 0.1) * 0.9 * 1.2)
    assert price({"execution_count": 5, "success_count": 2, "reward_sum": 3.0}).price_usdc is None  # 40%
    assert price({"execution_count": 5, "success_count": 5, "deprecated": True}).listed is False


def test_retrieval_weights_under_the_hormones() -> None:
    from grimoire.graph.retrieval.config import RetrievalConfig

    c = RetrievalConfig().modulated(1.1, 1.3)
    assert c.rerank.quality == pytest.approx(0.20 * 1.1) and c.rerank.recency == pytest.approx(0.15 * 1.3)
    assert c.four_factor.importance == pytest.approx(0.25 * 1.1) and c.four_factor.temporal == pytest.approx(0.26)
    assert c.rerank.rrf == 0.30 and c.four_factor.semantic == 0.40
    assert (c.hormones.importance_boost, c.hormones.recency_bias) == (1.1, 1.3)
    assert RetrievalConfig().hormones.importance_boost == 1.0
