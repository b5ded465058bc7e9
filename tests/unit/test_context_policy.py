"""The Context Governor's rules against the spec's numbers (context-governor.md S2.4, S3.2, S3.3, S3.6, S3.7 and
the lost-in-the-middle rule): override composition and normalisation, affect modulation with its clamps,
progressive disclosure at 70% and 95%, observation masking (3 full, 7 one-line) and the interleaving order."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grimoire.graph.context import affect, disclosure, ordering, overrides
from grimoire.graph.context.categories import (
    DEFAULT_ALLOCATIONS,
    DEFAULT_PHASE_OVERRIDES,
    DEFAULT_REGIME_OVERRIDES,
    TURN_PHASE_MULTIPLIERS,
    TaskType,
    TurnPhase,
)
from grimoire.graph.context.categories import ContextCategory as C
from grimoire.graph.context.policy import Policy, Situation, resolve
from grimoire.graph.context.recalibration import Record, learn_regime_policy
from grimoire.graph.model.enums import BehavioralPhase, MarketRegime


def test_the_default_allocations_sum_to_0_99_and_are_normalised_when_composed() -> None:
    assert sum(DEFAULT_ALLOCATIONS.values()) == pytest.approx(0.99)
    composed = overrides.compose(DEFAULT_ALLOCATIONS, [])
    assert sum(composed.values()) == pytest.approx(1.0)
    assert composed[C.invariants] == pytest.approx(0.15 / 0.99)


def _layered(*layers: dict[C, float]) -> dict[C, float]:
    """The spec's routing by hand: each layer's values replace the shares, then the whole is normalised."""
    out = dict(DEFAULT_ALLOCATIONS)
    for layer in layers:
        out.update(layer)
        total = sum(out.values())
        out = {c: v / total for c, v in out.items()}
    return out


def test_phase_then_regime_overrides_compose_later_wins_each_normalised() -> None:
    # Conservation in a crashing market (the spec's BearHighVol, here crisis): both sets apply, the regime last.
    layers = [overrides.Step("phase", DEFAULT_PHASE_OVERRIDES[BehavioralPhase.conservation]),
              overrides.Step("regime", DEFAULT_REGIME_OVERRIDES[MarketRegime.crisis])]
    composed = overrides.compose(DEFAULT_ALLOCATIONS, layers)
    # by the numbers: the phase makes the total 0.99 - 0.23 + 0.13 = 0.89, normalised; the regime then sets
    # mortality 0.06, contrarian 0.01 and dream hypotheses 0.01 (over the phase's 0.0) of that
    after_phase_total = 0.99 - (0.04 + 0.12 + 0.04 + 0.03) + (0.06 + 0.06 + 0.01 + 0.0)
    assert after_phase_total == pytest.approx(0.89)
    rest = {c: v / after_phase_total for c, v in {**DEFAULT_ALLOCATIONS,
                                                   **DEFAULT_PHASE_OVERRIDES[BehavioralPhase.conservation]}.items()}
    total = sum(v for c, v in rest.items() if c not in (C.mortality, C.contrarian, C.dream_hypotheses)) + 0.08
    assert composed[C.dream_hypotheses] == pytest.approx(0.01 / total)
    assert composed[C.mortality] == pytest.approx(0.06 / total)
    assert composed[C.invariants] == pytest.approx(0.15 / 0.89 / total)
    assert composed == pytest.approx(_layered(DEFAULT_PHASE_OVERRIDES[BehavioralPhase.conservation],
                                              DEFAULT_REGIME_OVERRIDES[MarketRegime.crisis]))
    assert sum(composed.values()) == pytest.approx(1.0)
    # Declining sets contrarian to 0.0; a volatile regime after it sets 0.02: the later layer wins.
    later = overrides.compose(DEFAULT_ALLOCATIONS, [
        overrides.Step("phase", DEFAULT_PHASE_OVERRIDES[BehavioralPhase.declining]),
        overrides.Step("regime", DEFAULT_REGIME_OVERRIDES[MarketRegime.high_vol])])
    assert later == pytest.approx(_layered(DEFAULT_PHASE_OVERRIDES[BehavioralPhase.declining],
                                           DEFAULT_REGIME_OVERRIDES[MarketRegime.high_vol]))
    assert later[C.contrarian] > 0 and later[C.affect] == 0.0
    # Terminal: only constraints matter — invariants 0.30 of a 1.20 total.
    terminal = overrides.compose(DEFAULT_ALLOCATIONS, [overrides.Step("phase",
                                                                      DEFAULT_PHASE_OVERRIDES[BehavioralPhase.terminal])])
    assert terminal[C.invariants] == pytest.approx(0.25) and terminal[C.mortality] == pytest.approx(0.10 / 1.20)


def test_task_overrides_come_first_then_phase_then_regime() -> None:
    policy = Policy()
    policy.task_overrides[TaskType.swap] = {C.tool_state: 0.09, C.mortality: 0.02}
    out = resolve(policy, Situation(task=TaskType.swap, phase=BehavioralPhase.conservation))
    assert [layer.layer for layer in out.layers] == ["task:swap", "phase:conservation"]
    expected = _layered({C.tool_state: 0.09, C.mortality: 0.02}, DEFAULT_PHASE_OVERRIDES[BehavioralPhase.conservation])
    assert {C(c): v for c, v in out.composed.items()} == pytest.approx(expected)
    assert out.composed["mortality"] == pytest.approx(expected[C.mortality])  # the phase wins over the task


def test_affect_modulation_follows_the_spec_rules_and_clamps() -> None:
    base = dict(DEFAULT_ALLOCATIONS)  # 0.99 in all
    stressed = affect.modulate(affect.Pad(pleasure=-0.5, arousal=0.5), base)
    assert affect.states(affect.Pad(pleasure=-0.5, arousal=0.5)) == ["stressed"]
    assert stressed[C.contrarian] == pytest.approx(0.06 / 0.99)
    assert stressed[C.episodes] == pytest.approx(0.11 / 0.99) and stressed[C.playbook] == pytest.approx(0.14 / 0.99)
    uncertain = affect.modulate(affect.Pad(dominance=-0.5), base)
    assert uncertain[C.playbook] == pytest.approx(0.17 / 0.99)
    assert uncertain[C.dream_hypotheses] == pytest.approx(0.02 / 0.99)
    assert uncertain[C.contrarian] == pytest.approx(0.03 / 0.99)
    complacent = affect.modulate(affect.Pad(pleasure=0.8, arousal=-0.5), base)
    assert complacent[C.contrarian] == pytest.approx(0.055 / 0.99)
    assert complacent[C.affect] == pytest.approx(0.015 / 0.99)
    # stressed and uncertain at once: both shifts
    both = affect.modulate(affect.Pad(pleasure=-0.5, arousal=0.5, dominance=-0.5), base)
    assert both[C.contrarian] == pytest.approx(0.05 / 0.99) and both[C.playbook] == pytest.approx(0.16 / 0.99)
    # the thresholds are strict
    assert affect.states(affect.Pad(pleasure=-0.3, arousal=0.5, dominance=-0.2)) == []
    assert affect.modulate(affect.Pad(), base) == pytest.approx(overrides.normalize(base))
    # a category at 0 (declining's contrarian, dream hypotheses and affect) is clamped to 0.01 before normalising
    declining = {**DEFAULT_ALLOCATIONS, **DEFAULT_PHASE_OVERRIDES[BehavioralPhase.declining]}
    clamped = affect.modulate(affect.Pad(), declining)
    raw = {c: max(v, 0.01) for c, v in declining.items()}
    assert clamped[C.affect] == pytest.approx(0.01 / sum(raw.values())) and clamped[C.affect] > 0


def test_progressive_disclosure_at_70_and_95_percent() -> None:
    items = list(range(12))  # 30 tokens in full, 5 as a one-liner each
    out = disclosure.disclose(items, 100, lambda _: 30, lambda _: 5)
    assert out.full == [0, 1]                       # 60 tokens; a third would pass 70
    assert out.summarized == [2, 3, 4, 5, 6, 7, 8]  # one-liners from 60 until 95 is reached
    assert [i for i, _ in out.excluded] == [9, 10, 11] and out.tokens == 95
    assert "95%" in out.excluded[0][1]
    # a one-liner that would cross the budget itself is excluded, not squeezed in
    tight = disclosure.disclose([0, 1], 100, lambda _: 60, lambda _: 50)
    assert tight.full == [0] and tight.summarized == [] and [i for i, _ in tight.excluded] == [1]


@given(st.lists(st.tuples(st.integers(0, 400), st.integers(0, 60)), max_size=40), st.integers(0, 2_000))
def test_disclosure_never_exceeds_the_budget(sizes: list[tuple[int, int]], budget: int) -> None:
    out = disclosure.disclose(sizes, budget, lambda s: s[0], lambda s: s[1])
    assert out.tokens <= budget
    assert len(out.full) + len(out.summarized) + len(out.excluded) == len(sizes)
    assert out.tokens == sum(s[0] for s in out.full) + sum(s[1] for s in out.summarized)


def test_observation_masking_keeps_3_full_and_7_one_line_newest_first() -> None:
    episodes = [{"id": i, "at": i} for i in range(12)]
    masked = disclosure.mask(episodes, lambda e: int(e["at"]))
    assert [e["id"] for e in masked.full] == [11, 10, 9]
    assert [e["id"] for e in masked.summarized] == [8, 7, 6, 5, 4, 3, 2]
    assert [e["id"] for e in masked.left_out] == [1, 0]


def test_lost_in_the_middle_ordering() -> None:
    assert ordering.interleave(["r1", "r2", "r3", "r4", "r5"]) == ["r1", "r4", "r5", "r3", "r2"]  # the spec's
    seven = ordering.interleave([1, 2, 3, 4, 5, 6, 7])
    assert seven[0] == 1 and seven[-1] == 2 and seven[len(seven) // 2] == 7  # best at the ends, weakest inside
    assert ordering.interleave([]) == [] and ordering.interleave(["a"]) == ["a"]
    assert sorted(ordering.interleave(list(range(20)))) == list(range(20))


def test_a_policy_round_trips_through_json() -> None:
    policy = Policy()
    assert Policy.from_json(policy.to_json()) == policy


def test_a_policys_retrieval_and_compression_are_models_checked_when_read() -> None:
    """The stored JSON is read into typed parts: settings with their types (a wrong one refused, not carried to
    the Governor), a guideline of old (its text only) as a guideline, and the answer's JSON as it always was."""
    from pydantic import ValidationError

    from grimoire.graph.context.categories import CompressionConfig, RetrievalConfig
    from grimoire.graph.context.guidelines import Guideline

    stored = json.loads(Policy().to_json())
    policy = Policy.from_json(json.dumps({**stored, "guidelines": ["keep episodes whole"]}))
    assert isinstance(policy.retrieval, RetrievalConfig) and isinstance(policy.compression, CompressionConfig)
    assert policy.retrieval.max_causal_depth == 3 and policy.compression.insight_summary_threshold == 150
    assert policy.guidelines == [Guideline(text="keep episodes whole")]
    with pytest.raises(ValidationError):
        Policy.from_json(json.dumps({**stored, "retrieval": {"similarity_threshold": "high"}}))
    assert stored["retrieval"] == {"similarity_threshold": 0.3, "max_episode_count": 10, "min_insight_confidence": 0.4,
                                   "max_causal_depth": 3, "full_episode_slots": 3, "summary_episode_slots": 7}
    assert stored["metrics"] == {"decision_quality_avg": 0.0, "token_efficiency": 0.0, "last_validated": 0}


