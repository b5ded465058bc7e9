// Bulk agent memories (:Episode:Memory, no embedding) of other agents, for recall at scale in tests.
:param rows => [{id: 'bm-1', props: {text: 'deploy canary', agent_id: 'other-1', scope: 'private', store: 'semantic'}}];
UNWIND $rows AS row
CREATE (n:Episode:Memory {id: row.id})
SET n += row.props
RETURN count(*) AS created
