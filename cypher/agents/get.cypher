:param id => 'golem-1';
MATCH (a:Agent {id: $id})
RETURN properties(a) AS agent
