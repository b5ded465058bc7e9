// The vector indexes and their dimensions (used by the start-up dimension check).
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options, state
RETURN name, labelsOrTypes AS labels, properties, state,
       options.indexConfig.`vector.dimensions` AS dimensions
