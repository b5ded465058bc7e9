// An erasure's derived items (graph/memory/forgetting.py), before the memories go: an entry derived only from
// erased memories is dropped (with its versions); one with another source stays, without its link to them; a
// crystal merged with an erased memory stays, its derivation from it (PROVENANCE) going with the memory, and a
// merge loser whose winner is erased no longer points at it.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
CALL () {
  MATCH (e:Entry)-[:DERIVED_FROM]->(m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id
  WITH DISTINCT e
  WITH e, EXISTS { MATCH (e)-[:DERIVED_FROM]->(o) WHERE NOT o.id IN $ids } AS other
  CALL (e, other) {
    WITH e WHERE NOT other
    OPTIONAL MATCH (e)-[:PREVIOUS_VERSION]->(v)
    WITH e, collect(v) AS vs
    FOREACH (v IN vs | DETACH DELETE v)
    WITH e, e.id AS id
    DETACH DELETE e
    RETURN {label: 'Entry', id: id, outcome: 'dropped: derived from the erased memories alone'} AS row
    UNION
    WITH e WHERE other
    RETURN {label: 'Entry', id: e.id, outcome: 'kept: its other sources remain, its link to the erased memories goes'} AS row
  }
  RETURN collect(row) AS entries
}
CALL () {
  MATCH (w)-[:PROVENANCE]->(m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND NOT w.id IN $ids
  RETURN collect(DISTINCT {label: head(labels(w)), id: w.id,
                           outcome: 'kept: its derivation from the erased memory goes'}) AS winners
}
CALL () {
  CALL () {
    MATCH (l:Episode) WHERE l.agent_id = $agent_id AND l.parent_id IN $ids RETURN l
    UNION
    MATCH (l:Memory) WHERE l.agent_id = $agent_id AND l.parent_id IN $ids RETURN l
    UNION
    MATCH (l:Entry) WHERE l.agent_id = $agent_id AND l.parent_id IN $ids RETURN l
  }
  WITH DISTINCT l WHERE NOT l.id IN $ids
  REMOVE l.parent_id
  RETURN collect({label: head(labels(l)), id: l.id, outcome: 'kept: its merge into the erased memory forgotten'}) AS losers
}
RETURN entries + winners + losers AS derived
