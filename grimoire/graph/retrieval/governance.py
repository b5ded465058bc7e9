"""A crystal's epistemic layer, priority and bounty boost in the final score (knowledge-crystals.md: "Directives
(explicit user preferences) take priority over inferred knowledge", line 64; the governance `priority`, line 118,
read by retrieval; a skill's `bountyPriorityBoost`, "Reward multiplier from the matched bounty", line 70). The
document gives no number, so all three are tie-breakers (RetrievalConfig): a directive's score is multiplied by
1 + directive_boost (0.02), every crystal's by 1 + priority_boost x priority / 100 (up to 0.02 at priority 100), and
a crystal that fulfilled a bounty by 1 + bounty_boost x (its bounty's reward multiplier - 1) (0.02 a unit above 1: up
to x1.18 at the largest multiplier, 10) — enough to order near-equal items, never to lift a weak match far over a
strong one."""

from __future__ import annotations

from grimoire.graph.model.crystal.fields import MAX_BOUNTY_BOOST, NO_BOUNTY_BOOST
from grimoire.graph.retrieval.candidate import Candidate

DIRECTIVE = "directive"


def boost(item: Candidate, directive_boost: float, priority_boost: float, bounty_boost: float = 0.0) -> float:
    """The multiplier of the item's final score from its epistemic layer, priority and matched bounty (1 when it has
    none of them)."""
    layer = 1.0 + directive_boost if item.epistemic_layer == DIRECTIVE else 1.0
    priority = min(max(item.priority or 0, 0), 100)
    bounty = min(max(item.bounty_priority_boost or NO_BOUNTY_BOOST, NO_BOUNTY_BOOST), MAX_BOUNTY_BOOST)
    return round(layer * (1.0 + priority_boost * priority / 100.0) * (1.0 + bounty_boost * (bounty - 1.0)), 9)
