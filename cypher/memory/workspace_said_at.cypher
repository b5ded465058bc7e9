// The first memory of an agent said in each given minute (from $refs' minute, epoch ms, on its UTC day):
// the episodes a procedure's "Learned From" lines name when the imported workspace does not hold them.
:param agent_id => 'agent-a';
:param refs => [{minute: 1769351400000, day: '2026-01-25'}];
UNWIND $refs AS ref
CALL (ref) {
  MATCH (m:Memory {agent_id: $agent_id, day: ref.day})
  WHERE m:Episode AND m.valid_from >= ref.minute AND m.valid_from < ref.minute + 60000
  RETURN m.id AS id
  ORDER BY m.valid_from, m.id
  LIMIT 1
}
RETURN ref.minute AS minute, id
