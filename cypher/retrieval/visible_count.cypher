// How many items (of $labels) the viewer may see, counted through the ownership and scope
// indexes and never past $cap per branch, beside how many there are in all (the count store):
// (The admin without an agent filter sees them all: the caller takes the total.)
// graph/retrieval/reach.py chooses from these an exact ranking of a small visible set or a
// bounded widening of an index search for a large one.
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
:param cap => 20000;
CALL () {
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = CASE WHEN 'Episode' IN $labels AND $admin THEN $agent_id END
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = CASE WHEN 'Episode' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(scope, clade)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(scope)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND $admin THEN $agent_id END
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(scope, clade)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n LIMIT $cap
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(scope)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n LIMIT $cap
}
// Every branch is an index seek whose value is null unless the branch applies (by $admin, $labels,
// $agent_id), so no plan can run a branch for nothing; the admin without an agent filter, who sees
// everything, uses the _all variant. Each branch is one clause of the visibility predicate, so the
// union is what the caller may see:
// ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)).
WITH count(n) AS visible
RETURN visible,
       (CASE WHEN 'Episode' IN $labels THEN COUNT { (:Episode) } ELSE 0 END) +
       (CASE WHEN 'Entry' IN $labels THEN COUNT { (:Entry) } ELSE 0 END) AS total
