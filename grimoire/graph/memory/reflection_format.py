"""What a reflection shows the person (../shared/spec/moltbot-memory.md, 10.5): pending-reflection.md in
the spec's layout, each proposal with its id in brackets (what a partial approval names); the output
budget of 8,000 tokens (10.2) kept by dropping the least important proposals first; and the reflection
log and evolution.md read back from the decided reflections."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, field_validator

BUDGET_TOKENS = 8_000


class ItemKind(StrEnum):
    fact = "fact"                    # new knowledge: a semantic memory with its relations, from episodes
    procedure = "procedure"          # a repeated pattern, as a procedure
    confirm = "confirm"              # a fading memory found still relevant: reinforced
    archive = "archive"              # relevance under 0.05: archived
    contradiction = "contradiction"  # flagged for the person; nothing to apply
    core = "core"                    # a core block rewritten under its cap
    proposal = "proposal"            # a sub-agent's proposal the main agent deferred (13.3): committed


# Dropped first when the summary would pass its budget (the last kinds are kept longest).
DROP_ORDER = (ItemKind.confirm, ItemKind.proposal, ItemKind.archive, ItemKind.fact, ItemKind.procedure,
              ItemKind.contradiction, ItemKind.core)


@dataclass
class Item:
    id: str
    kind: ItemKind
    line: str                         # how the summary shows it
    data: dict[str, Any] = field(default_factory=dict)

    def out(self) -> dict[str, Any]:  # open: stored as JSON on the reflection and read back by `of`
        return {"id": self.id, "kind": self.kind.value, "line": self.line, "data": self.data}

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Item:
        return cls(raw["id"], ItemKind(raw["kind"]), raw["line"], dict(raw["data"]))


@dataclass
class Evolution:
    learning: str
    understanding: str
    theme: str
    milestone: str | None = None

    def out(self) -> dict[str, str | None]:
        return {"learning": self.learning, "understanding": self.understanding, "theme": self.theme,
                "milestone": self.milestone}


class ItemOut(BaseModel):
    """One proposal of a reflection (reflection_format.Item)."""

    id: str
    kind: ItemKind
    line: str = Field(description="how the summary shows it")
    data: dict[str, Any] = Field(description="what approving it applies; its fields depend on its kind")


class EvolutionOut(BaseModel):
    learning: str
    understanding: str
    theme: str
    milestone: str | None = None


class ChangesOut(BaseModel):
    """What the person changed when deciding, and what could not be applied."""

    exclude: list[str] = Field(default_factory=list)
    changes: dict[str, dict[str, Any]] = Field(default_factory=dict, description="per proposal id, new values")
    items: list[str] | None = None
    skipped: dict[str, str] = Field(default_factory=dict, description="per proposal id, why it was not applied")


class Reflection(BaseModel):
    """A reflection as the API returns it (section 10): what it proposed and what was decided (times in epoch
    ms, as stored)."""

    id: str
    agent_id: str
    number: int
    status: str = Field(description="pending, approved, partial or rejected")
    trigger: str = Field(description="manual, phrase, schedule or threshold")
    about: str | None = None
    markdown: str = Field(description="pending-reflection.md (section 10.5)")
    items: list[ItemOut]
    evolution: EvolutionOut | None
    questions: list[str] = Field(default_factory=list)
    themes: list[str] = Field(default_factory=list)
    tokens_used: int
    budget: int
    episodes: int = 0
    entities: int = 0
    procedures: int = 0
    reviewed: int = 0
    since: int | None = None
    valid_from: int
    recorded_at: int
    decided_at: int | None = None
    decided_by: str | None = None
    decision: str | None = None
    applied: list[str] = Field(default_factory=list)
    changes: ChangesOut | None
    note: str | None = None
    skipped: dict[str, str] | None = Field(default=None, description=(
        "a decision's answer: per proposal id, why it was not applied (decided meanwhile, gone, changed)"))

    @field_validator("evolution", mode="before")
    @classmethod
    def _none_when_empty(cls, value: Any) -> Any:
        return value or None  # a reflection stored before meta-reflection: no insight


@dataclass
class Summary:
    number: int
    at: int
    items: list[Item]
    evolution: Evolution
    questions: list[str]
    episodes: int
    entities: int
    procedures: int
    reviewed: int
    next_at: int
    tokens_used: int = 0
    budget: int = BUDGET_TOKENS


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def _minute(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


def _of(items: Sequence[Item], kind: ItemKind) -> list[Item]:
    return [i for i in items if i.kind is kind]


def _connections(items: Sequence[Item]) -> list[str]:
    return [f"- {r['from']} → {r['relation']} → {r['to']} (NEW)" for i in _of(items, ItemKind.fact)
            for r in i.data.get("relations", [])]


def _core_diff(items: Sequence[Item]) -> list[str]:
    out: list[str] = []
    for i in _of(items, ItemKind.core):
        before = [x for x in i.data["before"].splitlines() if x.strip()]
        after = [x for x in i.data["after"].splitlines() if x.strip()]
        out += ["```diff", f"## {i.data['title']}  [{i.id}]"]
        out += [f"- {x.removeprefix('- ')}" for x in before if x not in after]
        out += [f"+ {x.removeprefix('- ')}" for x in after if x not in before]
        out.append("```")
    return out


def render(s: Summary) -> str:
    """pending-reflection.md (10.5)."""
    knowledge = [f"- [{i.id}] {i.line}" for i in s.items if i.kind in (ItemKind.fact, ItemKind.procedure,
                                                                      ItemKind.confirm, ItemKind.proposal)]
    archive = [f"- [{i.id}] {i.line}" for i in _of(s.items, ItemKind.archive)]
    contradictions = [f"- [{i.id}] {i.line}" for i in _of(s.items, ItemKind.contradiction)]
    core = _core_diff(s.items)
    e = s.evolution
    lines = [
        f"# Reflection Summary — {_day(s.at)}",
        "## 🧠 New Knowledge Extracted", *(knowledge or ["- Nothing new this cycle"]),
        "## 🔗 New Connections", *(_connections(s.items) or ["- None this cycle"]),
        "## 📦 Proposed Archival (decay score < 0.05)", *(archive or ["- None this cycle"]),
        "## ⚠️ Contradictions Detected", *(contradictions or ["- None this cycle"]),
        "## ✏️ Core Memory Changes", *(core or ["- None this cycle"]),
        "## 🌱 Philosophical Evolution",
        "### What I've Learned About Learning", e.learning,
        "### Evolving Understanding", e.understanding,
        "### Emergent Theme", e.theme,
        *([f"### Milestone\n{e.milestone}"] if e.milestone else []),
        "## ❓ Questions for You", *([f"- {q}" for q in s.questions] or ["- None this cycle"]),
        "---",
        f"**Reflection #**: {s.number}",
        f"**Token budget used**: {s.tokens_used:,} / {s.budget:,}",
        f"**Memories processed**: {s.episodes} episodes, {s.entities} entities, {s.procedures} procedures",
        f"**Reflections reviewed**: {s.reviewed} past reflections",
        f"**Next scheduled reflection**: {_minute(s.next_at)}",
        "> Reply with `approve`, `approve with changes`, or `reject` to apply this reflection "
        "(or approve part of it by the ids in brackets).",
    ]
    return "\n".join(lines) + "\n"


def fit(s: Summary, count: Callable[[Sequence[str]], list[int]]) -> Summary:
    """The summary within its output budget: the least important proposals (DROP_ORDER) leave until the
    rendered text fits; `tokens_used` is the text's count. Dropped proposals come back next time (their
    memories are still there)."""
    lines = {i.id: i.line for i in s.items}
    costs = dict(zip(lines, count([f"- [{k}] {v}" for k, v in lines.items()]), strict=True))
    for i in _of(s.items, ItemKind.core):
        costs[i.id] += count([i.data["before"] + "\n" + i.data["after"]])[0]
    for i in _of(s.items, ItemKind.fact):
        costs[i.id] += sum(count(_connections([i])) or [0])
    total = count([render(s)])[0]
    dropped: set[str] = set()
    for kind in DROP_ORDER:
        for item in reversed(_of(s.items, kind)):  # the last proposed of a kind leaves first
            if total <= s.budget:
                break
            dropped.add(item.id)
            total -= costs[item.id]
    s.items = [i for i in s.items if i.id not in dropped]
    s.tokens_used = count([render(s)])[0]
    while s.tokens_used > s.budget and s.questions:  # what is left over the budget: fewer questions
        s.questions.pop()
        s.tokens_used = count([render(s)])[0]
    return s


def log_md(reflections: Sequence[Reflection]) -> str:
    """reflection-log.md: every reflection, newest first, with what was proposed, decided and applied."""
    out = ["# Reflection Log", ""]
    for r in reflections:
        kinds: dict[str, int] = {}
        for i in r.items:
            kinds[i.kind.value] = kinds.get(i.kind.value, 0) + 1
        proposed = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "nothing"
        out.append(f"## Reflection #{r.number} — {_minute(r.valid_from)} — {r.status}")
        out.append(f"- Trigger: {r.trigger}" + (f" ({r.about})" if r.about else ""))
        out.append(f"- Proposed: {proposed}; {r.tokens_used:,} of {r.budget:,} tokens")
        if r.decision:
            out.append(f"- Decision: {r.decision} by {r.decided_by} at {_minute(r.decided_at or 0)}: "
                       f"{len(r.applied)} of {len(r.items)} applied" + (f" — “{r.note}”" if r.note else ""))
        else:
            out.append("- Decision: pending (never applied without the person's approval)")
        out.append("")
    return "\n".join(out)


def evolution_md(reflections: Sequence[Reflection]) -> str:
    """evolution.md: the philosophical evolution of every approved reflection, oldest first."""
    out = ["# Evolution", ""]
    for r in sorted(reflections, key=lambda r: r.number):
        if r.status not in ("approved", "partial"):
            continue
        e = r.evolution or EvolutionOut(learning="", understanding="", theme="")
        out += [f"## Reflection #{r.number} — {_day(r.valid_from)}",
                f"- Learning: {e.learning}", f"- Understanding: {e.understanding}", f"- Theme: {e.theme}"]
        if e.milestone:
            out.append(f"- Milestone: {e.milestone}")
        out.append("")
    return "\n".join(out)
