// Lock a reflection before deciding it (a write on the node: a concurrent decision waits, then sees it
// decided), and read its status as committed.
:param id => 'reflection-1';
MATCH (r:MemoryReflection {id: $id})
SET r.id = r.id
RETURN r.status AS status
