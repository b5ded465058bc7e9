"""The Governor's vocabulary and its defaults (context-governor.md S2.3, S2.4): the thirteen context categories,
the task types, the model preference, the default allocations and the default regime and phase overrides.

The spec's regimes Volatile and BearHighVol are not in the Grimoire's MarketRegime (grimoire.md: bull, bear,
sideways, high_vol, low_vol, crisis); they are read as high_vol and crisis."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from grimoire.graph.model.enums import BehavioralPhase, MarketRegime


class ContextCategory(StrEnum):
    invariants = "invariants"
    strategy = "strategy"
    playbook = "playbook"
    episodes = "episodes"
    insights = "insights"
    causal_edges = "causal_edges"
    contrarian = "contrarian"
    dream_hypotheses = "dream_hypotheses"
    tool_state = "tool_state"
    defi_snapshot = "defi_snapshot"
    mortality = "mortality"
    affect = "affect"
    owner_control = "owner_control"


class TaskType(StrEnum):
    swap = "swap"
    lp_rebalance = "lp_rebalance"
    risk_check = "risk_check"
    vault_deposit = "vault_deposit"
    vault_withdraw = "vault_withdraw"
    strategy_review = "strategy_review"
    dream = "dream"
    sim = "sim"


class TurnPhase(StrEnum):
    """The step of the decision pipeline a turn is in (S5.2), not the agent's behavioural phase."""

    analyze = "analyze"
    decide = "decide"
    execute = "execute"
    reflect = "reflect"


class TaskComplexity(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"


_ORDER = ("invariants", "strategy", "playbook", "episodes", "insights", "causal_edges", "contrarian",
          "dream_hypotheses", "tool_state", "defi_snapshot", "mortality", "affect", "owner_control")


def _row(*values: float) -> dict[ContextCategory, float]:
    return {ContextCategory(c): v for c, v in zip(_ORDER, values, strict=True)}


# S5.2 phase_multipliers: how much of each category to inject per pipeline step (the spec's table, its order)
TURN_PHASE_MULTIPLIERS: dict[TurnPhase, dict[ContextCategory, float]] = {
    TurnPhase.analyze: _row(1.0, 0.8, 1.5, 0.8, 0.8, 0.6, 0.4, 0.3, 0.8, 1.3, 0.6, 0.4, 1.0),
    TurnPhase.decide: _row(1.0, 1.0, 0.8, 1.4, 1.2, 1.3, 0.8, 0.5, 0.5, 0.8, 0.8, 0.6, 1.0),
    TurnPhase.execute: _row(1.0, 0.5, 0.3, 0.3, 0.3, 0.2, 0.0, 0.0, 1.5, 0.5, 0.3, 0.0, 1.0),
    TurnPhase.reflect: _row(0.5, 0.5, 0.8, 1.0, 1.0, 1.0, 1.2, 0.8, 0.3, 0.3, 0.5, 1.0, 0.5),
}


class ModelPreference(StrEnum):
    cheap_first = "cheap_first"
    balanced = "balanced"
    paranoid = "paranoid"


Allocations = dict[ContextCategory, float]
C = ContextCategory

# S2.4: fractions of the budget (they sum to 0.99; normalised to 1.0 when composed).
DEFAULT_ALLOCATIONS: Allocations = {
    C.invariants: 0.15, C.strategy: 0.10, C.playbook: 0.15, C.episodes: 0.12, C.insights: 0.10,
    C.causal_edges: 0.08, C.contrarian: 0.04, C.dream_hypotheses: 0.03, C.tool_state: 0.03,
    C.defi_snapshot: 0.08, C.mortality: 0.04, C.affect: 0.03, C.owner_control: 0.04,
}

DEFAULT_REGIME_OVERRIDES: dict[MarketRegime, Allocations] = {
    MarketRegime.high_vol: {C.defi_snapshot: 0.10, C.episodes: 0.08, C.contrarian: 0.02},         # Volatile
    MarketRegime.crisis: {C.mortality: 0.06, C.contrarian: 0.01, C.dream_hypotheses: 0.01},       # BearHighVol
}

DEFAULT_PHASE_OVERRIDES: dict[BehavioralPhase, Allocations] = {
    BehavioralPhase.conservation: {C.mortality: 0.06, C.episodes: 0.06, C.contrarian: 0.01, C.dream_hypotheses: 0.0},
    BehavioralPhase.declining: {C.mortality: 0.08, C.invariants: 0.20, C.episodes: 0.04, C.insights: 0.04,
                                C.contrarian: 0.0, C.dream_hypotheses: 0.0, C.affect: 0.0},
    BehavioralPhase.terminal: {C.invariants: 0.30, C.mortality: 0.10},
}

# S2.3: the spec gives no default task overrides; a person or the feedback loops add them.
DEFAULT_TASK_OVERRIDES: dict[TaskType, Allocations] = {}


class RetrievalConfig(BaseModel):
    """S2.3 RetrievalConfig, with its defaults: how the Governor fetches the Grimoire's categories."""

    similarity_threshold: float = 0.3
    max_episode_count: int = 10
    min_insight_confidence: float = 0.4
    max_causal_depth: int = 3
    full_episode_slots: int = 3       # observation masking: episodes in full,
    summary_episode_slots: int = 7    # and as one line


class CompressionConfig(BaseModel):
    """S2.3 CompressionConfig, with its defaults: above these tokens an item is shown as its one line."""

    episode_summary_threshold: int = 200
    insight_summary_threshold: int = 150
