"""State compaction (context-governor.md S3.5) and the injection route (S3.2).

Context pressure is the share of the model's window already in use (the caller says how much). Above 80% the
workspace is compacted: hard context — the invariants (policy cage, phase, active warnings), the DeFi snapshot
(the positions), mortality and the owner's controls — keeps full fidelity; soft context is compressed in
proportion to what is left of the window: each soft category keeps (1 - pressure) / 0.2 of its budget (all of it
at 80%, none at 100%), and episodes are masked with fewer slots (2 in full, 5 as one line, as the spec's
compact_state_for_context does). A category a compression guideline protects (S3.8) is not compressed.

The route follows the spec's route_context_injection: full below 50% pressure for a task of low complexity, RAG
above 80% (the workspace is compacted and the agent retrieves the rest on demand), hybrid otherwise: between,
for a task not of low complexity (or whose complexity is not given), and when the pressure is not given. The
spec's turn-phase branch (Decide, Reflect) returns hybrid, as its default does, so the phase changes no route."""

from __future__ import annotations

from enum import StrEnum

from grimoire.graph.context.categories import ContextCategory, TaskComplexity

C = ContextCategory
HARD: frozenset[ContextCategory] = frozenset({C.invariants, C.defi_snapshot, C.mortality, C.owner_control})
THRESHOLD = 0.8
COMPACT_SLOTS = (2, 5)


class Route(StrEnum):
    full = "full"
    hybrid = "hybrid"
    rag = "rag"


def pressure(context_tokens: int | None, max_context_tokens: int | None) -> float | None:
    if context_tokens is None or not max_context_tokens:
        return None
    return min(1.0, max(0.0, context_tokens / max_context_tokens))


def route(p: float | None, complexity: TaskComplexity | None = None) -> Route:
    if p is None:
        return Route.hybrid
    if p < 0.5 and complexity == TaskComplexity.low:
        return Route.full
    return Route.rag if p > THRESHOLD else Route.hybrid


def compacting(p: float | None) -> bool:
    return p is not None and p > THRESHOLD


def soft_share(p: float) -> float:
    """What a soft category keeps of its budget under pressure p (above the threshold)."""
    return min(1.0, max(0.0, (1.0 - p) / (1.0 - THRESHOLD)))
