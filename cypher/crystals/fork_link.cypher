// A forked entry (admitted by the Admission Gate: graph/crystals/provenance.py fork_entry) linked to its source
// by a PROVENANCE relationship (operation forked, the actor, the time, metadata).
:param new_id => 'en-1-fork';
:param id => 'en-1';
:param actor => 'golem-2';
:param now => 1770000000000;
:param metadata => '{}';
MATCH (f:Entry {id: $new_id}), (src:Entry {id: $id})
CREATE (f)-[:PROVENANCE {operation: 'forked', actor: $actor, at: $now, metadata: $metadata}]->(src)
