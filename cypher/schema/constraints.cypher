// Uniqueness of ids for every node kind Grimoire stores. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (n:Episode) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entry_id IF NOT EXISTS FOR (n:Entry) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_id IF NOT EXISTS FOR (n:Agent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT audit_record_id IF NOT EXISTS FOR (n:AuditRecord) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT admission_decision_id IF NOT EXISTS FOR (n:AdmissionDecision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT core_memory_block_id IF NOT EXISTS FOR (n:CoreMemoryBlock) REQUIRE n.id IS UNIQUE;
