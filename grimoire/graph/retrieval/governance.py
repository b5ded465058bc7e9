"""A crystal's epistemic layer and priority in the final score (knowledge-crystals.md: "Directives (explicit user
preferences) take priority over inferred knowledge", line 64; the governance `priority`, line 118, read by
retrieval). The document gives no number, so both are tie-breakers (RetrievalConfig): a directive's score is
multiplied by 1 + directive_boost (0.02), and every crystal's by 1 + priority_boost x priority / 100 (up to 0.02 at
priority 100) — enough to order near-equal items, never to lift a weak match over a strong one."""

from __future__ import annotations

from grimoire.graph.retrieval.candidate import Candidate

DIRECTIVE = "directive"


def boost(item: Candidate, directive_boost: float, priority_boost: float) -> float:
    """The multiplier of the item's final score from its epistemic layer and priority (1 when it has neither)."""
    layer = 1.0 + directive_boost if item.epistemic_layer == DIRECTIVE else 1.0
    priority = min(max(item.priority or 0, 0), 100)
    return round(layer * (1.0 + priority_boost * priority / 100.0), 9)
