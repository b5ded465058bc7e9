"""The Pi hooks (../shared/spec/grimoire.md, "Pi Hook Integration"): memory persistence and compaction
safety for an agent's runtime.

- `after_turn` (golem-memory, "episode batching and write"): one agent turn (its messages, tool calls,
  tool results and observations) becomes one batch of episodes, written through graph/episodes.py's
  ingest (embedded before the transaction, audited). Idempotent: each episode's id derives from the
  owner, the turn id and the item's position, so re-sending a turn writes nothing new, and two agents
  using the same turn ids never touch each other's episodes. The items of a turn follow one another
  (FOLLOWS), and the first follows the episode the caller names (the previous turn's last).
- `before_compact` (golem-compaction, "state preservation across compaction"): what must survive when
  the runtime compacts the agent's context, read-only: its active warnings (its own and those shared
  with its clade), its playbook heuristics (in_playbook, active), its last N unconsolidated episodes,
  and the 13 core mental models (the spec keeps them always loaded), as data and as a markdown block
  to put back into the context. Everything is read in the agent's own view: an agent only ever gets
  its own items and what it may see.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from grimoire.graph import episodes
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Invalid
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge import mental_models
from grimoire.graph.model.common import (
    MAX_LIST,
    MAX_TEXT,
    AgentId,
    ClientId,
    EntityMention,
    FiniteFloat,
    Instant,
    ShortText,
    StrictModel,
    Unit,
    from_ms,
)
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EpisodeType, Importance, MarketRegime, Outcome, Scope
from grimoire.graph.model.episode import EpisodeIn, EpisodeSituation
from grimoire.graph.visibility import Visibility

MAX_ITEMS = 500
TEXT_IN_MARKDOWN = 280

ItemKind = Literal["message", "tool_call", "tool_result", "observation"]
KIND_TYPES: dict[str, EpisodeType] = {
    "message": EpisodeType.conversation,
    "tool_call": EpisodeType.action,
    "tool_result": EpisodeType.observation,
    "observation": EpisodeType.observation,
}


class TurnItem(EpisodeSituation):
    """One thing that happened in the turn. Unset fields take the turn's value (tick, block, regime,
    strategy, chain, token pair, decision id)."""

    kind: ItemKind = "message"
    type: EpisodeType | None = Field(default=None, description="the episode type; default: from the kind "
                                     "(message: conversation, tool_call: action, tool_result and observation: "
                                     "observation)")
    role: ShortText | None = Field(default=None, description="who spoke (a message): the text is kept as 'role: text'")
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    tool: ShortText | None = None
    outcome: Outcome | None = None
    outcome_detail: Annotated[str, Field(max_length=2_000)] | None = None
    importance: Importance | None = None
    gain: FiniteFloat | None = None
    actions: Annotated[list[ShortText], Field(max_length=MAX_LIST)] | None = None
    confidence: Unit | None = None
    interrupted: bool | None = Field(default=None, description="an interrupted or incomplete action (Zeigarnik)")
    decision_id: ClientId | None = None
    prediction: dict[str, Any] | None = Field(
        default=None, description="as an episode's `prediction` (metric, expected, actual, tolerance, informed_by)")
    mentions: Annotated[list[EntityMention], Field(max_length=MAX_LIST)] | None = None
    at: Instant | None = Field(default=None, description="when it happened; default: when the turn is written")


class TurnIn(EpisodeSituation):
    turn_id: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="the turn's id in the runtime: re-sending the same turn writes nothing new")
    agent_id: AgentId | None = Field(default=None, description="the owner; default: the key's agent")
    scope: Scope = Scope.private
    decision_id: ClientId | None = Field(default=None, description="the retrieval for the decision of this turn")
    follows: ClientId | None = Field(default=None, description="the episode the turn continues (the previous "
                                                               "turn's last_id): its first item FOLLOWS it")
    items: Annotated[list[TurnItem], Field(min_length=1, max_length=MAX_ITEMS)]


class CompactIn(StrictModel):
    agent_id: AgentId | None = Field(default=None, description="whose state; default: the key's agent (the admin "
                                                               "names one)")
    episodes: Annotated[int, Field(ge=0, le=MAX_ITEMS)] = Field(default=20, description="the last N unconsolidated")
    warnings: Annotated[int, Field(ge=0, le=MAX_ITEMS)] = 50
    heuristics: Annotated[int, Field(ge=0, le=MAX_ITEMS)] = 100
    mental_models: bool = Field(default=True, description="the 13 core mental models' names and applications")


class PreservedEntry(BaseModel):
    id: str
    agent_id: str | None
    scope: Scope | None
    content: str | None
    confidence: float | None
    effective_confidence: float  # now, after decay
    strategy: str | None = None
    market_regime: MarketRegime | None = None
    own: bool  # false: shared with the agent's clade by another agent
    recorded_at: int | None  # ms
    is_bloodstain: bool | None = None
    validated_count: int | None = None


class PreservedEpisode(BaseModel):
    id: str
    type: EpisodeType | None
    text: str | None
    tool: str | None = None
    outcome: Outcome | None = None
    tick: int | None = None
    block: int | None = None
    regime: MarketRegime | None = None
    strategy: str | None = None
    interrupted: bool | None = None
    decision_id: str | None = None
    importance: Importance | None = None
    valid_from: int | None  # ms
    recorded_at: int | None  # ms


class PreservedMentalModel(BaseModel):
    id: str
    number: int
    name: str
    application: str


class CompactState(BaseModel):
    """What must survive a context compaction, as data and as the markdown block to put back."""

    agent_id: str
    at: int  # ms: when it was read
    warnings: list[PreservedEntry]
    heuristics: list[PreservedEntry]
    episodes: list[PreservedEpisode]  # the last N unconsolidated, oldest first
    mental_models: list[PreservedMentalModel]
    markdown: str


@dataclass
class TurnResult:
    turn_id: str
    agent_id: str
    ids: list[str]
    created: list[str]
    existing: list[str]
    audit_ids: list[str]

    @property
    def last_id(self) -> str:
        return self.ids[-1]


def episode_id(agent_id: str, turn_id: str, index: int) -> str:
    """Deterministic per owner and turn: `turn-<24 hex>-<index>`."""
    digest = hashlib.sha256(f"{agent_id}\x00{turn_id}".encode()).hexdigest()[:24]
    return f"turn-{digest}-{index:03d}"


_INHERITED = (*EpisodeSituation.model_fields, "decision_id")
_OPTIONAL = ("tool", "outcome", "outcome_detail", "importance", "gain", "actions", "confidence", "interrupted",
             "prediction", "mentions")


def to_episodes(turn: TurnIn, agent_id: str) -> list[EpisodeIn]:
    """The turn's items as episodes, in order; an item the episode model refuses is a 422 naming it."""
    out: list[EpisodeIn] = []
    previous = turn.follows
    for i, item in enumerate(turn.items):
        fields: dict[str, Any] = {
            "id": episode_id(agent_id, turn.turn_id, i), "agent_id": agent_id, "scope": turn.scope,
            "type": item.type or KIND_TYPES[item.kind],
            "text": f"{item.role}: {item.text}" if item.role and item.kind == "message" else item.text,
            "valid_from": item.at, "follows": previous,
        }
        for name in _INHERITED:
            value = getattr(item, name)
            fields[name] = value if value is not None else getattr(turn, name)
        for name in _OPTIONAL:
            fields[name] = getattr(item, name)
        try:
            # Through EpisodeIn itself: its fields (the learning loop's among them) decide what is valid.
            episode = EpisodeIn.model_validate({k: v for k, v in fields.items() if v is not None})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise Invalid(f"items[{i}]{'.' + where if where else ''}: {first.get('msg')}") from None
        out.append(episode)
        previous = episode.id
    return out


