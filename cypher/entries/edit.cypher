// EDIT: refine an entry's content and conditions (after its state was kept as a version,
// cypher/audit/keep_versions.cypher, in the same transaction): the entry carries the new text and its new
// embedding; its id, evidence and counts stay.
:param id => 'entry-1';
:param changes => {content: 'refined'};
:param embedding => [];
MATCH (e:Entry {id: $id})
SET e += $changes
WITH e
CALL db.create.setNodeVectorProperty(e, 'embedding', $embedding)
RETURN e.id AS id
