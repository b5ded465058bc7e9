// Schema that earlier versions created and nothing wrote: dropped from such a database when the
// schema is applied (IF EXISTS: idempotent). Core memory blocks and entity embeddings will bring
// their own with the features that write them.
DROP CONSTRAINT core_memory_block_id IF EXISTS;
DROP INDEX entity_embedding IF EXISTS;
DROP INDEX skill_id IF EXISTS;
