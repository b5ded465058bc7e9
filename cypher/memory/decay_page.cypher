// A page of live memories in id order, with what their decay status follows from (graph/memory/decay_status.py):
// the relevance inputs of graph/memory/relevance.py and the status last recorded. Forgotten (archived) memories
// are left out: a person's archive is their record, and they left every search path.
:param after => '';
:param limit => 1000;
MATCH (m:Memory:Episode)
WHERE m.id > $after AND m.archived_at IS NULL
RETURN m.id AS id, m.agent_id AS agent_id, m.store AS store, m.base_relevance AS base_relevance,
       m.access_count AS access_count, m.last_accessed_at AS last_accessed_at, m.recorded_at AS recorded_at,
       coalesce(m.pinned, false) AS pinned, m.decay_status AS decay_status, m.decay_status_at AS decay_status_at
ORDER BY m.id
LIMIT $limit
