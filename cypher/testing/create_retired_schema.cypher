// The constraint and vector index earlier versions created and nothing wrote, and the full-text indexes of the text
// alone that the scoped ones replaced, as a database made by such a version has them (tests of schema/retired).
:param dimensions => 384;
CREATE CONSTRAINT core_memory_block_id IF NOT EXISTS FOR (n:CoreMemoryBlock) REQUIRE n.id IS UNIQUE;
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX episode_text IF NOT EXISTS FOR (n:Episode) ON EACH [n.text]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entry_text IF NOT EXISTS FOR (n:Entry) ON EACH [n.content]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
