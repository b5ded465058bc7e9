"""Core memory's four blocks and the edits an agent makes to them (../shared/spec/moltbot-memory.md,
section 4): identity, active context, persona and critical facts, always in the agent's context and
together under a cap of 3,000 tokens. Pure rules: what an edit makes of a block's text, and whether
the result still fits; graph/memory/core.py stores it.

A block's text is lines. An edit replaces the whole block, appends lines, or edits one line (by its
number, or by its current text). Critical facts can be pinned: a pinned line is kept by every edit
(an edit that would drop or change it is refused until it is unpinned), never decays and is never
pruned by a reflection's rewrite."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, Field

from grimoire.graph.errors import Conflict, Invalid, NotFound

CAP_TOKENS = 3_000


class Block(StrEnum):
    identity = "identity"
    context = "context"
    persona = "persona"
    critical = "critical"


# The spec's headings and each block's share of the cap (a guide shown in MEMORY.md; the cap is on the sum).
TITLES = {Block.identity: "Identity", Block.context: "Active Context", Block.persona: "Persona",
          Block.critical: "Critical Facts"}
GUIDES = {Block.identity: "~500 tokens — Who is the user? What matters most about them?",
          Block.context: "~1,000 tokens — What's happening RIGHT NOW? Current projects, open decisions.",
          Block.persona: "~500 tokens — How should I behave with this user?",
          Block.critical: "~1,000 tokens — Things I must NEVER forget, even if they haven't come up recently."}


class OverCap(Conflict):
    """The edit would take core memory past its cap (409, with by how many tokens)."""

    total, cap, over = 0, CAP_TOKENS, 0

    @classmethod
    def of(cls, block: Block, total: int, cap: int) -> OverCap:
        err = cls(f"core memory would hold {total} tokens after this edit of the {block.value} block, "
                  f"{total - cap} over its cap of {cap}: summarise or prune first")
        err.total, err.cap, err.over = total, cap, total - cap
        return err


class PinnedLine(Conflict):
    """The edit would drop or change a pinned critical fact (409): unpin it first."""


class StaleVersion(Conflict):
    """The edit expected the block at another version (409): someone wrote it since it was read."""


@dataclass(frozen=True)
class Replace:
    content: str


@dataclass(frozen=True)
class Append:
    text: str


@dataclass(frozen=True)
class EditLine:
    new: str
    line: int | None = None   # 1-based
    old: str | None = None    # or the line's current text


@dataclass(frozen=True)
class Unchanged:
    """The text stays (a pin or an unpin changes only which facts are pinned)."""


Edit = Replace | Append | EditLine | Unchanged


def lines(content: str) -> list[str]:
    return [x for x in content.splitlines() if x.strip()]


def normalise(content: str) -> str:
    """Lines without trailing space or blank lines between them; one newline at the end (none when empty)."""
    kept = [x.rstrip() for x in lines(content)]
    return "\n".join(kept) + ("\n" if kept else "")


def apply(content: str, edit: Edit) -> str:
    """The block's text after `edit`."""
    if isinstance(edit, Replace):
        return normalise(edit.content)
    if isinstance(edit, Unchanged):
        return content
    if isinstance(edit, Append):
        if not edit.text.strip():
            raise Invalid("nothing to append")
        return normalise(content + "\n" + edit.text)
    current = lines(content)
    if (edit.line is None) == (edit.old is None):
        raise Invalid("name the line to edit by its number or by its current text, one of the two")
    if edit.line is not None:
        if not 1 <= edit.line <= len(current):
            raise NotFound(f"the block has {len(current)} lines, no line {edit.line}")
        at = edit.line - 1
    else:
        matches = [i for i, x in enumerate(current) if x.strip() == (edit.old or "").strip()]
        if not matches:
            raise NotFound(f"no line of the block reads {edit.old!r}")
        at = matches[0]
    if len(lines(edit.new)) > 1:
        raise Invalid("a line edit replaces one line with one line")
    if edit.new.strip():
        current[at] = edit.new
    else:
        del current[at]  # an empty new text deletes the line
    return normalise("\n".join(current))


def keep_pinned(after: str, pinned: list[str]) -> None:
    """Refuses an edit of the critical block that drops or changes a pinned line."""
    kept = {x.strip() for x in lines(after)}
    lost = [p for p in pinned if p.strip() not in kept]
    if lost:
        raise PinnedLine(f"the edit would drop pinned critical facts {lost[:3]}: unpin them first")


def fits(block: Block, tokens: dict[Block, int], cap: int = CAP_TOKENS) -> int:
    """The total after an edit, given each block's token count with the edited one's new count;
    raises OverCap past the cap."""
    total = sum(tokens.values())
    if total > cap:
        raise OverCap.of(block, total, cap)
    return total


_NAME = re.compile(r"^\s*[-*]?\s*(?i:name\s*[:=]|my name is|call me)\s*([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)", re.M)


def person_name(identity: str, default: str = "user") -> str:
    """The person's name from the identity block ("- Name: Alex", "- My name is Alex …"), else `default`."""
    m = _NAME.search(identity or "")
    return m.group(1) if m else default


# What a read or an edit of core memory answers (GET and PUT /agents/{id}/core...).


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


class MemoryVersionOut(BaseModel):
    """An earlier text of a core block (a CoreBlockVersion), times in epoch milliseconds as stored."""

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
