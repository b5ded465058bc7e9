// How many memories (:Episode:Memory) of one agent ($agent_id) the viewer may see, counted through the
// episodes' ownership index and never past $cap, beside how many episodes there are in all (the documents
// of the full-text index the keyword search asks): the reach that sizes agent-memory recall's keyword
// search (graph/retrieval/lookup.py). Without an agent, none.
:param labels => ['Episode'];
:param viewer => 'agent-a';
:param clade => '';
:param admin => false;
:param agent_id => 'agent-a';
:param cap => 20000;
CALL () {
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = $agent_id AND n:Memory AND 'Episode' IN $labels
    AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  RETURN n LIMIT $cap
}
WITH count(n) AS visible
RETURN visible, COUNT { (:Episode) } AS total
