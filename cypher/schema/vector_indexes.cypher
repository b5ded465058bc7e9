// Native vector indexes (cosine). The dimension comes from the embedding model. Quantization
// (int8) speeds the search; the queries re-score what the index returns with exact cosines.
:param dimensions => 384;
:param quantization => true;
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
CREATE VECTOR INDEX entry_embedding IF NOT EXISTS FOR (n:Entry) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
