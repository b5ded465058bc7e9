// The constraint and vector index earlier versions created and nothing wrote, as a database made
// by such a version has them (tests of schema/retired).
:param dimensions => 384;
CREATE CONSTRAINT core_memory_block_id IF NOT EXISTS FOR (n:CoreMemoryBlock) REQUIRE n.id IS UNIQUE;
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
