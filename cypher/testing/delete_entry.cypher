// Deletes one entry with its relationships (tests only: a seeded item gone missing).
:param id => 'entry-1';
MATCH (e:Entry {id: $id})
DETACH DELETE e
