// The vector indexes' rebuilds as the upkeep recorded them (graph/upkeep/models.py), for the Prometheus endpoint.
MATCH (b:VectorIndexBuild)
RETURN b.id AS name, coalesce(b.rebuilds, 0) AS rebuilds, b.rebuilding_since IS NOT NULL AS rebuilding
ORDER BY name
