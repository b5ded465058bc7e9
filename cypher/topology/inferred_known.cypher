// Which inferred TokenFlow facts a co-occurrence pass would add nothing with (graph/topology/inference.py):
// the fact id is taken (any version: one its owner invalidated stays so), or the partition already sees an
// open TokenFlow from the subject to the object, whoever stated it. Those are left out of the assertion, so a
// re-run writes nothing, not even an audit record, and never touches another writer's fact.
:param admin => false;
:param viewer => '';
:param clade => 'clade-a';
:param rows => [{fact_id: 'cooc-1', subject: 'pool:a', object: 'pool:b'}];
UNWIND $rows AS row
MATCH (s:Entity {id: row.subject})
WHERE EXISTS { ()-[f:TOKEN_FLOW]->() WHERE f.fact_id = row.fact_id }
   OR EXISTS { (s)-[f:TOKEN_FLOW]->(o:Entity {id: row.object}) WHERE f.expired_at IS NULL AND f.valid_to IS NULL
               AND ($admin OR f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) }
RETURN row.fact_id AS fact_id