# context-governor.md S5.2 phase_multipliers, copied as written (Invariants, Strategy, Playbook, Episodes, Insights,
# CausalEdges, Contrarian, DreamHypotheses, ToolState, DefiSnapshot, Mortality, Affect, OwnerControl)
SPEC_S5_2 = {
    "analyze": (1.0, 0.8, 1.5, 0.8, 0.8, 0.6, 0.4, 0.3, 0.8, 1.3, 0.6, 0.4, 1.0),
    "decide": (1.0, 1.0, 0.8, 1.4, 1.2, 1.3, 0.8, 0.5, 0.5, 0.8, 0.8, 0.6, 1.0),
    "execute": (1.0, 0.5, 0.3, 0.3, 0.3, 0.2, 0.0, 0.0, 1.5, 0.5, 0.3, 0.0, 1.0),
    "reflect": (0.5, 0.5, 0.8, 1.0, 1.0, 1.0, 1.2, 0.8, 0.3, 0.3, 0.5, 1.0, 0.5),
}
SPEC_ORDER = ("invariants", "strategy", "playbook", "episodes", "insights", "causal_edges", "contrarian",
              "dream_hypotheses", "tool_state", "defi_snapshot", "mortality", "affect", "owner_control")


def test_the_turn_phase_multipliers_are_the_specs_table() -> None:
    assert {p.value: {c.value: v for c, v in row.items()} for p, row in TURN_PHASE_MULTIPLIERS.items()} == {
        phase: dict(zip(SPEC_ORDER, row, strict=True)) for phase, row in SPEC_S5_2.items()}


