// How many episodes and entries (by category and status) the viewer may see; of one agent's when $owner is set.
// Also how many of those episodes still wait for their enrichment (graph/enrichment.py).
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param owner => null;
CALL () {
  MATCH (e:Episode)
  WHERE ($owner IS NULL OR e.agent_id = $owner)
    AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
  RETURN count(e) AS episodes, count(CASE WHEN e.enrichment = 'pending' THEN 1 END) AS pending
}
CALL () {
  MATCH (e:Entry)
  WHERE ($owner IS NULL OR e.agent_id = $owner)
    AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
  WITH e.category AS category, e.status AS status, count(*) AS n
  RETURN collect({category: category, status: status, n: n}) AS entries
}
RETURN episodes, pending, entries
