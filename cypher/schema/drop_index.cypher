// Drops one index by name (graph/schema.py passes only the project's own index names).
:param name => 'episode_embedding';
DROP INDEX $name IF EXISTS