def test_the_turn_phase_multipliers_shape_the_shares_last() -> None:
    """S5.2 phase_multipliers: the pipeline step's multiplier on each category after affect, normalised; Execute
    gives the contrarian, dream and affect categories nothing, Decide gives episodes 1.4 and tool state 0.5."""
    base = resolve(Policy(), Situation())
    assert TURN_PHASE_MULTIPLIERS[TurnPhase.decide][C.episodes] == 1.4
    assert TURN_PHASE_MULTIPLIERS[TurnPhase.analyze][C.playbook] == 1.5
    for phase, multipliers in TURN_PHASE_MULTIPLIERS.items():
        got = resolve(Policy(), Situation(turn_phase=phase))
        assert got.layers[-1].layer == f"turn:{phase.value}" and got.composed == base.composed
        weighted = {c: base.allocations[c.value] * m for c, m in multipliers.items()}
        total = sum(weighted.values())
        assert got.allocations == pytest.approx({c.value: v / total for c, v in weighted.items()})
    execute = resolve(Policy(), Situation(turn_phase=TurnPhase.execute)).allocations
    assert execute["contrarian"] == execute["dream_hypotheses"] == execute["affect"] == 0.0
    decide = resolve(Policy(), Situation(turn_phase=TurnPhase.decide)).allocations
    assert decide["episodes"] / decide["tool_state"] == pytest.approx(
        base.allocations["episodes"] * 1.4 / (base.allocations["tool_state"] * 0.5))


