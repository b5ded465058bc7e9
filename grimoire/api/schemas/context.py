"""The Context Governor at the edge (graph/context/): a change to an agent's policy, and the situation whose
allocations are asked for."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from grimoire.graph.context.affect import Pad
from grimoire.graph.context.categories import ContextCategory, ModelPreference, TaskComplexity, TaskType, TurnPhase
from grimoire.graph.context.reasoning import Provider
from grimoire.graph.context.strategy import RetrievalStrategy
from grimoire.graph.context.verification import BOUND, Prediction
from grimoire.graph.model.common import StrictModel
from grimoire.graph.model.enums import BehavioralPhase, MarketRegime

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Allocations = dict[ContextCategory, Fraction]
Unit = Annotated[float, Field(ge=-1.0, le=1.0)]


class RetrievalIn(StrictModel):
    similarity_threshold: Fraction | None = None
    max_episode_count: Annotated[int, Field(ge=0, le=100)] | None = None
    min_insight_confidence: Fraction | None = None
    max_causal_depth: Annotated[int, Field(ge=0, le=3)] | None = None
    full_episode_slots: Annotated[int, Field(ge=0, le=50)] | None = None
    summary_episode_slots: Annotated[int, Field(ge=0, le=100)] | None = None


class CompressionIn(StrictModel):
    episode_summary_threshold: Annotated[int, Field(ge=1, le=100_000)] | None = None
    insight_summary_threshold: Annotated[int, Field(ge=1, le=100_000)] | None = None


class PolicyIn(StrictModel):
    """What changes in the policy (what is left out stays): a new revision."""

    allocations: Allocations | None = Field(default=None, description="base fractions per category (merged in)")
    task_overrides: dict[TaskType, Allocations] | None = Field(default=None, description="per task type (replaced)")
    phase_overrides: dict[BehavioralPhase, Allocations] | None = Field(default=None, description="per phase (replaced)")
    regime_overrides: dict[MarketRegime, Allocations] | None = Field(default=None,
                                                                     description="per regime (replaced)")
    task_strategies: dict[TaskType, RetrievalStrategy] | None = Field(
        default=None, description="per task type: the collections drawn, their maxima, relevance threshold, causal "
                                  "traversal and ranking weights (replaced)")
    retrieval: RetrievalIn | None = None
    compression: CompressionIn | None = None
    model_preference: ModelPreference | None = None
    reason: str = Field(min_length=1, max_length=500, description="why: kept with the revision and its audit record")


class PadIn(StrictModel):
    pleasure: Unit = 0.0
    arousal: Unit = 0.0
    dominance: Unit = 0.0

    def pad(self) -> Pad:
        return Pad(self.pleasure, self.arousal, self.dominance)


class SituationIn(StrictModel):
    """What one decision is about (graph/context/policy.py Situation): its task type, phase, regime and mood. An
    assembly's request is one (AssembleIn)."""

    task: TaskType | None = None
    phase: BehavioralPhase | None = None
    regime: MarketRegime | None = None
    pad: PadIn = PadIn()
    turn_phase: TurnPhase | None = Field(default=None, description="the decision pipeline's step (analyze, decide, "
                                         "execute, reflect): its multipliers shape the categories' shares (S5.2)")
    task_complexity: TaskComplexity | None = Field(default=None, description="the task's complexity: only a low "
                                                   "one is injected in full below 50% context pressure (the route)")


SUPPLIABLE = ("invariants", "strategy", "defi_snapshot", "mortality", "tool_state", "owner_control", "affect")


class SuppliedIn(StrictModel):
    text: Annotated[str, Field(min_length=1, max_length=20_000)]
    id: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, description="what a response cites it by; default: a hash of the text")
    summary: Annotated[str, Field(min_length=1, max_length=500)] | None = Field(
        default=None, description="its one line; default: the text's first sentence")


