"""A workspace put together from its candidates (S2.1, S3.2, S3.5, S5.1), without the database: the budget is
shared out by the resolved allocations (a category left out gets nothing, a floor is honoured), each category is
selected within its share (graph/context/selection.py), what the others left unused goes to the categories the
budget cut short, the workspace is compacted under pressure (graph/context/compaction.py), each category's items
are laid out by the lost-in-the-middle rule (episodes newest first), and the tagged blocks are rendered
(graph/context/render.py).

Tokens are the model tokenizer's (`count`, the one every budget in the service uses). The rendered text is counted
once more at the end; should it run over the budget (a tokenizer that does not add up over lines), the weakest
items are taken out until it fits. So the text never exceeds the budget, whatever the candidates."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.context import compaction, ordering, render
from grimoire.graph.context.categories import ContextCategory, TaskComplexity
from grimoire.graph.context.compaction import Route
from grimoire.graph.context.disclosure import Disclosure
from grimoire.graph.context.items import Item
from grimoire.graph.context.selection import Line, Selection, select
from grimoire.graph.context.tokens import Tokens
from grimoire.graph.context.workspace import AssemblyReason, ContextEntry, Workspace

C = ContextCategory
Counter = Callable[[Sequence[str]], list[int]]
SHOWN_EXCLUSIONS = 10


@dataclass(frozen=True)
class Plan:
    budget: int
    allocations: Mapping[ContextCategory, float]
    masking: tuple[int, int] = (3, 7)
    thresholds: Mapping[ContextCategory, int] = field(default_factory=dict)   # S2.3 CompressionConfig
    protected: frozenset[ContextCategory] = frozenset()                      # by a compression guideline
    left_out: Mapping[ContextCategory, str] = field(default_factory=dict)     # category → why (Beta filter)
    floors: Mapping[ContextCategory, int] = field(default_factory=dict)       # tokens at least
    empty: Mapping[ContextCategory, str] = field(default_factory=dict)        # why a category has no candidates
    pressure: float | None = None
    complexity: TaskComplexity | None = None   # the task's: only a low one is injected in full (the route)
    block_attrs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    head: str = ""          # a fixed block rendered first (graph/context/scaffold.py), outside `budget`
    head_tokens: int = 0


@dataclass
class Composed:
    workspace: Workspace
    text: str
    tokens: int                     # of `text`, counted whole
    budgets: dict[ContextCategory, int]
    route: Route
    compaction: dict[str, Any] | None = None


def shares(plan: Plan) -> dict[ContextCategory, int]:
    """Each category's tokens: its fraction of the budget (rounded down); nothing for one left out; at least its
    floor, taken from the others in proportion. They never add up to more than the budget."""
    out = {c: 0 if c in plan.left_out else int(max(0.0, plan.allocations.get(c, 0.0)) * plan.budget)
           for c in ContextCategory}
    floored = {c for c, f in plan.floors.items() if c not in plan.left_out and out[c] < f}
    for c in floored:
        out[c] = min(plan.floors[c], plan.budget)
    over = sum(out.values()) - plan.budget
    others = [c for c in ContextCategory if c not in floored and out[c] > 0]
    if over > 0 and others:
        pool = sum(out[c] for c in others)
        for c in others:
            out[c] -= min(out[c], -(-over * out[c] // pool))
    while sum(out.values()) > plan.budget:  # rounding, or floors alone over the budget
        biggest = max(out, key=lambda c: out[c])
        out[biggest] -= 1
    return out


def _lines(candidates: Mapping[ContextCategory, Sequence[Item]], plan: Plan,
           count: Tokens) -> tuple[dict[ContextCategory, list[Line]], dict[ContextCategory, list[int]]]:
    """Every candidate's two lines with their tokens, and each category's block tags, counted in one call: a line
    in its three pieces (graph/context/tokens.py), most of them counted before."""
    ranked: dict[ContextCategory, list[tuple[str, Item]]] = {}
    for c, items in candidates.items():
        order = sorted(items, key=lambda i: -i.at) if c == C.episodes else sorted(items, key=lambda i: -i.score)
        ranked[c] = [(f"{render.REF_PREFIX[c]}{n}", item) for n, item in enumerate(order, start=1)]
    parts = {c: [(render.full_parts(ref, item), render.summary_parts(ref, item)) for ref, item in pairs]
             for c, pairs in ranked.items()}
    tags = {c: [s for name in render.block_names(c)
                for s in (render.opening(name, dict(plan.block_attrs.get(name, {}))), render.closing(name))]
            for c in ContextCategory}
    texts = [piece for ps in parts.values() for full, short in ps for piece in (*full, *short)]
    texts += [s for strings in tags.values() for s in strings]
    counts = iter(count(texts))
    lines: dict[ContextCategory, list[Line]] = {c: [] for c in ranked}
    for c, pairs in ranked.items():
        for (ref, item), (full, short) in zip(pairs, parts[c], strict=True):
            lines[c].append(Line(item, ref, "".join(full), "".join(short), sum(next(counts) for _ in full),
                                 sum(next(counts) for _ in short)))
    # per block: its opening and closing tags (episodes have two blocks)
    overheads = {c: [next(counts) + next(counts) for _ in range(len(strings) // 2)] for c, strings in tags.items()}
    return lines, overheads


def _select(c: ContextCategory, lines: Sequence[Line], budget: int, tags: Sequence[int], plan: Plan,
            masking: tuple[int, int] | None) -> Selection:
    threshold = None if c in plan.protected else plan.thresholds.get(c)
    parts = (tags[0], tags[1]) if len(tags) == 2 else None
    return select(c, lines, budget, sum(tags), threshold=threshold, masking=masking if c == C.episodes else None,
                  parts=parts)


def _select_all(lines: Mapping[ContextCategory, list[Line]], overheads: Mapping[ContextCategory, list[int]],
                budgets: Mapping[ContextCategory, int], plan: Plan, masking: tuple[int, int],
                shrunk: frozenset[ContextCategory] = frozenset()) -> dict[ContextCategory, Selection]:
    return {c: _select(c, lines.get(c, []), budgets[c], overheads[c], plan,
                       plan.masking if c in plan.protected or c not in shrunk else masking) for c in ContextCategory}


def _priority(c: ContextCategory, plan: Plan) -> tuple[bool, float, int]:
    """Who gets unused tokens first: hard context (compaction.HARD), then by allocation, then the render order."""
    return (c not in compaction.HARD, -plan.allocations.get(c, 0.0), render.ORDER.index(c))


def _budget_drops(s: Selection) -> int:
    """Items the budget kept out (masking's exclusions are the policy's, not the budget's)."""
    return sum(1 for _, why in s.excluded if not why.startswith("observation masking"))


def _better(new: Selection, old: Selection) -> bool:
    return (new.included, new.tokens) > (old.included, old.tokens) and new.included >= old.included


def _slack(selections: dict[ContextCategory, Selection], lines: Mapping[ContextCategory, list[Line]],
           overheads: Mapping[ContextCategory, list[int]], budgets: dict[ContextCategory, int], plan: Plan) -> dict[
               ContextCategory, int]:
    """What the workspace left unused goes to the categories the budget cut short, by priority (`_priority`), in
    three rounds, each taking the least that does it: first so that no category with candidates is left empty,
    then so that nothing is dropped (every item in, at least as one line), then so that more goes in full. A
    category is selected again with its extra only when that takes in more; the tokens used never add up to more
    than the budget. Returns the extra each got."""
    spare = plan.budget - sum(s.tokens for s in selections.values())
    order = sorted((c for c in ContextCategory if c not in plan.left_out), key=lambda c: _priority(c, plan))
    extra: dict[ContextCategory, int] = {}
    rounds: list[Callable[[Selection], bool]] = [lambda t: t.included > 0, lambda t: not _budget_drops(t),
                                                 lambda t: False]
    for enough in rounds:
        for c in order:
            s = selections[c]
            if spare <= 0 or not s.hungry or enough(s):
                continue
            most = s.tokens + spare
            if most <= budgets[c]:
                continue

            def pick(budget: int, c: ContextCategory = c) -> Selection:
                return _select(c, lines.get(c, []), budget, overheads[c], plan, plan.masking)

            budget = _least(pick, budgets[c] + 1, most, enough)
            chosen = pick(budget)
            if _better(chosen, s):
                spare -= chosen.tokens - s.tokens
                extra[c] = extra.get(c, 0) + budget - budgets[c]
                budgets[c], selections[c] = budget, chosen
    return extra


def _least(pick: Callable[[int], Selection], low: int, high: int, enough: Callable[[Selection], bool]) -> int:
    """The smallest budget in [low, high] whose selection is `enough` (high when none is): a binary search."""
    if not enough(pick(high)):
        return high
    while low < high:
        mid = (low + high) // 2
        if enough(pick(mid)):
            high = mid
        else:
            low = mid + 1
    return high


def _layout(c: ContextCategory, s: Selection) -> list[tuple[Line, Disclosure]]:
    """Render order: episodes newest first (in full, then one line); the rest by the lost-in-the-middle rule."""
    if c == C.episodes:
        return ([(x, Disclosure.full) for x in sorted(s.full, key=lambda x: -x.item.at)]
                + [(x, Disclosure.summary) for x in sorted(s.summarized, key=lambda x: -x.item.at)])
    shown = {x.ref: Disclosure.full for x in s.full} | {x.ref: Disclosure.summary for x in s.summarized}
    ranked = sorted(s.full + s.summarized, key=lambda x: -x.item.score)
    return [(x, shown[x.ref]) for x in ordering.interleave(ranked)]


def _render(selections: Mapping[ContextCategory, Selection], plan: Plan) -> str:
    blocks = [plan.head]
    for c in render.ORDER:
        laid = _layout(c, selections[c])
        if not laid:
            continue
        if c == C.episodes:
            groups = [(render.RECENT, [x.full for x, d in laid if d == Disclosure.full]),
                      (render.OLDER, [x.summary for x, d in laid if d == Disclosure.summary])]
        else:
            groups = [(c.value, [x.full if d == Disclosure.full else x.summary for x, d in laid])]
        blocks += [render.block(name, rows, dict(plan.block_attrs.get(name, {}))) for name, rows in groups if rows]
    return render.document(blocks)


def _trim(selections: dict[ContextCategory, Selection]) -> bool:
    """Take the weakest included item out of the category spending most; False when nothing is left."""
    spending = [s for s in selections.values() if s.included]
    if not spending:
        return False
    s = max(spending, key=lambda s: s.tokens)
    pool = s.summarized or s.full
    weakest = min(pool, key=lambda x: (x.item.score, -x.item.at))
    pool.remove(weakest)
    s.excluded.append((weakest, "taken out: the rendered text ran over the budget"))
    return True


def compose(candidates: Mapping[ContextCategory, Sequence[Item]], plan: Plan, count: Counter | Tokens) -> Composed:
    tokens_of = count if isinstance(count, Tokens) else Tokens(count)
    lines, overheads = _lines(candidates, plan, tokens_of)
    budgets = shares(plan)
    given = dict(budgets)
    p = plan.pressure
    selections = _select_all(lines, overheads, budgets, plan, plan.masking)
    extra: dict[ContextCategory, int] = {}
    report = None
    if compaction.compacting(p):
        assert p is not None
        share = compaction.soft_share(p)
        soft = frozenset(c for c in ContextCategory if c not in compaction.HARD and c not in plan.protected)
        budgets = {c: int(b * share) if c in soft else b for c, b in budgets.items()}
        compact = _select_all(lines, overheads, budgets, plan, compaction.COMPACT_SLOTS, soft)
        report = {"original_tokens": sum(s.tokens for s in selections.values()),
                  "compacted_tokens": sum(s.tokens for s in compact.values()),
                  "categories_compressed": [c.value for c in ContextCategory
                                            if compact[c].tokens < selections[c].tokens], "pressure": round(p, 4)}
        selections = compact
    else:
        extra = _slack(selections, lines, overheads, budgets, plan)
    text = _render(selections, plan)
    # the lines and tags add up to the text with an additive tokenizer; otherwise it is counted whole, and trimmed
    def counted() -> int:
        return (plan.head_tokens + sum(s.tokens for s in selections.values()) if tokens_of.additive
                else tokens_of.whole(text))

    tokens = counted()
    while tokens > plan.budget + plan.head_tokens and _trim(selections):
        text = _render(selections, plan)
        tokens = counted()
    workspace = Workspace(overhead=sum(selections[c].tags for c in ContextCategory))
    for c in render.ORDER:
        laid = _layout(c, selections[c])
        if laid:
            workspace.entries[c] = [
                ContextEntry(id=x.item.id, category=c, text=x.item.text if d == Disclosure.full else x.item.summary,
                             tokens=x.full_tokens if d == Disclosure.full else x.summary_tokens, disclosure=d,
                             ref=x.ref, score=x.item.score, source=x.item.source, tag=x.item.tag,
                             since=x.item.at, dominant=x.item.dominant) for x, d in laid]
    workspace.reasons = [_reason(c, selections[c], given[c], extra.get(c, 0), budgets[c], plan, report)
                         for c in ContextCategory]
    return Composed(workspace, text, tokens, budgets, compaction.route(p, plan.complexity), report)


def _reason(c: ContextCategory, s: Selection, given: int, extra: int, now: int, plan: Plan,
            report: dict[str, Any] | None) -> AssemblyReason:
    share = plan.allocations.get(c, 0.0)
    parts: list[str] = []
    if c in plan.left_out:
        parts.append(f"left out: {plan.left_out[c]}")
    elif not s.full and not s.summarized and not s.excluded:
        parts.append(f"{share:.1%} of the budget, {given} tokens; {plan.empty.get(c, 'no candidates')}")
    else:
        parts.append(f"{share:.1%} of the budget, {given} tokens")
        if c in plan.floors and given >= plan.floors[c] and share * plan.budget < plan.floors[c]:
            parts.append(f"raised to its floor of {plan.floors[c]}")
        if extra:
            parts.append(f"+{extra} the other categories left unused")
        if report is not None and now < given:
            parts.append(f"compacted to {now} (context pressure {report['pressure']:.0%})")
        parts.append(f"{len(s.full)} in full, {len(s.summarized)} as one line")
        if s.excluded:
            whys: dict[str, int] = {}
            for _, why in s.excluded:
                whys[why] = whys.get(why, 0) + 1
            parts.append(f"{len(s.excluded)} excluded (" + "; ".join(f"{n}: {w}" for w, n in whys.items()) + ")")
        if c in plan.protected:
            parts.append("kept whole by a compression guideline")
        elif plan.thresholds.get(c):
            parts.append(f"items over {plan.thresholds[c]} tokens as one line")
    return AssemblyReason(category=c, tokens_allocated=now, tokens_used=s.tokens,
                          items_included=s.included, items_excluded=len(s.excluded), reason="; ".join(parts),
                          excluded=tuple((x.item.id, why) for x, why in s.excluded[:SHOWN_EXCLUSIONS]))
