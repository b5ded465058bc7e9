// Uniqueness of ids for every node kind Grimoire stores. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (n:Episode) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entry_id IF NOT EXISTS FOR (n:Entry) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_id IF NOT EXISTS FOR (n:Agent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT audit_record_id IF NOT EXISTS FOR (n:AuditRecord) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT audit_digest_id IF NOT EXISTS FOR (n:AuditDigest) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT access_record_id IF NOT EXISTS FOR (n:AccessRecord) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT admission_decision_id IF NOT EXISTS FOR (n:AdmissionDecision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT value_id IF NOT EXISTS FOR (n:Value) REQUIRE n.id IS UNIQUE;
// Agent memories (graph/memory/stores.py): Episodes while searchable, Memory always (archived ones too).
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE;
// The control-plane nodes modelled with neomodel (graph/memory/models.py), under the names neomodel's own
// install_labels gives them (constraint_unique_<label>_<property>), so it finds them in place.
CREATE CONSTRAINT constraint_unique_CoreBlock_id IF NOT EXISTS FOR (n:CoreBlock) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_CoreBlockVersion_id IF NOT EXISTS FOR (n:CoreBlockVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_WorkspaceFile_id IF NOT EXISTS FOR (n:WorkspaceFile) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_MemoryReflection_id IF NOT EXISTS FOR (n:MemoryReflection) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_MemoryProposal_id IF NOT EXISTS FOR (n:MemoryProposal) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_Alert_id IF NOT EXISTS FOR (n:Alert) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextPolicy_id IF NOT EXISTS FOR (n:ContextPolicy) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_VectorIndexBuild_id IF NOT EXISTS FOR (n:VectorIndexBuild) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextPolicyRevision_id IF NOT EXISTS FOR (n:ContextPolicyRevision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextAssembly_id IF NOT EXISTS FOR (n:ContextAssembly) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextDecision_id IF NOT EXISTS FOR (n:ContextDecision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextBelief_id IF NOT EXISTS FOR (n:ContextBelief) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ContextMutation_id IF NOT EXISTS FOR (n:ContextMutation) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_AgentHormones_id IF NOT EXISTS FOR (n:AgentHormones) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_NetworkWeather_id IF NOT EXISTS FOR (n:NetworkWeather) REQUIRE n.id IS UNIQUE;
// Knowledge crystals' verification and bounties (graph/crystals/endorsements.py, bounties.py).
CREATE CONSTRAINT management_node_id IF NOT EXISTS FOR (n:ManagementNode) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT bounty_id IF NOT EXISTS FOR (n:Bounty) REQUIRE n.id IS UNIQUE;
// Console sessions (graph/console_sessions.py): by public id, and by the SHA-256 of the cookie's secret.
CREATE CONSTRAINT constraint_unique_ConsoleSession_id IF NOT EXISTS FOR (n:ConsoleSession) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_unique_ConsoleSession_hash IF NOT EXISTS FOR (n:ConsoleSession) REQUIRE n.hash IS UNIQUE;
// Facts are relationships, one per version (bi-temporal): each version's id is unique.
CREATE CONSTRAINT fact_deployed_by_id IF NOT EXISTS FOR ()-[r:DEPLOYED_BY]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_token_flow_id IF NOT EXISTS FOR ()-[r:TOKEN_FLOW]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_oracle_dependency_id IF NOT EXISTS FOR ()-[r:ORACLE_DEPENDENCY]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_price_correlation_id IF NOT EXISTS FOR ()-[r:PRICE_CORRELATION]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_governance_control_id IF NOT EXISTS FOR ()-[r:GOVERNANCE_CONTROL]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_collateral_backing_id IF NOT EXISTS FOR ()-[r:COLLATERAL_BACKING]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_has_position_id IF NOT EXISTS FOR ()-[r:HAS_POSITION]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_is_router_for_id IF NOT EXISTS FOR ()-[r:IS_ROUTER_FOR]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT fact_custom_id IF NOT EXISTS FOR ()-[r:CUSTOM]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT causes_id IF NOT EXISTS FOR ()-[r:CAUSES]-() REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT analysis_run_id IF NOT EXISTS FOR (n:AnalysisRun) REQUIRE n.id IS UNIQUE;
// The learning loop (graph/learning/): every node it writes is MERGEd on its id.
CREATE CONSTRAINT curator_cycle_id IF NOT EXISTS FOR (n:CuratorCycle) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT consolidation_run_id IF NOT EXISTS FOR (n:ConsolidationRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT strategy_counter_id IF NOT EXISTS FOR (n:StrategyCounter) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT curator_operation_id IF NOT EXISTS FOR (n:CuratorOperation) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT delta_id IF NOT EXISTS FOR (n:Delta) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT reflection_id IF NOT EXISTS FOR (n:Reflection) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entry_version_id IF NOT EXISTS FOR (n:EntryVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT metric_sample_id IF NOT EXISTS FOR (n:MetricSample) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT retrieval_weights_agent IF NOT EXISTS FOR (n:RetrievalWeights) REQUIRE n.agent_id IS UNIQUE;
CREATE CONSTRAINT version_id IF NOT EXISTS FOR (n:Version) REQUIRE n.id IS UNIQUE;
// The co-occurrence inference's counts and watermark (graph/topology/cooccurrence_counts.py), MERGEd on their ids.
CREATE CONSTRAINT cooccurrence_pair_id IF NOT EXISTS FOR (n:CoOccurrencePair) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT cooccurrence_mentions_id IF NOT EXISTS FOR (n:CoOccurrenceMentions) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT cooccurrence_mark_id IF NOT EXISTS FOR (n:CoOccurrenceMark) REQUIRE n.id IS UNIQUE;
// Leases on background work (graph/leases.py): one node per job or per agent's unit of work, by name.
CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (n:Lease) REQUIRE n.name IS UNIQUE;
// The counter a replica's held vectors are checked against (graph/retrieval/exact.py): one node.
CREATE CONSTRAINT vector_epoch_id IF NOT EXISTS FOR (n:VectorEpoch) REQUIRE n.id IS UNIQUE;
