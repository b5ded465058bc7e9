// A crystal's derivation DAG to depth 5 (knowledge-crystals.md, "Provenance DAG"): the crystal and every
// visible crystal it derives from within five PROVENANCE hops, each with the operation that made it
// (merged, mutated, imported, forked; created when it derives from nothing), its actor, time, metadata and
// parents. Expired crystals (no label) and crystals the viewer may not see are not followed.
:param id => 'ep-1';
:param depth => 5;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL () {
  MATCH (c:Episode {id: $id}) RETURN c
  UNION
  MATCH (c:Memory {id: $id}) RETURN c
  UNION
  MATCH (c:Entry {id: $id}) RETURN c
}
WITH DISTINCT c WHERE $admin OR c.agent_id = $viewer OR c.scope = 'public' OR (c.scope = 'shared' AND c.clade = $clade)
MATCH path = (c)-[:PROVENANCE*0..5]->(x)
WHERE length(path) <= $depth
  AND all(n IN nodes(path) WHERE (n:Episode OR n:Memory OR n:Entry)
          AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)))
WITH x, min(length(path)) AS depth
OPTIONAL MATCH (x)-[r:PROVENANCE]->(p)
WHERE (p:Episode OR p:Memory OR p:Entry)
  AND ($admin OR p.agent_id = $viewer OR p.scope = 'public' OR (p.scope = 'shared' AND p.clade = $clade))
WITH x, depth, r, p ORDER BY r.at, p.id
RETURN x.id AS id, depth, x.agent_id AS owner, x.recorded_at AS recorded_at,
       coalesce(x.provenance_operation, 'created') AS created_as, coalesce(x.provenance_actor, x.agent_id) AS creator,
       [e IN collect(CASE WHEN r IS NULL THEN null ELSE {parent: p.id, operation: r.operation, actor: r.actor,
                                                          at: r.at, metadata: r.metadata} END) WHERE e IS NOT NULL]
         AS derivations
ORDER BY depth, id
