// Sets changed properties of one entry (after cypher/entries/lock.cypher in the same transaction).
:param id => 'entry-1';
:param changes => {};
MATCH (e:Entry {id: $id})
SET e += $changes
RETURN e.id AS id
