"""Where each category's candidates come from (S5.1 step 4). From the Grimoire, for what the agent may see and
what holds now: episodes and entries by similarity to the query (the retrieval's vector backend, sized by the
caller's reach), shared out among the categories — insights (at the policy's minimum confidence), playbook
heuristics, warnings (the invariants' active warnings), strategy fragments, causal links, dream hypotheses —
with the entries of the opposite valence to the mood set apart as contrarian evidence; then the causal edges
around the strongest entries, up to the policy's depth. From the caller: the invariants, strategy, DeFi snapshot,
mortality, tool state and the owner's controls. From the service: the affect block, from the PAD vector."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from grimoire.graph.context import affect
from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.items import Item, one_line, recency, unit
from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import EntryCategory
from grimoire.graph.retrieval import RetrievalFilters, Retriever, Similar
from grimoire.graph.visibility import Visibility

C = ContextCategory
DAY_MS = 86_400_000
EPISODE_HALF_LIFE_MS = 7 * DAY_MS
MAX_CAUSAL_DEPTH = 3   # the spec's default, and the deepest the statement expands
CAUSAL_FAN = 200       # links per hop at most

ENTRY_HOME: dict[str, tuple[ContextCategory, str]] = {
    EntryCategory.Insight.value: (C.insights, "insight"),
    EntryCategory.Heuristic.value: (C.playbook, "heuristic"),
    EntryCategory.Warning.value: (C.invariants, "warning"),
    EntryCategory.StrategyFragment.value: (C.strategy, "fragment"),
    EntryCategory.CausalLink.value: (C.causal_edges, "link"),
    EntryCategory.DreamJournal.value: (C.dream_hypotheses, "hypothesis"),
}
SUPPLIED_TAG: dict[ContextCategory, str] = {
    C.invariants: "invariant", C.strategy: "strategy", C.defi_snapshot: "fact", C.mortality: "signal",
    C.tool_state: "tool", C.owner_control: "directive", C.affect: "state"}
SUPPLIED = frozenset(SUPPLIED_TAG)
FROM_GRIMOIRE = frozenset({C.episodes, C.insights, C.playbook, C.causal_edges, C.contrarian, C.dream_hypotheses})


@dataclass(frozen=True)
class Supplied:
    """One item the caller puts in a category."""

    text: str
    id: str | None = None
    summary: str | None = None


@dataclass(frozen=True)
class Query:
    embedding: list[float] | None
    visibility: Visibility
    now: int
    pleasure: float
    similarity: float              # the policy's similarity_threshold (a cosine)
    max_episodes: int
    min_insight_confidence: float
    causal_depth: int


def _f(x: float | None) -> str:
    return f"{float(x or 0.0):.2f}"


def _pad(c: Similar) -> tuple[float, ...] | None:
    return tuple(float(x) for x in c.pad) if c.pad else None


def _episode(c: Similar, now: int) -> Item:
    tick = c.tick if c.tick is not None else c.block
    attrs = tuple((k, str(v)) for k, v in (("tick", tick), ("type", c.type), ("outcome", c.outcome)) if v is not None)
    text = c.text or ""
    return Item(id=c.id, category=C.episodes, text=text, summary=one_line(text), tag="episode", attrs=attrs,
                relevance=unit(c.score), recency=recency(c.valid_from or c.recorded_at, now, EPISODE_HALF_LIFE_MS),
                confidence=unit(c.confidence, 0.6), at=int(c.valid_from or c.recorded_at or 0), pad=_pad(c))


def _entry(c: Similar, category: ContextCategory, tag: str, confidence: float, now: int) -> Item:
    text = c.text or ""
    return Item(id=c.id, category=category, text=text, summary=one_line(text), tag=tag,
                attrs=(("confidence", _f(confidence)),), relevance=unit(c.score),
                recency=recency(c.valid_from or c.recorded_at, now, c.half_life_ms or 14 * DAY_MS),
                confidence=unit(confidence), at=int(c.valid_from or c.recorded_at or 0), pad=_pad(c))


def episodes(db: Database, retriever: Retriever, q: Query) -> list[Item]:
    """The most similar episodes that hold now, above the similarity threshold (masking orders them by time)."""
    if q.embedding is None or q.max_episodes <= 0:
        return []
    found = retriever.similar(q.embedding, q.max_episodes, q.visibility,
                              RetrievalFilters(kinds=["episodes"], valid_at=q.now), now=q.now)
    return [_episode(c, q.now) for c in found if c.score >= q.similarity]


def entries(db: Database, retriever: Retriever, q: Query, config: GovernorConfig) -> dict[ContextCategory, list[Item]]:
    """The most similar entries that hold now, each in its category's list; those of the opposite valence to the
    mood (at most `contrarian_count`, the most similar first) in the contrarian list instead."""
    out: dict[ContextCategory, list[Item]] = {c: [] for c in FROM_GRIMOIRE | {C.invariants, C.strategy}}
    if q.embedding is None:
        return out
    found = retriever.similar(q.embedding, config.entry_candidates, q.visibility,
                              RetrievalFilters(kinds=["entries"], valid_at=q.now), now=q.now)
    contrarian = 0
    for c in found:
        if c.score < q.similarity:
            continue
        confidence = c.effective_confidence
        category, tag = ENTRY_HOME.get(c.category or "", (C.insights, "insight"))
        if c.provenance == "Dream" and not c.dream_validated:
            category, tag = C.dream_hypotheses, "hypothesis"
        opposite = bool(c.pad) and q.pleasure != 0 and float((c.pad or [0.0])[0]) * q.pleasure < 0
        if config.enable_contrarian_injection and opposite and contrarian < config.contrarian_count:
            contrarian += 1
            item = _entry(c, C.contrarian, "contrarian", confidence, q.now)
            out[C.contrarian].append(replace(item, attrs=(*item.attrs, ("kind", tag))))
            continue
        if category == C.insights and confidence < q.min_insight_confidence:
            continue
        out[category].append(_entry(c, category, tag, confidence, q.now))
    return out


def seeds(found: Mapping[ContextCategory, Sequence[Item]], n: int) -> list[str]:
    """The strongest entries, whose causal neighbourhood is read."""
    pool = [i for c in (C.insights, C.playbook, C.invariants, C.strategy, C.causal_edges) for i in found.get(c, [])
            if i.source == "grimoire"]
    return [i.id for i in sorted(pool, key=lambda i: -i.relevance)[:n]]


def causal(db: Database, q: Query, seed_ids: list[str], top: int, half_life_ms: float) -> list[Item]:
    """Causal edges (CAUSES between entries the agent may see) within the policy's depth of the seeds, the
    strongest first (weight x recency of the link)."""
    if not seed_ids or q.causal_depth <= 0 or top <= 0:
        return []
    rows = db.rows("context/causal_edges", seeds=seed_ids, depth=min(q.causal_depth, MAX_CAUSAL_DEPTH), top=top,
                   fan=CAUSAL_FAN, now=q.now, half_life_ms=half_life_ms, **q.visibility.params())
    out = []
    for r in rows:
        cause, effect = one_line(r["cause_text"] or "", 16), one_line(r["effect_text"] or "", 16)
        out.append(Item(id=r["id"], category=C.causal_edges, text=f"{cause} → {effect}",
                        summary=f"{one_line(cause, 6)} → {one_line(effect, 6)}", tag="edge",
                        attrs=(("weight", _f(r["weight"])),), relevance=unit(r["score"]), recency=1.0,
                        confidence=unit(r["confidence"], 0.5), at=int(r["updated_at"] or 0)))
    return out


def supplied(category: ContextCategory, given: Sequence[Supplied]) -> list[Item]:
    """The caller's items in the order given (their rank: the first is the most important)."""
    n = len(given)
    out = []
    for i, s in enumerate(given):
        ident = s.id or f"{category.value}:{hashlib.sha1(s.text.encode()).hexdigest()[:12]}"
        out.append(Item(id=ident, category=category, text=s.text, summary=s.summary or one_line(s.text),
                        tag=SUPPLIED_TAG[category], relevance=1.0 - i / max(n, 1), recency=1.0, confidence=1.0,
                        source="caller"))
    return out


def affect_item(pad: affect.Pad) -> Item:
    """The agent's mood as the Governor read it: the vector and the states it is in."""
    states = affect.states(pad)
    said = {"stressed": "stressed: contrarian evidence added against confirmation bias",
            "uncertain": "uncertain: more playbook heuristics as decision scaffolding",
            "complacent": "complacent: more contrarian evidence against overconfidence"}
    text = (f"pleasure {pad.pleasure:+.2f}, arousal {pad.arousal:+.2f}, dominance {pad.dominance:+.2f}; "
            + ("; ".join(said[s] for s in states) if states else "calm: no shift in the allocations"))
    return Item(id="affect:pad", category=C.affect, text=text, summary=", ".join(states) or "calm", tag="state",
                relevance=1.0, confidence=1.0, source="service")