def after_turn(db: Database, embedder: Embedder, turn: TurnIn, *, agent_id: str, clade: str | None,
               actor: str, memory_scope: MemoryScope = MemoryScope.private, lazy: bool = False) -> TurnResult:
    """Write the turn as one batch of episodes for `agent_id` (the caller has checked it may); `lazy`: their
    mentions and FOLLOWS left to the enrichment job (graph/enrichment.py)."""
    if turn.follows is not None:
        found = db.fetch("episodes/existing", ids=[turn.follows])
        if not found or not Visibility.of(agent_id, clade).sees(found[0]):
            raise Invalid(f"follows: no episode {turn.follows!r} (or not one this agent may see)")
    result = episodes.ingest(db, embedder, to_episodes(turn, agent_id), actor=actor, clade=clade,
                             memory_scope=memory_scope, lazy=lazy)
    return TurnResult(turn.turn_id, agent_id, result.ids, result.created, result.existing, result.audit_ids)


# ---------------------------------------------------------------- before_compact


def before_compact(db: Database, request: CompactIn, *, agent_id: str, clade: str | None, floor: float = 0.05,
                   now: int | None = None) -> CompactState:
    """The agent's state to keep across a compaction, read in the agent's own view."""
    at = now or now_ms()
    view = Visibility.of(agent_id, clade)
    row = db.fetch("hooks/before_compact", agent_id=agent_id, now=at, floor=floor, episodes=request.episodes,
                   warnings=request.warnings, heuristics=request.heuristics, **view.params())[0]
    models = ([{"id": m.id, "number": m.number, "name": m.name, "application": m.application}
               for m in mental_models.MODELS] if request.mental_models else [])
    state: dict[str, Any] = {
        "agent_id": agent_id, "at": at, "warnings": row["warnings"], "heuristics": row["heuristics"],
        "episodes": list(reversed(row["episodes"])),  # read newest first: kept oldest first, as they happened
        "mental_models": models,
    }
    state["markdown"] = render(state)
    return CompactState.model_validate(state)


