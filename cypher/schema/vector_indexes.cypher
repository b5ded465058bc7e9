// Native vector indexes (cosine). The dimension comes from the embedding model. Quantization
// (int8, GRIMOIRE_VECTOR_QUANTIZATION) is off by default: exact scores straight from the index.
:param dimensions => 384;
:param quantization => false;
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
CREATE VECTOR INDEX entry_embedding IF NOT EXISTS FOR (n:Entry) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
// A skill's multi-perspective embeddings (knowledge-crystals.md): its procedural, causal and entity views.
CREATE VECTOR INDEX skill_procedural IF NOT EXISTS FOR (n:Skill) ON (n.embedding_procedural)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
CREATE VECTOR INDEX skill_causal IF NOT EXISTS FOR (n:Skill) ON (n.embedding_causal)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
CREATE VECTOR INDEX skill_entity IF NOT EXISTS FOR (n:Skill) ON (n.embedding_entity)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: $quantization}};
