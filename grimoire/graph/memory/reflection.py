"""The reflection engine (../shared/spec/moltbot-memory.md, section 10): sleep-time consolidation that
proposes and waits for the person.

1. survey: the memories recorded since the last reflection, core memory, the agent's semantic graph and
   the relevance of what it has not touched for a while;
2. meta-reflection: the past reflections — what the person approved and declined (a kind mostly declined
   is proposed sparingly), the themes that recur, what the person consistently prefers — and the
   milestones of 10.4;
3. consolidate: new facts and relations from the episodes (a semantic memory each, learned from them),
   contradictions (prefers and avoids, confident and uncertain about one thing), memories under 0.05
   proposed for archival, fading memories the new ones touch confirmed as still relevant, a pattern that
   repeats (three episodes or more on one topic) proposed as a procedure;
4. rewrite core: active context gains the latest tasks and decisions and loses lines whose memories went
   dormant, frequently used facts are promoted to critical, all under the 3,000-token cap;
5. summarise: pending-reflection.md (10.5) within 8,000 tokens of output.

Nothing is applied here: the reflection is a pending MemoryReflection (a neomodel node, with its audit
record) until a person's key decides (graph/memory/approval.py). Triggers: manual (the API), phrase
("reflect on …", "consolidate your memories"), schedule (the nightly hour) and threshold (unprocessed
memories), the last two from the service's scheduler (`due`)."""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.memory import relevance
from grimoire.graph.memory.blocks import Block, BlockOut, lines, person_name
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.models import MemoryReflection
from grimoire.graph.memory.reflection_format import (
    BUDGET_TOKENS,
    Evolution,
    Item,
    ItemKind,
    Reflection,
    Summary,
    fit,
    render,
)
from grimoire.graph.memory.relevance import DAY_MS, Status
from grimoire.graph.memory.routing import GENERIC, Router
from grimoire.graph.memory.stores import user_entity
from grimoire.graph.model.enums import MemoryRelation

ARCHIVE_BELOW_DAYS = 69        # the least a memory can score, 0.5 × 0.8 × e^(−0.03 d), passes under 0.05 after it
PROMOTE_ACCESS = 5             # a semantic memory used this often is promoted to critical facts
PIN_ACCESS = 10                # ... and this often, the person is asked whether to pin it
STALE_QUESTION_DAYS = 13
REPEATS = 3                    # episodes on one topic that make a pattern (a procedure)
RECENT_DAYS = 7                # tasks and decisions this recent join active context
MAX_CONTEXT_ADDED = 5
MAX_PROMOTED = 3
DECLINED_CAP = 3               # proposals of a kind the person mostly declined
MILESTONES = {10: "First evolution summary: the initial patterns of how I learn about you.",
              25: "Time to consolidate evolution.md's threads.",
              50: "Major synthesis: what has fundamentally changed?",
              100: "Deep retrospective."}
OPPOSITES = ((MemoryRelation.prefers, MemoryRelation.avoids),
             (MemoryRelation.confident_about, MemoryRelation.uncertain_about))
log = logging.getLogger(__name__)

# a proposal's id: prefix, reflection number, index
PREFIX = {ItemKind.fact: "f", ItemKind.procedure: "p", ItemKind.confirm: "k", ItemKind.archive: "a",
          ItemKind.contradiction: "x", ItemKind.core: "c", ItemKind.proposal: "s"}
TYPE_TAGS = {"decision", "fact", "preference", "task", "event", "emotion", "correction"}


class Trigger(StrEnum):
    manual = "manual"
    phrase = "phrase"
    schedule = "schedule"
    threshold = "threshold"
    session_end = "session_end"


@dataclass(frozen=True)
class ReflectionConfig:
    threshold: int = 20          # unprocessed memories that start a reflection
    hour: int = 3                # the nightly reflection's hour, in the agent's time zone (UTC when it has none)
    budget: int = BUDGET_TOKENS


def reflection_out(node: MemoryReflection) -> Reflection:
    """A reflection as stored, its JSON properties read (only what the node holds is set)."""
    out = ogm.properties(node)
    out["items"] = json.loads(out.get("items") or "[]")
    out["evolution"] = json.loads(out.get("evolution") or "{}")
    out["changes"] = json.loads(out["changes"]) if out.get("changes") else None
    return Reflection.model_validate(out)


def read_reflection(db: Database, agent_id: str, reflection_id: str) -> Reflection:
    """One of the agent's reflections (NotFound for another agent's, as for none)."""
    def work(tx: Tx) -> Reflection | None:
        node = MemoryReflection.nodes.get_or_none(uid=reflection_id)
        return reflection_out(node) if node is not None and node.agent_id == agent_id else None

    found = ogm.read(db, work)
    if found is None:
        raise NotFound(f"no reflection {reflection_id!r}")
    return found


