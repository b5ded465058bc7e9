// Overwrites properties of one entry (tests only: to place its decay clock in the past).
:param id => 'entry-1';
:param props => {last_accessed_at: 0};
MATCH (e:Entry {id: $id})
SET e += $props
RETURN e.id AS id
