// Drops one constraint by name; the name is the project's own (tests only).
:param name => 'value_id';
CALL apoc.cypher.runSchema('DROP CONSTRAINT ' + $name + ' IF EXISTS', {}) YIELD value
RETURN value
