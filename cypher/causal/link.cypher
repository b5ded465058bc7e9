// Causal links between knowledge entries the writer may see, idempotent by id.
:param audit_id => 'audit-1';
:param rows => [{id: 'agent-a:e1.causes.e2', cause: 'e1', effect: 'e2', props: {weight: 1.0, evidence: 1, lag_blocks: 3, lag_ms: null, confidence: 0.6, provenance: 'SelfLearned', agent_id: 'agent-a', scope: 'private', clade: '', created_at: 1700000000000, updated_at: 1700000000000, recorded_at: 1700000000000}}];
:param admin => true;
:param viewer => '';
:param clade => '';
UNWIND $rows AS row
MATCH (a:Entry {id: row.cause}), (b:Entry {id: row.effect})
WHERE all(n IN [a, b] WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
MERGE (a)-[c:CAUSES {id: row.id}]->(b)
  ON CREATE SET c += row.props, c.audit_id = $audit_id
RETURN c.id AS id, c.audit_id = $audit_id AS created
