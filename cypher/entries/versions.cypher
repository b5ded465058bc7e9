// An entry's earlier versions, newest first (visible to who may see the entry).
:param id => 'entry-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (e:Entry {id: $id})-[:PREVIOUS_VERSION]->(v:EntryVersion)
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN v {.*} AS version
ORDER BY v.revision DESC