def test_a_situation_is_declared_once() -> None:
    """The Governor's request is a situation (resolved as one), and so is an assembly's body at the edge."""
    from grimoire.api.schemas.context import AssembleIn, SituationIn
    from grimoire.graph.context.governor import Request

    assert issubclass(Request, Situation) and issubclass(AssembleIn, SituationIn)
    request = Request(task=TaskType.swap, phase=BehavioralPhase.terminal, query="q", tick=3)
    assert resolve(Policy(), request) == resolve(Policy(), Situation(task=TaskType.swap,
                                                                     phase=BehavioralPhase.terminal))


def test_the_delta_between_two_workspaces() -> None:
    from grimoire.graph.context.delta import compute
    from grimoire.graph.context.disclosure import Disclosure
    from grimoire.graph.context.workspace import ContextEntry, Workspace

    def entry(i: str, cat: C, tokens: int, how: Disclosure = Disclosure.full) -> ContextEntry:
        return ContextEntry(i, cat, f"text of {i}", tokens, how)

    first = Workspace({C.episodes: [entry("e1", C.episodes, 40), entry("e2", C.episodes, 30)],
                       C.playbook: [entry("h1", C.playbook, 20)], C.invariants: [entry("i1", C.invariants, 10)]})
    second = Workspace({C.episodes: [entry("e2", C.episodes, 8, Disclosure.summary), entry("e3", C.episodes, 35)],
                        C.playbook: [entry("h1", C.playbook, 20)], C.invariants: [entry("i1", C.invariants, 10)],
                        C.contrarian: [entry("c1", C.contrarian, 12)]})
    delta = compute(first, second)
    assert delta.changed_categories == [C.episodes, C.contrarian]  # in the categories' order
    assert [e.id for e in delta.added[C.episodes]] == ["e2", "e3"]  # e2 now a one-liner: other text
    assert sorted(delta.removed[C.episodes]) == ["e1", "e2"]
    assert [e.id for e in delta.added[C.contrarian]] == ["c1"] and C.contrarian not in delta.removed
    assert delta.token_delta == (8 + 35 + 20 + 10 + 12) - (40 + 30 + 20 + 10)
    assert compute(second, second).changed_categories == [] and compute(second, second).token_delta == 0
    everything = compute(None, first)
    assert everything.changed_categories == [C.invariants, C.playbook, C.episodes] and everything.removed == {}


def test_a_regime_policy_is_learned_from_twenty_decisions_five_of_them_good() -> None:
    """context-governor.md S4 learn_regime_policy: under 20 records, or under 5 with quality over 0.7, nothing; else
    the tokens the good decisions injected per category, normalised."""
    def rec(quality: float | None, injected: dict[str, int]) -> Record:
        return Record(injected=injected, referenced=frozenset(), quality=quality, cost=0.0, missing=())

    good = rec(0.8, {"playbook": 300, "episodes": 100, "not-a-category": 50})
    poor = rec(0.4, {"insights": 1_000})
    assert learn_regime_policy([good] * 5 + [poor] * 14) is None           # 19 records
    assert learn_regime_policy([good] * 4 + [poor] * 16) is None           # 20, only 4 good
    assert learn_regime_policy([good] * 4 + [rec(0.7, {"playbook": 1})] + [poor] * 15) is None  # 0.7 is not over
    learned = learn_regime_policy([good] * 5 + [poor] * 15)
    assert learned == {C.episodes: pytest.approx(100 / 450), C.playbook: pytest.approx(300 / 450)}  # over all
