"""Request and response models of agent memory's routes (api/routes/memory.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph.memory.blocks import CAP_TOKENS

MAX_TEXT = 60_000  # characters: far past what 3,000 tokens hold, so the cap (409) answers, not a 422


class BlockOut(BaseModel):
    block: str = Field(description="identity, context (active context), persona or critical (critical facts)")
    content: str = Field(description="the block's lines")
    tokens: int = Field(description="its tokens, counted with the embedding model's tokenizer")
    version: int = Field(description="1 for the first text, +1 per edit; 0: never written")
    pinned: list[str] = Field(description="critical facts pinned: never decay, kept by every edit")
    valid_from: int | None = Field(default=None, description="when this text was written (epoch ms)")
    written_by: str | None = Field(default=None, description="the key whose edit wrote it")


class CoreOut(BaseModel):
    agent_id: str
    cap: int = Field(default=CAP_TOKENS, description="the cap on the four blocks' tokens together")
    tokens: int = Field(description="the four blocks' tokens together")
    blocks: list[BlockOut]


class ReplaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str = Field(max_length=MAX_TEXT, description="the block's new text (lines)")
    reason: str | None = Field(default=None, max_length=500)


class AppendIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=MAX_TEXT, description="lines added at the block's end")
    reason: str | None = Field(default=None, max_length=500)


class LineIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    new: str = Field(max_length=MAX_TEXT, description="the line's new text; empty: the line is deleted")
    line: int | None = Field(default=None, ge=1, description="the line's number (1-based), or")
    old: str | None = Field(default=None, max_length=MAX_TEXT, description="the line's current text")
    reason: str | None = Field(default=None, max_length=500)


class PinIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact: str = Field(min_length=1, max_length=2_000, description="a critical fact (added when the block lacks it)")


class VersionOut(BaseModel):
    id: str
    version: int
    content: str
    tokens: int
    pinned: list[str]
    valid_from: int
    valid_until: int
    recorded_at: int
    recorded_until: int
    written_by: str | None = None
    replaced_by: str | None = None
    reason: str | None = None
