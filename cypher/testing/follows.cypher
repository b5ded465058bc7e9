// The episode an episode follows in its thread (tests only).
:param id => 'ep-1';
MATCH (:Episode {id: $id})-[:FOLLOWS]->(p:Episode)
RETURN p.id AS id
