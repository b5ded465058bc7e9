// Which of an import's memory ids are in the graph already (an import run before), whose they are and the
// digest of the content they were imported with.
:param ids => ['mem-1'];
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.agent_id AS agent_id, m.workspace_hash AS digest
