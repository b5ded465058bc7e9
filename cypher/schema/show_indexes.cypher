// Every index with its kind and state, for /health.
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state, populationPercent
RETURN name, type, entityType, labelsOrTypes AS labels, properties, state, populationPercent
ORDER BY name
