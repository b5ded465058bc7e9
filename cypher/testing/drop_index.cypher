// Drops one index by name; the name is the project's own (tests only).
:param name => 'episode_embedding';
CALL apoc.cypher.runSchema('DROP INDEX ' + $name + ' IF EXISTS', {}) YIELD value
RETURN value