def _zone(name: str | None) -> tzinfo:
    """An agent's time zone (checked when it was registered); UTC when it has none, or one this machine does not
    know (an import from elsewhere): the nightly job goes on for the others."""
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        log.warning("unknown time zone %r: the agent's nightly reflection runs at UTC", name)
        return UTC


class Reflections:
    def __init__(self, db: Database, core: CoreMemory, router: Router, config: ReflectionConfig | None = None) -> None:
        self.db, self.core, self.router = db, core, router
        self.config = config or ReflectionConfig()

    # ------------------------------------------------------------------ reads

    def all(self, agent_id: str) -> list[Reflection]:
        def work(tx: Tx) -> list[Reflection]:
            found = MemoryReflection.nodes.filter(agent_id=agent_id).order_by("-number")
            return [reflection_out(n) for n in found]

        return ogm.read(self.db, work)

    def get(self, agent_id: str, reflection_id: str) -> Reflection:
        return read_reflection(self.db, agent_id, reflection_id)

    def pending(self, agent_id: str) -> Reflection | None:
        return next((r for r in self.all(agent_id) if r.status == "pending"), None)

    # ------------------------------------------------------------------ proposing

    def reflect(self, agent_id: str, *, trigger: Trigger, actor: str, about: str | None = None,
                now: int | None = None) -> Reflection:
        """A new pending reflection (Conflict when one is pending: it is never replaced or auto-applied)."""
        at = now if now is not None else now_ms()
        agent = self.db.fetch("agents/get", id=agent_id)
        if not agent:
            raise NotFound(f"no agent {agent_id!r}")
        zone = _zone(agent[0]["agent"].get("timezone"))
        past = self.all(agent_id)
        if any(r.status == "pending" for r in past):
            raise Conflict("a reflection is pending: approve or reject it first")
        since = max((r.recorded_at for r in past), default=0)
        summary, themes = self._propose(agent_id, past, since, at, zone)
        summary = fit(summary, self.core.count_tokens)
        markdown = render(summary)
        node_id = uuid7()

        def work(tx: Tx) -> Reflection:
            # the agent locked, then one pending reflection at most (a manual one beside the scheduler's)
            tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).consume()
            if MemoryReflection.nodes.filter(agent_id=agent_id, status="pending"):
                raise Conflict("a reflection is pending: approve or reject it first")
            node = MemoryReflection(
                uid=node_id, agent_id=agent_id, number=summary.number, status="pending", trigger=trigger.value,
                about=about, markdown=markdown, items=json.dumps([i.out() for i in summary.items]),
                evolution=json.dumps(summary.evolution.out()), questions=summary.questions,
                themes=themes, tokens_used=summary.tokens_used, budget=summary.budget, episodes=summary.episodes,
                entities=summary.entities, procedures=summary.procedures, reviewed=summary.reviewed, since=since,
                valid_from=at, recorded_at=now_ms()).save()
            Audit(action="memory.reflection.propose", actor=actor, agent_id=agent_id, tag=f"reflection:{node_id}",
                  trigger=f"reflection: {trigger.value}").write(
                tx, [node_id], f"reflection #{summary.number} proposed ({len(summary.items)} proposals, "
                               f"{summary.tokens_used} tokens, trigger {trigger.value})",
                [DeleteNodes(label=NodeLabel.MemoryReflection, ids=[node_id])])
            return reflection_out(node)

        return ogm.write(self.db, work)

    def _propose(self, agent_id: str, past: list[Reflection], since: int, now: int,
                 zone: tzinfo = UTC) -> tuple[Summary, list[str]]:
        # Phase 1: survey
        new = self.db.fetch("memory/reflection_new", agent_id=agent_id, since=since, limit=2000)
        memories = [dict(r["memory"]) for r in new]
        mentioned = sorted({e for r in new for e in r["entities"]})
        graph = self.db.fetch("memory/reflection_graph", agent_id=agent_id, min_access=PROMOTE_ACCESS)[0]
        stale = self.db.fetch("memory/reflection_stale", agent_id=agent_id, before=now - ARCHIVE_BELOW_DAYS * DAY_MS,
                              entities=mentioned, since=since, limit=1000)
        core = {Block(b.block): b for b in self.core.read(agent_id).blocks}
        user = person_name(core[Block.identity].content)
        themes = [t for t, _ in Counter(t for m in memories for t in m.get("tags") or []
                                        if t not in TYPE_TAGS).most_common(5)]
        # Phase 2: meta-reflection
        evolution, caps = _meta(past, themes, graph["relations"], len(past) + 1)
        # Phase 3: consolidate
        items: list[Item] = []
        number = len(past) + 1

        def add(kind: ItemKind, line: str, data: dict[str, Any]) -> None:
            cap = caps.get(kind)
            if cap is not None and sum(1 for i in items if i.kind is kind) >= cap:
                return
            items.append(Item(f"{PREFIX[kind]}{number}-{sum(1 for i in items if i.kind is kind) + 1}", kind, line,
                              data))

        for fact in self._facts(memories, graph["relations"], user):
            add(ItemKind.fact, fact["line"], fact)
        for proc in _patterns(memories, graph["procedure_tags"]):
            add(ItemKind.procedure, proc["line"], proc)
        for row in stale:
            m = dict(row["memory"])
            rel = relevance.of(m, now)
            if rel.status is Status.archived:
                add(ItemKind.archive, f"{m['store'].capitalize()} {m['day']}: {_short(m['text'])} "
                                      f"(score: {rel.score:.2f}, last accessed {rel.days:.0f} days ago)",
                    {"memory_id": m["id"], "score": round(rel.score, 4)})
            elif row["linked"] and rel.status in (Status.fading, Status.dormant):
                add(ItemKind.confirm, f"Still relevant: {_short(m['text'])} (score {rel.score:.2f}, "
                                      f"{rel.status.value}; new memories touch it)", {"memory_id": m["id"]})
        for row in self.db.fetch("proposals/deferred", agent_id=agent_id, limit=50):  # 13.3: deferred to reflection
            add(ItemKind.proposal, f"From {row['from_agent']} (proposal #{row['number']}, {row['store']}): "
                                   f"{_short(row['content'])}", {"proposal_id": row["id"], "store": row["store"]})
        for c in _contradictions(graph["relations"]):
            add(ItemKind.contradiction, c["line"], c)
        for change in self._core_changes(core, memories, graph, now):
            add(ItemKind.core, f"{change['title']}: {change['summary']}", change)
        questions = _questions(items, graph["frequent"], now)
        entities = len({x for r in graph["relations"] for x in (r["s"], r["o"])}) or int(graph["entities"])
        summary = Summary(number=number, at=now, items=items, evolution=evolution, questions=questions,
                          episodes=len(memories), entities=entities, procedures=int(graph["procedures"]),
                          reviewed=len(past), next_at=self._next(now, zone), budget=self.config.budget)
        return summary, themes

    def _facts(self, memories: list[dict[str, Any]], relations: list[dict[str, Any]],
               user: str) -> list[dict[str, Any]]:  # open: Item.data, keyed by its kind (reflection_format)
        """Relations the episodes state that the graph does not hold yet, one fact per episode."""
        known = {(r["s"], r["relation"], r["o"]) for r in relations}
        me = user_entity(user)
        facts: list[dict[str, Any]] = []
        for m in memories:
            if m.get("store") != "episodic":
                continue
            c = self.router.classify(m.get("said") or m["text"], explicit=False, user=user)
            fresh = []
            for r in c.relations:
                s = me if r.subject.name.lower() in ("user", user.lower()) else r.subject
                o = me if r.object.name.lower() in ("user", user.lower()) else r.object
                key = (s.canonical_id, r.relation.value, o.canonical_id)
                if key not in known:
                    known.add(key)
                    fresh.append({"from": s.slug, "from_name": s.name, "from_kind": s.kind.value,
                                  "relation": r.relation.value, "to": o.slug, "to_name": o.name,
                                  "to_kind": o.kind.value})
            if fresh:
                facts.append({"line": f"{m['text']} (from the episode of {m['day']})", "summary": m["text"],
                              "relations": fresh, "learned_from": [m["id"]], "tags": list(m.get("tags") or [])})
        return facts

    def _core_changes(self, core: dict[Block, BlockOut], memories: list[dict[str, Any]],
                      graph: dict[str, Any], now: int) -> list[dict[str, Any]]:  # open: Item.data, by kind
        """Phase 4: active context and critical facts rewritten, under the cap."""
        stale = {f"- {m['text']}" for m in graph["core"] if m.get("core_block") == Block.context.value
                 and not m.get("archived_at") and relevance.of(m, now).status in (Status.dormant, Status.archived)}
        context = [x for x in lines(core[Block.context].content) if x.strip()]
        recent = [m for m in memories if m.get("memory_type") in ("task", "decision")
                  and m.get("store") in ("episodic", "semantic") and now - int(m["valid_from"]) <= RECENT_DAYS * DAY_MS]
        added = [f"- {m['text']}" for m in recent[-MAX_CONTEXT_ADDED:] if f"- {m['text']}" not in context]
        new_context = [x for x in context if x not in stale] + added
        critical = [x for x in lines(core[Block.critical].content) if x.strip()]
        promoted = [f"- {m['text']}" for m in graph["frequent"] if f"- {m['text']}" not in critical][:MAX_PROMOTED]
        new_critical = critical + promoted
        proposals = {Block.context: (context, new_context), Block.critical: (critical, new_critical)}
        # under the cap: the added lines leave first (newest last), then the oldest context lines
        tokens = {b: core[b].tokens for b in Block}
        for block, (before, after) in proposals.items():
            while after and self._over(tokens, block, after):
                extra = [x for x in after if x not in before]
                after.remove(extra[-1] if extra else after[0])
            tokens[block] = self.core.tokens("\n".join(after) + "\n") if after else 0
        out = []
        titles = {Block.context: "Active Context", Block.critical: "Critical Facts"}
        for block, (before, after) in proposals.items():
            if after != before:
                removed = len([x for x in before if x not in after])
                kept_new = len([x for x in after if x not in before])
                out.append({"block": block.value, "title": titles[block],
                            "before": core[block].content, "after": "\n".join(after) + "\n" if after else "",
                            "summary": f"{kept_new} line(s) added, {removed} removed"})
        return out

    def _over(self, tokens: dict[Block, int], block: Block, text: list[str]) -> bool:
        others = sum(t for b, t in tokens.items() if b is not block)
        return others + self.core.tokens("\n".join(text) + "\n") > self.core.cap

    def _next(self, now: int, zone: tzinfo = UTC) -> int:
        at = datetime.fromtimestamp(now / 1000, tz=zone)
        nxt = at.replace(hour=self.config.hour, minute=0, second=0, microsecond=0)
        if nxt <= at:
            nxt += timedelta(days=1)
        return int(nxt.timestamp() * 1000)

    # ------------------------------------------------------------------ the scheduler's triggers

    def due(self, now: int) -> list[tuple[str, Trigger]]:
        """Agents a reflection is due for: unprocessed memories past the threshold, or, at the nightly hour in the
        agent's time zone (moltbot-memory.md 10.1: "3:00 AM local time"), any new memory since a reflection at least
        20 hours old."""
        out = []
        for r in self.db.fetch("memory/reflection_due", agent_id=None):
            hour = datetime.fromtimestamp(now / 1000, tz=_zone(r["timezone"])).hour
            if int(r["new"]) >= self.config.threshold:
                out.append((str(r["agent_id"]), Trigger.threshold))
            elif hour == self.config.hour and now - int(r["last"] or 0) >= 20 * 3_600_000:
                out.append((str(r["agent_id"]), Trigger.schedule))
        return out

    def at_session_end(self, agent_id: str, *, actor: str, now: int | None = None) -> Reflection | None:
        """moltbot-memory.md 10.1 "Session end": a reflection over what the session added, pending until the person
        decides; none when nothing was remembered since the last reflection or one is waiting already."""
        if not self.db.fetch("memory/reflection_due", agent_id=agent_id):
            return None
        try:
            return self.reflect(agent_id, trigger=Trigger.session_end, actor=actor, now=now)
        except Conflict:  # one became pending meanwhile (a phrase, the scheduler): that one is the session's
            return None

    def run_due(self, now: int | None = None, cancelled: Callable[[], bool] = lambda: False,
                claim: Callable[[str], AbstractContextManager[bool]] | None = None) -> str:
        """A reflection for every agent due one. `claim(agent_id)`: the agent's lease when replicas share the
        work (graph/leases.py); an agent another replica holds (or already reflected this period) is left to it."""
        at = now if now is not None else now_ms()
        made = []
        for agent_id, trigger in self.due(at):
            if cancelled():
                break
            with claim(agent_id) if claim is not None else nullcontext(True) as mine:
                if not mine:
                    continue
                try:
                    made.append(self.reflect(agent_id, trigger=trigger, actor="scheduler", now=at).number)
                except Conflict:
                    continue
        return f"{len(made)} reflections proposed"


