// Takes the entry's write lock (by bumping its version) and returns it, for a read-modify-write
// that concurrent votes cannot interleave with.
:param id => 'entry-1';
MATCH (e:Entry {id: $id})
SET e.version = coalesce(e.version, 0) + 1
RETURN apoc.map.removeKey(properties(e), 'embedding') AS entry
