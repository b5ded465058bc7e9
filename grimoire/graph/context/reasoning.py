"""A decision's reasoning, normalised (context-governor.md "Reasoning Chain Preservation for Dream Replay"): every
provider's reasoning output — Anthropic's thinking blocks (summarised; a redacted block is opaque), OpenAI's
reasoning summaries (an encrypted item alone is opaque), DeepSeek R1 and Qwen <think> tags, or plain text — becomes
one ReasoningChain: the provider and model, its visibility, its text, its tokens, its phases (one per paragraph,
typed by what the paragraph does), the provider's raw blocks for a faithful reconstruction, and a hash of it all.

It is kept on the decision's record (graph/context/feedback.py), read back with the agent's decisions, and listed
for dream replay beside each decision's quality and prediction error (`replayable`). An erasure redacts it like
every other copy of an erased text: it is a text property of the agent's ContextDecision (graph/audit/erasure.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.audit.erasure import chain_digest
from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Row


class Provider(StrEnum):
    anthropic = "anthropic"     # content blocks: thinking / redacted_thinking
    openai = "openai"           # output items: reasoning, with a summary of summary_text parts
    text = "text"               # plain text, <think>…</think> tags taken when present (DeepSeek R1, Qwen)


class ChainVisibility(StrEnum):
    visible = "visible"
    summarized = "summarized"
    opaque = "opaque"
    none = "none"


class PhaseType(StrEnum):
    analysis = "analysis"
    planning = "planning"
    evaluation = "evaluation"
    reflection = "reflection"
    uncertainty = "uncertainty"
    decision = "decision"


class ReasoningPhase(BaseModel):
    type: PhaseType
    content: str


class RawBlock(BaseModel):
    """A provider's block as it came (its type and text; an opaque block's payload as `data`)."""

    type: str
    text: str | None = None
    data: str | None = None
    signature: str | None = None


class ReasoningChain(BaseModel):
    """One decision's reasoning, as every consumer (the Grimoire, dream replay, a TUI) reads it."""

    provider: str
    model: str | None
    visibility: ChainVisibility
    content: str | None
    reasoning_tokens: int
    interleaved: bool
    phases: list[ReasoningPhase] = Field(description="the reasoning's steps, one per paragraph, each typed")
    raw_blocks: list[RawBlock]
    hash: str = Field(description="sha256 of the chain as normalised (provider, model, content, raw blocks)")


_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_PARAGRAPHS = re.compile(r"\n\s*\n")
# the first cue a paragraph holds decides its type; none: analysis
_CUES: tuple[tuple[PhaseType, re.Pattern[str]], ...] = (
    (PhaseType.decision, re.compile(r"\b(i will|i'll|decid\w*|therefore|final answer|go with|so the answer)\b", re.I)),
    (PhaseType.uncertainty, re.compile(r"\b(not sure|unsure|uncertain\w*|unclear|might|maybe|perhaps)\b", re.I)),
    (PhaseType.reflection, re.compile(r"\b(in hindsight|looking back|last time|previously|reflect\w*|mistake)\b",
                                      re.I)),
    (PhaseType.planning, re.compile(r"\b(plan|first,|then|next,|step \d|steps?)\b", re.I)),
    (PhaseType.evaluation, re.compile(r"\b(compar\w*|evaluat\w*|weigh\w*|trade-?off|pros?|cons?|risk\w*|versus|vs)\b",
                                      re.I)),
)


def phases(content: str | None) -> list[ReasoningPhase]:
    out = []
    for para in _PARAGRAPHS.split(content or ""):
        text = " ".join(para.split())
        if text:
            kind = next((t for t, cue in _CUES if cue.search(text)), PhaseType.analysis)
            out.append(ReasoningPhase(type=kind, content=text))
    return out


def _str(x: Any) -> str | None:
    return x if isinstance(x, str) else None


def _anthropic(blocks: Sequence[dict[str, Any]]) -> tuple[list[RawBlock], list[str], bool, bool]:
    raw, texts, opaque, interleaved = [], [], False, False
    kinds = [str(b.get("type")) for b in blocks]
    for b in blocks:
        kind = str(b.get("type"))
        if kind == "thinking":
            raw.append(RawBlock(type=kind, text=_str(b.get("thinking")), signature=_str(b.get("signature"))))
            texts.append(str(b.get("thinking") or ""))
        elif kind == "redacted_thinking":
            raw.append(RawBlock(type=kind, data=_str(b.get("data"))))
            opaque = True
    # thinking between tool calls: interleaved
    tools = [i for i, k in enumerate(kinds) if k == "tool_use"]
    thinking = [i for i, k in enumerate(kinds) if k in ("thinking", "redacted_thinking")]
    interleaved = bool(tools) and any(t > tools[0] for t in thinking)
    return raw, texts, opaque, interleaved


