// Takes the entry's write lock (by bumping its version) and returns it, for a read-modify-write
// that concurrent votes cannot interleave with.
:param id => 'entry-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (e:Entry {id: $id})
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
SET e.version = coalesce(e.version, 0) + 1
RETURN apoc.map.removeKey(properties(e), 'embedding') AS entry
