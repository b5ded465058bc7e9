"""An Episode: the atomic unit of experience (../shared/spec/grimoire.md, "Episode Struct")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from grimoire.graph.model.common import (
    MAX_INT,
    MAX_LIST,
    MAX_TEXT,
    AgentId,
    ClientId,
    EmotionalTag,
    EntityMention,
    FiniteFloat,
    Instant,
    ShortText,
    StoredNode,
    StoredTime,
    StrictModel,
    Unit,
)
from grimoire.graph.model.enums import (
    BehavioralPhase,
    EntityKind,
    EpisodeType,
    Importance,
    MarketRegime,
    Outcome,
    PlutchikEmotion,
    Scope,
)
from grimoire.graph.model.governance import GovernanceIn
from grimoire.graph.model.state import (
    MAX_INVARIANTS,
    InvariantIn,
    StateSnapshot,
    StoredInvariants,
    StoredSnapshot,
    check_declared,
)

MAX_BATCH = 5_000


class PredictionIn(StrictModel):
    """What the agent predicted before acting, and (once verified) what happened: Reflexion's input."""

    metric: ShortText = Field(default="return_bps", description="what was predicted, e.g. return_bps, slippage_bps")
    expected: FiniteFloat
    actual: FiniteFloat | None = Field(default=None, description="the verified outcome; unset: not verified yet")
    tolerance: Annotated[float, Field(ge=0, le=1e12)] = Field(
        default=50.0, description="|actual - expected| within it counts as correct (the spec's 50 bps)")
    informed_by: Annotated[list[ClientId], Field(max_length=MAX_LIST)] = Field(
        default_factory=list, description="entries that informed the decision (besides the decision record's)")


class EpisodeSituation(StrictModel):
    """Where and when an episode happened: its tick and block, the market regime, the strategy running, the chain
    and the token pair. An episode carries them, and so do a turn and each of its items (graph/hooks.py: an item's
    unset ones take the turn's)."""

    tick: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    block: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    regime: MarketRegime | None = None
    strategy: ShortText | None = Field(default=None, description="the strategy the agent was running, e.g. eth-dca")
    chain: ShortText | None = Field(default=None, description="chain id, e.g. '1'")
    token_pair: ShortText | None = None


class EpisodeIn(EpisodeSituation):
    id: ClientId | None = None
    agent_id: AgentId | None = Field(default=None, description="the owner; default: the key's agent")
    scope: Scope = Scope.private
    type: EpisodeType
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    tool: ShortText | None = None
    outcome: Outcome = Outcome.neutral
    outcome_detail: Annotated[str, Field(max_length=2_000)] | None = None
    importance: Importance = Importance.routine
    actions: Annotated[list[ShortText], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    gain: FiniteFloat | None = Field(default=None, description="P&L gain, for replay selection")
    emotional_tag: EmotionalTag | None = None
    consolidated: bool = False
    confidence: Unit | None = Field(default=None, description="how sure the record is; unset counts 0.6")
    interrupted: bool = Field(default=False, description="an interrupted or incomplete action (Zeigarnik)")
    decision_id: ClientId | None = Field(default=None, description="the retrieval for the decision this episode "
                                                                   "records (RetrievalResult.decision_id)")
    prediction: PredictionIn | None = None
    pre_state: StateSnapshot | None = Field(
        default=None, description="the values the action touched, before it (token balances, pool reserves): "
                                  "Reflexion compares them with post_state")
    post_state: StateSnapshot | None = Field(default=None, description="the same values after the action")
    invariants: Annotated[list[InvariantIn], Field(max_length=MAX_INVARIANTS)] = Field(
        default_factory=list, description="bounds that must hold after the action; Reflexion records a "
                                          "safety_incident episode when one does not")
    causal_link_id: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, description="a causal link this outcome confirms (positive) or contradicts (negative)")
    valid_from: Instant | None = Field(default=None, description="when it happened; default: now")
    valid_until: Instant | None = None
    valid_from_block: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(default=None, description="default: block")
    valid_until_block: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    mentions: Annotated[list[EntityMention], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    follows: ClientId | None = Field(default=None, description="the episode before this one in its thread "
                                                                "(conversation, session): a FOLLOWS link")
    governance: GovernanceIn | None = Field(default=None, description="the crystal's lifespan and priority")

    @model_validator(mode="after")
    def _times_in_order(self) -> EpisodeIn:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValueError("valid_until is before valid_from")
        start = self.valid_from_block if self.valid_from_block is not None else self.block
        if start is not None and self.valid_until_block is not None and self.valid_until_block < start:
            raise ValueError("valid_until_block is before valid_from_block")
        check_declared(self.pre_state, self.post_state, self.invariants)
        return self


class EpisodeBatch(StrictModel):
    episodes: Annotated[list[EpisodeIn], Field(min_length=1, max_length=MAX_BATCH)]


# ---------------------------------------------------------------- as answered

class MentionOut(BaseModel):
    id: str
    kind: EntityKind | None
    name: str | None


PENDING_WORK = frozenset({"pending_mentions", "pending_follows"})  # graph/enrichment.py's, not the answer's


class EpisodeOut(StoredNode):
    """An episode as stored, times in ISO 8601, without its embedding, with the entities it mentions.
    Open: an import (POST /agents/import) restores an episode's properties as exported, which may
    be more than these."""

    id: str
    agent_id: str | None = None
    clade: str | None = None
    scope: Scope | None = None
    type: EpisodeType | None = None
    text: str | None = None
    tool: str | None = None
    outcome: Outcome | None = None
    outcome_detail: str | None = None
    chain: str | None = None
    token_pair: str | None = None
    tick: int | None = None
    block: int | None = None
    importance: Importance | None = None
    regime: MarketRegime | None = None
    actions: list[str] | None = None
    gain: float | None = None
    consolidated: bool | None = None
    valid_from: StoredTime | None = None
    valid_until: StoredTime | None = None
    valid_from_block: int | None = None
    valid_until_block: int | None = None
    time_axis: str | None = None  # "block" or "timestamp": which valid time the episode has
    recorded_at: StoredTime | None = None
    recorded_until: StoredTime | None = None
    last_accessed_at: StoredTime | None = None
    updated_at: StoredTime | None = None
    access_count: int | None = None
    audit_id: str | None = None
    emotion_primary: PlutchikEmotion | None = None
    pad: list[float] | None = None
    emotion_phase: BehavioralPhase | None = None
    emotion_intensity: float | None = None
    emotion_label: str | None = None
    confidence: float | None = None
    pre_state: StoredSnapshot = None
    post_state: StoredSnapshot = None
    invariants: StoredInvariants = None
    source_episode_id: str | None = Field(default=None, description="a safety_incident's: the episode whose "
                                                                      "invariants it reports broken")
    mentions: list[MentionOut] = []
    enrichment: Literal["pending", "done"] = Field(
        default="done", description="pending: stored and searchable, its mentions and FOLLOWS not written yet (the "
                                    "enrichment job does them moments after a lazy ingest); done: they are")

    @model_validator(mode="before")
    @classmethod
    def _without_pending_work(cls, data: Any) -> Any:
        """The pending work an episode carries is the job's, not the answer's (episodes/get and episodes/list
        answer `done` for an episode stored before enrichment was kept)."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if k not in PENDING_WORK}
        return data
