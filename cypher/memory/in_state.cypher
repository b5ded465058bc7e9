// Which of these memories of the agent are archived ($archived true) or not: those an archive (a restore)
// would change, whose states are kept as versions before it does (graph/audit/versions.py).
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
:param archived => false;
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND (m.archived_at IS NOT NULL) = $archived
RETURN m.id AS id
