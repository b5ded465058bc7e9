// Registers an agent (idempotent by id); returns whether this call created it.
:param audit_id => 'audit-1';
:param agent => {id: 'golem-1', name: 'Golem One', kind: 'main', clade: 'clade-a', generation: 0, created_at: 0};
MERGE (a:Agent {id: $agent.id})
  ON CREATE SET a = $agent, a.audit_id = $audit_id
RETURN properties(a) AS agent, a.audit_id = $audit_id AS created
