"""Request models of sub-agents' proposals (api/routes/proposals.py; ../shared/spec/moltbot-memory.md, 13)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.memory.proposals import ProposalDecision, ReviewMode
from grimoire.graph.memory.routing import Confidence, Store


class ProposalIn(BaseModel):
    """13.2's fields; what the sub-agent leaves out, the memory router fills in."""

    model_config = ConfigDict(extra="forbid")
    content: str = Field(min_length=1, max_length=4_000, description="the memory proposed")
    trigger: str = Field(default="auto-detect", min_length=1, max_length=300,
                         description="what set it off: auto-detect, or what the user said")
    store: Store | None = Field(default=None, description="the suggested store (episodic, semantic, procedural, vault)")
    entities: list[str] | None = Field(default=None, max_length=50, description="entity ids (kind--name)")
    confidence: Confidence | None = None
    core_worthy: bool | None = None


class ProposalDecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision: ProposalDecision = Field(description="commit, reject or defer (to the reflection engine)")
    store: Store | None = Field(default=None, description="commit to this store instead of the suggested one")
    reason: str | None = Field(default=None, max_length=1_000, description="why (a rejection's reason)")


class ProposalsTrustIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    auto_commit_at: Confidence | None = Field(
        description="commit this sub-agent's proposals at once from this confidence up; null: review each")


class ReviewModeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: ReviewMode = Field(description="auto: a trusted sub-agent's proposals committed at once from its "
                                         "confidence; batch (the default): held for the review at a session's "
                                         "start and end; manual: held for the person, not listed by sessions")