def _short(text: str | None, limit: int = TEXT_IN_MARKDOWN) -> str:
    one_line = " ".join((text or "").split())
    return one_line if len(one_line) <= limit else one_line[:limit - 1].rstrip() + "…"


def _when(ms: int | None) -> str:
    t = from_ms(ms)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t else "?"


def _entry_line(e: dict[str, Any]) -> str:
    bits = [f"confidence {e['effective_confidence']:.2f}"]
    if e.get("strategy"):
        bits.append(f"strategy {e['strategy']}")
    if e.get("agent_id") and e.get("own") is False:
        bits.append(f"from {e['agent_id']}")
    return f"- [{e['id']}] ({', '.join(bits)}) {_short(e.get('content'))}"


def _episode_line(ep: dict[str, Any]) -> str:
    bits = [b for b in (f"tick {ep['tick']}" if ep.get("tick") is not None else None, ep.get("type"),
                        f"tool {ep['tool']}" if ep.get("tool") else None,
                        ep.get("outcome") if ep.get("outcome") not in (None, "neutral") else None,
                        "interrupted" if ep.get("interrupted") else None) if b]
    return f"- [{ep['id']}] ({', '.join(bits)}) {_short(ep.get('text'))}"


def _section(title: str, lines: Sequence[str], empty: str) -> list[str]:
    return [f"### {title}", "", *(lines or [f"_{empty}_"]), ""]


def render(state: dict[str, Any]) -> str:
    """The markdown block to put back into the context; the same state renders the same bytes."""
    out = [f"## Memory preserved across compaction: {state['agent_id']} ({_when(state['at'])})", ""]
    out += _section(f"Active warnings ({len(state['warnings'])})", [_entry_line(w) for w in state["warnings"]],
                    "none")
    out += _section(f"Playbook heuristics ({len(state['heuristics'])})",
                    [_entry_line(h) for h in state["heuristics"]], "none")
    out += _section(f"Recent unconsolidated episodes ({len(state['episodes'])}, oldest first)",
                    [_episode_line(ep) for ep in state["episodes"]], "none")
    if state["mental_models"]:
        out += _section("Core mental models", [f"{m['number']}. {m['name']}: {m['application']}"
                                               for m in state["mental_models"]], "none")
    return "\n".join(out).rstrip() + "\n"
