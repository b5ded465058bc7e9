"""Request and response models of agent memory's routes (api/routes/memory.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from grimoire.graph.memory.approval import ApprovalDecision
from grimoire.graph.memory.blocks import Block
from grimoire.graph.memory.blocks import BlockOut as BlockOut  # core memory's answers, declared beside it
from grimoire.graph.memory.blocks import CoreOut as CoreOut
from grimoire.graph.memory.blocks import MemoryVersionOut as MemoryVersionOut
from grimoire.graph.memory.forgetting import ErasureReceipt as ErasureReceipt  # a permanent delete's, beside it
from grimoire.graph.memory.messages import MessageOut as MessageOut  # declared beside what answers it
from grimoire.graph.memory.relevance import Reinforcement
from grimoire.graph.model.common import Instant

MAX_TEXT = 60_000  # characters: far past what 3,000 tokens hold, so the cap (409) answers, not a 422


class ReplaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str = Field(max_length=MAX_TEXT, description="the block's new text (lines)")
    reason: str | None = Field(default=None, max_length=500)
    expected_version: int | None = Field(default=None, ge=0, description=(
        "the block's version this edit was made on (GET .../core); another gets a 409 and nothing is written"))


class AppendIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=MAX_TEXT, description="lines added at the block's end")
    reason: str | None = Field(default=None, max_length=500)
    expected_version: int | None = Field(default=None, ge=0, description=(
        "the block's version this edit was made on (GET .../core); another gets a 409 and nothing is written"))


class LineIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    new: str = Field(max_length=MAX_TEXT, description="the line's new text; empty: the line is deleted")
    line: int | None = Field(default=None, ge=1, description="the line's number (1-based), or")
    old: str | None = Field(default=None, max_length=MAX_TEXT, description="the line's current text")
    reason: str | None = Field(default=None, max_length=500)
    expected_version: int | None = Field(default=None, ge=0, description=(
        "the block's version this edit was made on (GET .../core); another gets a 409 and nothing is written"))


class PinIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact: str = Field(min_length=1, max_length=2_000, description="a critical fact (added when the block lacks it)")


# ---------------------------------------------------------------------------------------- messages and stores

class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=20_000, description="the user's message, as written")
    at: Instant | None = Field(default=None, description="when it was said; default: now")
    session_id: str | None = Field(default=None, min_length=1, max_length=200,
                                   description="the conversation: memories of one session follow each other")


class ForgetPreviewIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: str = Field(min_length=1, max_length=2_000, description="what to forget, as the user said it")
    permanent: bool = Field(default=False, description="a permanent deletion: archived memories match too")


class CoreLineIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    block: Block
    line: str = Field(min_length=1, max_length=MAX_TEXT)


class ForgetIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: str | None = Field(default=None, min_length=1, max_length=2_000,
                               description="what to forget: everything its preview finds, unless ids are given")
    ids: list[str] | None = Field(default=None, max_length=1_000, description="the memories confirmed")
    core_lines: list[CoreLineIn] | None = Field(default=None, max_length=200,
                                                description="the core lines confirmed; default: the target's")
    permanent: bool = Field(default=False, description="delete for good instead of archiving")

    @model_validator(mode="after")
    def _something(self) -> ForgetIn:
        if self.target is None and self.ids is None:
            raise ValueError("give the target or the ids of the memories to forget")
        return self


class IdsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ids: list[str] = Field(min_length=1, max_length=1_000)


class ReinforceIn(IdsIn):
    reason: Reinforcement = Field(description="used (returned and used in a response), referenced, confirmed, "
                                              "linked (section 9.4)")


# ---------------------------------------------------------------------------------------- reflection

class ReflectIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    about: str | None = Field(default=None, max_length=2_000, description="what to reflect on, if anything")


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision: ApprovalDecision = Field(
        description="approve, approve_with_changes, approve_part or reject (section 10.6)")
    items: list[str] | None = Field(default=None, max_length=1_000,
                                    description="approve_part: the proposals to apply, by their ids")
    exclude: list[str] = Field(default_factory=list, max_length=1_000,
                               description="approve_with_changes: the proposals left out")
    changes: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="approve_with_changes: per proposal id, new values (a fact's summary; "
                                          "a procedure's trigger, steps, notes; a core change's `after`)")
    note: str | None = Field(default=None, max_length=2_000, description="why, for the reflection log")


