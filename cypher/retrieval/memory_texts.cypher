// The exact side of agent-memory recall's keyword search (graph/retrieval/lookup.py): the memories of one
// agent ($agent_id) the viewer may see whose text holds one of $words (lower case) as a substring, gathered
// through the episodes' ownership index (a small set: the caller checks its size first), at most $cap.
:param labels => ['Episode'];
:param viewer => 'agent-a';
:param clade => '';
:param admin => false;
:param agent_id => 'agent-a';
:param words => ['deploy'];
:param cap => 3000;
MATCH (n:Episode) USING INDEX n:Episode(agent_id)
WHERE n.agent_id = $agent_id AND n:Memory AND 'Episode' IN $labels
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND any(w IN $words WHERE toLower(n.text) CONTAINS w)
RETURN n.id AS id, n.text AS text
LIMIT $cap
