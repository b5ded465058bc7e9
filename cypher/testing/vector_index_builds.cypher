// Every vector index's build as the service's upkeep keeps it (graph/upkeep/models.py), for the benchmarks.
MATCH (b:VectorIndexBuild)
RETURN b.id AS name, properties(b) AS build