# ---------------------------------------------------------------------------------------- the rules

def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _meta(past: list[Reflection], themes: list[str], relations: list[dict[str, Any]],
          number: int) -> tuple[Evolution, dict[ItemKind, int]]:
    """Phase 2: what the past reflections say about this one."""
    decided = [r for r in past if r.decision]
    caps: dict[ItemKind, int] = {}
    if not past:
        learning = "This is my first reflection: there are no earlier ones to learn from yet."
    else:
        by = Counter(r.status for r in decided)
        learning = (f"Across {len(past)} past reflections you approved {by['approved']}, approved part of "
                    f"{by['partial']} and rejected {by['rejected']}"
                    f"{' (' + str(len(past) - len(decided)) + ' still pending)' if len(past) > len(decided) else ''}.")
        proposed: Counter[str] = Counter()
        applied: Counter[str] = Counter()
        for r in decided:
            kinds = {i.id: i.kind.value for i in r.items}
            proposed.update(kinds.values())
            applied.update(kinds[i] for i in r.applied if i in kinds)
        declined = [k for k, n in proposed.items() if n >= 2 and applied[k] / n < 0.5]
        for k in sorted(declined):
            caps[ItemKind(k)] = DECLINED_CAP
            learning += (f" You declined most {k} proposals ({applied[k]} of {proposed[k]} applied), so I propose "
                         f"at most {DECLINED_CAP} this time.")
    seen = Counter(t for r in past for t in r.themes)
    recurring = [t for t in themes if seen[t]]
    fresh = [t for t in themes if not seen[t]]
    understanding = ("; ".join(x for x in (
        f"recurring themes: {', '.join(f'{t} (in {seen[t] + 1} of {len(past) + 1} reflections)' for t in recurring)}"
        if recurring else "", f"new this time: {', '.join(fresh)}" if fresh else "") if x)
        or "No new memories to read this time.").capitalize() + "."
    prefers = sorted({r["o_name"] for r in relations if r["relation"] == MemoryRelation.prefers.value})
    avoids = sorted({r["o_name"] for r in relations if r["relation"] == MemoryRelation.avoids.value})
    if len(prefers) + len(avoids) >= 2:
        theme = ("Across what I know, a pattern: " + "; ".join(x for x in (
            f"preferred: {', '.join(prefers)}" if prefers else "", f"avoided: {', '.join(avoids)}" if avoids else "")
            if x) + ".")
    else:
        theme = "No theme spans my memories yet."
    return Evolution(learning, understanding, theme, MILESTONES.get(number)), caps


