// Schema that earlier versions created and this one does not use: dropped from such a database when the
// schema is applied (IF EXISTS: idempotent). Core memory blocks and entity embeddings will bring
// their own with the features that write them.
DROP CONSTRAINT core_memory_block_id IF EXISTS;
DROP INDEX entity_embedding IF EXISTS;
DROP INDEX skill_id IF EXISTS;
// The full-text indexes of the text alone, replaced by the scoped episode_search and entry_search.
DROP INDEX episode_text IF EXISTS;
DROP INDEX entry_text IF EXISTS;