class AssembleIn(SituationIn):
    """One decision's situation: what the workspace is assembled for."""

    query: Annotated[str, Field(min_length=1, max_length=4_000)] | None = Field(
        default=None, description="what the decision is about: the Grimoire's categories are searched by it")
    budget: Annotated[int, Field(ge=1, le=200_000)] | None = Field(
        default=None, description="tokens (the model's tokenizer); default: the soft budget, 8,000")
    supplied: dict[ContextCategory, Annotated[list[SuppliedIn], Field(max_length=200)]] = Field(
        default_factory=dict, description="the caller's own items per category, most important first: "
                                          + ", ".join(SUPPLIABLE))
    context_tokens: Annotated[int, Field(ge=0, le=10_000_000)] | None = Field(
        default=None, description="tokens already in the model's window (with max_context_tokens: the pressure)")
    max_context_tokens: Annotated[int, Field(ge=1, le=10_000_000)] | None = None
    tick: Annotated[int, Field(ge=0, le=2**53)] | None = None
    vitality: Annotated[float, Field(ge=0, le=1)] | None = Field(
        default=None, description="the agent's composite vitality: the attention score's mortality urgency is "
                                  "(1 - vitality) x relevance; default 1 (healthy, no urgency)")
    preassembled: bool = Field(default=True, description="answer from the kept workspace while it is fresh")

    @model_validator(mode="after")
    def _consistent(self) -> AssembleIn:
        wrong = sorted(c.value for c in self.supplied if c.value not in SUPPLIABLE)
        if wrong:
            raise ValueError(f"the Grimoire fills {', '.join(wrong)}; supply only {', '.join(SUPPLIABLE)}")
        if (self.context_tokens is None) != (self.max_context_tokens is None):
            raise ValueError("give context_tokens and max_context_tokens together")
        return self


class ReasoningIn(StrictModel):
    """A decision's reasoning as its provider gave it, normalised into a ReasoningChain (kept for dream replay)."""

    provider: Provider = Field(description="anthropic: the response's content blocks (thinking, redacted_thinking, "
                                           "tool_use, text); openai: the response's output items (reasoning with "
                                           "its summary, function_call, message); text: plain text, <think> tags "
                                           "taken when present (DeepSeek R1, Qwen)")
    model: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    blocks: Annotated[list[dict[str, Any]], Field(max_length=500)] = Field(
        default_factory=list, description="the provider's blocks as they came (anthropic, openai)")
    text: Annotated[str, Field(max_length=200_000)] | None = Field(default=None, description="provider text")
    reasoning_tokens: Annotated[int, Field(ge=0, le=10_000_000)] | None = Field(
        default=None, description="the provider's count; default: the text's tokens by the service's tokenizer")

    @model_validator(mode="after")
    def _shape(self) -> ReasoningIn:
        if self.provider == Provider.text and self.blocks:
            raise ValueError("the text provider takes `text`, not `blocks`")
        if self.provider != Provider.text and self.text is not None:
            raise ValueError(f"the {self.provider.value} provider takes `blocks`, not `text`")
        return self


class ContextFeedbackIn(StrictModel):
    """A decision made with a workspace, and how it went (Loop 1)."""

    assembly_id: Annotated[str, Field(min_length=1, max_length=100)]
    response: Annotated[str, Field(max_length=100_000)] | None = Field(
        default=None, description="the model's response: what it quoted or paraphrased counts as referenced")
    cited: Annotated[list[Annotated[str, Field(max_length=300)]], Field(max_length=500)] = Field(
        default_factory=list, description="ids, refs (h1, e3, …) or search-result sources (grimoire://…) of "
                                          "the items the response cited")
    quality: Fraction | None = Field(default=None, description="the outcome's quality; 0.5 or more is good; "
                                                               "unset: not known yet (no belief moves)")
    cost: Annotated[float, Field(ge=0, le=1e9)] = Field(default=0.0, description="the inference's cost")
    missing: Annotated[list[Annotated[str, Field(min_length=1, max_length=300)]], Field(max_length=50)] = Field(
        default_factory=list, description="missing-context signals: what the decision lacked")
    over_contexted: bool = False
    tick: Annotated[int, Field(ge=0, le=2**53)] | None = None
    model_tier: Literal["T0", "T1", "T2"] | None = Field(
        default=None, description="the cognitive tier that decided: T0 is a probe with no model call, and Loop 1 "
                                  "skips it (nothing recorded, no belief moves)")
    prediction: Prediction | None = Field(default=None, description="what the decision predicted; with `actual`, "
                                          "the answer's `verification` compares them (context-governor.md S3.4)")
    actual: Annotated[float, Field(ge=-BOUND, le=BOUND)] | None = Field(default=None, description="what happened")
    reasoning: ReasoningIn | None = Field(default=None, description="the decision's reasoning (context-governor.md: "
                                          "normalised into a ReasoningChain, kept with the record for dream replay)")

    @model_validator(mode="after")
    def _both(self) -> ContextFeedbackIn:
        if (self.prediction is None) != (self.actual is None):
            raise ValueError("give a prediction and the actual value together, or neither")
        return self
