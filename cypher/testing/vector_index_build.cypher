// The upkeep's record of one vector index's builds (graph/upkeep/models.py), as stored.
:param name => 'episode_embedding';
MATCH (b:VectorIndexBuild {id: $name})
RETURN properties(b) AS build
