"""A crystal's governance in the graph (knowledge-crystals.md, "Governance Model"), set when it is written.

Access scope is the visibility rule's `scope` (graph/visibility.py): private is the owner's, shared its clade's,
public everyone's. The spec's `canAccess` gives confidential crystals to the local agent only, whatever their
scope: here a crystal tagged confidential is stored private, with the scope that was asked for kept as
`requested_scope`, so the one visibility rule every read path already applies keeps it the owner's — there is no
second rule to forget on a new route. A memory crystal (episode, preference, relationship, fact, goal) is stored
private the same way under the memory-scope rule (graph/model/crystal/privacy.py). Expired crystals leave every
read path by losing their labels (graph/crystals/store.py)."""

from __future__ import annotations

from typing import Any

from grimoire.graph.model.crystal.privacy import MemoryScope, private_scope
from grimoire.graph.model.crystal.sensitivity import Sensitivity, tag
from grimoire.graph.model.governance import GovernanceIn, Lifespan
from grimoire.graph.model.rows import Properties


def govern(text: str, scope: str, asked: GovernanceIn | None, now: int, *,
           default_lifespan: Lifespan = Lifespan.decay, semantic_type: str | None = None,
           memory_scope: MemoryScope = MemoryScope.private) -> Properties:
    """The governance properties of a crystal written now with this text and the scope its writer asked for (of
    this semantic type: a memory crystal is private under the `private` memory-scope rule)."""
    g = asked or GovernanceIn()
    sensitivity = tag(text)
    lifespan = g.lifespan or default_lifespan
    props: dict[str, Any] = {"sensitivity": sensitivity.value, "lifespan": lifespan.value, "priority": g.priority,
                             "scope": scope}
    if scope != "private" and (sensitivity is Sensitivity.confidential
                               or private_scope(semantic_type, scope, memory_scope) == "private"):
        props.update(scope="private", requested_scope=scope)
    if lifespan is Lifespan.ttl and g.ttl_ms is not None:
        props.update(ttl_ms=g.ttl_ms, expires_at=now + g.ttl_ms)
    return props