def _patterns(memories: list[dict[str, Any]],
              procedure_tags: list[list[str]]) -> list[dict[str, Any]]:  # open: Item.data, by kind
    """Episodes of the same kind of work on one topic, three or more: proposed as a procedure."""
    covered = {t for tags in procedure_tags for t in (tags or [])}
    groups: dict[str, list[dict[str, Any]]] = {}
    for m in memories:
        if m.get("store") != "episodic" or m.get("memory_type") not in ("task", "decision", "event"):
            continue
        for tag in m.get("tags") or []:
            if tag not in TYPE_TAGS:
                groups.setdefault(tag, []).append(m)
    out = []
    for tag, group in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        steps = list(dict.fromkeys(m["text"].rstrip(".") for m in group))[:7]
        # a topic (not a filler word) that several distinct episodes come back to
        if len(steps) < REPEATS or tag in covered or len(tag) < 5 or tag in GENERIC:
            continue
        covered.add(tag)
        out.append({"line": f"New procedure: when {tag} comes up ({len(steps)} steps, from {len(group)} episodes)",
                    "trigger": f"When {tag} comes up", "steps": steps, "notes": [], "tags": [tag, "procedure"],
                    "learned_from": [m["id"] for m in group]})
    return out


def _contradictions(relations: list[dict[str, Any]]) -> list[dict[str, Any]]:  # open: Item.data, by kind
    held = {(r["s"], r["relation"], r["o"]): r for r in relations}
    out = []
    for a, b in OPPOSITES:
        for (s, rel, o), r in sorted(held.items()):
            if rel == a.value and (s, b.value, o) in held:
                out.append({"line": f"{r['s_name']} {a.value} {r['o_name']}, and also {b.value} it",
                            "subject": s, "object": o, "relations": [a.value, b.value]})
    return out


def _questions(items: Sequence[Item], frequent: list[dict[str, Any]], now: int) -> list[str]:
    out = [f"{i.line}: which holds?" for i in items if i.kind is ItemKind.contradiction]
    out += [f"Should I pin “{_short(m['text'], 60)}” to the vault? You have come back to it {m['access_count']} "
            "times." for m in frequent if int(m["access_count"]) >= PIN_ACCESS]
    for m in frequent:
        days = (now - int(m["last_accessed_at"])) / DAY_MS
        if days >= STALE_QUESTION_DAYS and m.get("confidence_level") == "high":
            out.append(f"“{_short(m['text'], 60)}” hasn't been accessed in {math.floor(days)} days. Still relevant?")
    return out[:5]