def _openai(blocks: Sequence[dict[str, Any]]) -> tuple[list[RawBlock], list[str], bool, bool]:
    raw, texts, opaque = [], [], False
    for b in blocks:
        if b.get("type") != "reasoning":
            continue
        summary = b.get("summary")
        parts = [str(s.get("text") or "") for s in (summary if isinstance(summary, list) else [])
                 if isinstance(s, dict)]
        raw.append(RawBlock(type="reasoning", text="\n\n".join(parts) or None, data=_str(b.get("encrypted_content"))))
        texts += parts
        opaque = opaque or (not parts and b.get("encrypted_content") is not None)
    calls = [i for i, b in enumerate(blocks) if b.get("type") in ("function_call", "tool_call")]
    reasoning = [i for i, b in enumerate(blocks) if b.get("type") == "reasoning"]
    return raw, texts, opaque, bool(calls) and any(r > calls[0] for r in reasoning)


def normalize(provider: Provider, *, model: str | None = None, blocks: Sequence[dict[str, Any]] = (),
              text: str | None = None, reasoning_tokens: int | None = None,
              count: Callable[[str], int] | None = None) -> ReasoningChain:
    """The provider's reasoning as a ReasoningChain. Its tokens: the provider's count when given, else the text's
    by `count` (the service's tokenizer)."""
    interleaved = False
    if provider == Provider.anthropic:
        raw, texts, opaque, interleaved = _anthropic(blocks)
        seen = ChainVisibility.summarized
    elif provider == Provider.openai:
        raw, texts, opaque, interleaved = _openai(blocks)
        seen = ChainVisibility.summarized
    else:
        found = [m.strip() for m in _THINK.findall(text or "")]
        texts = found if found else ([text.strip()] if text and text.strip() else [])
        raw = [RawBlock(type="think" if found else "text", text=t) for t in texts]
        opaque, seen = False, ChainVisibility.visible
    content = "\n\n".join(t for t in texts if t.strip()) or None
    visibility = seen if content else (ChainVisibility.opaque if opaque else ChainVisibility.none)
    tokens = reasoning_tokens if reasoning_tokens is not None else (count(content) if count and content else 0)
    body = {"provider": provider.value, "model": model, "content": content,
            "raw_blocks": [b.model_dump() for b in raw]}
    digest = chain_digest(body)  # erasure hashes a redacted chain again the same way
    return ReasoningChain(provider=provider.value, model=model, visibility=visibility, content=content,
                          reasoning_tokens=tokens, interleaved=interleaved, phases=phases(content), raw_blocks=raw,
                          hash=digest)


def stored(value: str | None) -> ReasoningChain | None:
    return ReasoningChain.model_validate_json(value) if value else None


class _Decided(BaseModel):
    """A decision as replay reads it beside its reasoning."""

    decision_id: str
    at: int
    task: str | None
    regime: str | None
    tick: int | None
    outcome_quality: float | None
    prediction_error: float | None


class ReplayRow(Row, _Decided):
    """A decision with its reasoning, as dream replay reads it (cypher/context/reasoning_replay.cypher)."""

    query = "context/reasoning_replay"
    reasoning: str


class Replayable(_Decided):
    """A decision's reasoning for dream replay: the chain beside how the decision went (its quality and, when a
    prediction was verified, its error), to look for how the agent's reasoning goes with its prediction errors."""

    reasoning: ReasoningChain


def replayable(db: Database, agent_id: str, limit: int, worst_first: bool = False) -> list[Replayable]:
    """The agent's decisions that kept their reasoning, newest first (or the worst outcomes first)."""
    rows = db.typed(ReplayRow, agent_id=agent_id, limit=limit, worst_first=worst_first)
    return [Replayable(**r.model_dump(exclude={"reasoning"}), reasoning=ReasoningChain.model_validate_json(r.reasoning))
            for r in rows]
