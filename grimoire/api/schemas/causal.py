"""What the causal graph routes answer (api/routes/causal.py): declared beside the causal graph
(graph/knowledge/causal.py), whose CausalGraph is also the shape a successor sends back."""

from __future__ import annotations

from grimoire.graph.knowledge.causal import CausalHit, CausalLinkOut, Inherited, LinksMade

__all__ = ["CausalHit", "CausalLinkOut", "Inherited", "LinksMade"]
