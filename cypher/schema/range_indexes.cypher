// Range indexes for the time axes (valid time, recorded time) and ownership (namespace).
CREATE RANGE INDEX episode_agent IF NOT EXISTS FOR (n:Episode) ON (n.agent_id);
// Public items (scope) and a clade's shared items (scope, clade), so that reads gather what a
// caller may see without scanning everyone's items (cypher/retrieval/vector_exact.cypher). A
// composite index is used only when every property of it is in the predicate: hence both.
CREATE RANGE INDEX episode_scope IF NOT EXISTS FOR (n:Episode) ON (n.scope);
CREATE RANGE INDEX episode_scope_clade IF NOT EXISTS FOR (n:Episode) ON (n.scope, n.clade);
CREATE RANGE INDEX entry_scope IF NOT EXISTS FOR (n:Entry) ON (n.scope);
CREATE RANGE INDEX entry_scope_clade IF NOT EXISTS FOR (n:Entry) ON (n.scope, n.clade);
CREATE RANGE INDEX episode_valid_from IF NOT EXISTS FOR (n:Episode) ON (n.valid_from);
CREATE RANGE INDEX episode_recorded_at IF NOT EXISTS FOR (n:Episode) ON (n.recorded_at);
CREATE RANGE INDEX episode_block IF NOT EXISTS FOR (n:Episode) ON (n.block);
// Episodes whose derived work is pending (graph/enrichment.py): the enrichment job seeks them.
CREATE RANGE INDEX episode_enrichment IF NOT EXISTS FOR (n:Episode) ON (n.enrichment);
CREATE RANGE INDEX entry_agent IF NOT EXISTS FOR (n:Entry) ON (n.agent_id);
CREATE RANGE INDEX entry_category_status IF NOT EXISTS FOR (n:Entry) ON (n.category, n.status);
CREATE RANGE INDEX entry_valid_from IF NOT EXISTS FOR (n:Entry) ON (n.valid_from);
CREATE RANGE INDEX entry_recorded_at IF NOT EXISTS FOR (n:Entry) ON (n.recorded_at);
// A crystal's content hash (knowledge-crystals.md, line 29): admission and consolidation find exact twins by it
// before any cosine is compared (cypher/entries/hash_twins.cypher, cypher/crystals/hash_twins_*.cypher).
CREATE RANGE INDEX entry_content_hash IF NOT EXISTS FOR (n:Entry) ON (n.content_hash);
CREATE RANGE INDEX episode_content_hash IF NOT EXISTS FOR (n:Episode) ON (n.content_hash);
CREATE RANGE INDEX entity_kind IF NOT EXISTS FOR (n:Entity) ON (n.kind);
CREATE RANGE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name);
CREATE RANGE INDEX audit_at IF NOT EXISTS FOR (n:AuditRecord) ON (n.at);
CREATE RANGE INDEX audit_agent IF NOT EXISTS FOR (n:AuditRecord) ON (n.agent_id);
// An agent's trail newest first (cypher/audit/trail.cypher): a seek on the agent, ordered by time, cut at the limit.
CREATE RANGE INDEX audit_agent_at IF NOT EXISTS FOR (n:AuditRecord) ON (n.agent_id, n.at);
CREATE RANGE INDEX audit_digest_agent IF NOT EXISTS FOR (n:AuditDigest) ON (n.agent_id);
// The access log (graph/audit/access.py): by time, to read or prune a period; by agent.
CREATE RANGE INDEX access_at IF NOT EXISTS FOR (n:AccessRecord) ON (n.at);
CREATE RANGE INDEX access_agent IF NOT EXISTS FOR (n:AccessRecord) ON (n.agent_id);
CREATE RANGE INDEX entity_address IF NOT EXISTS FOR (n:Entity) ON (n.address);
CREATE RANGE INDEX entity_symbol IF NOT EXISTS FOR (n:Entity) ON (n.symbol);
// A fact's versions share its fact_id; both time axes are indexed for temporal scans.
CREATE RANGE INDEX fact_deployed_by_fact_id IF NOT EXISTS FOR ()-[r:DEPLOYED_BY]-() ON (r.fact_id);
CREATE RANGE INDEX fact_deployed_by_valid IF NOT EXISTS FOR ()-[r:DEPLOYED_BY]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_deployed_by_recorded IF NOT EXISTS FOR ()-[r:DEPLOYED_BY]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_token_flow_fact_id IF NOT EXISTS FOR ()-[r:TOKEN_FLOW]-() ON (r.fact_id);
CREATE RANGE INDEX fact_token_flow_valid IF NOT EXISTS FOR ()-[r:TOKEN_FLOW]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_token_flow_recorded IF NOT EXISTS FOR ()-[r:TOKEN_FLOW]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_oracle_dependency_fact_id IF NOT EXISTS FOR ()-[r:ORACLE_DEPENDENCY]-() ON (r.fact_id);
CREATE RANGE INDEX fact_oracle_dependency_valid IF NOT EXISTS FOR ()-[r:ORACLE_DEPENDENCY]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_oracle_dependency_recorded IF NOT EXISTS FOR ()-[r:ORACLE_DEPENDENCY]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_price_correlation_fact_id IF NOT EXISTS FOR ()-[r:PRICE_CORRELATION]-() ON (r.fact_id);
CREATE RANGE INDEX fact_price_correlation_valid IF NOT EXISTS FOR ()-[r:PRICE_CORRELATION]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_price_correlation_recorded IF NOT EXISTS FOR ()-[r:PRICE_CORRELATION]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_governance_control_fact_id IF NOT EXISTS FOR ()-[r:GOVERNANCE_CONTROL]-() ON (r.fact_id);
CREATE RANGE INDEX fact_governance_control_valid IF NOT EXISTS FOR ()-[r:GOVERNANCE_CONTROL]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_governance_control_recorded IF NOT EXISTS FOR ()-[r:GOVERNANCE_CONTROL]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_collateral_backing_fact_id IF NOT EXISTS FOR ()-[r:COLLATERAL_BACKING]-() ON (r.fact_id);
CREATE RANGE INDEX fact_collateral_backing_valid IF NOT EXISTS FOR ()-[r:COLLATERAL_BACKING]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_collateral_backing_recorded IF NOT EXISTS FOR ()-[r:COLLATERAL_BACKING]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_has_position_fact_id IF NOT EXISTS FOR ()-[r:HAS_POSITION]-() ON (r.fact_id);
CREATE RANGE INDEX fact_has_position_valid IF NOT EXISTS FOR ()-[r:HAS_POSITION]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_has_position_recorded IF NOT EXISTS FOR ()-[r:HAS_POSITION]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_is_router_for_fact_id IF NOT EXISTS FOR ()-[r:IS_ROUTER_FOR]-() ON (r.fact_id);
CREATE RANGE INDEX fact_is_router_for_valid IF NOT EXISTS FOR ()-[r:IS_ROUTER_FOR]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_is_router_for_recorded IF NOT EXISTS FOR ()-[r:IS_ROUTER_FOR]-() ON (r.recorded_at);
CREATE RANGE INDEX fact_custom_fact_id IF NOT EXISTS FOR ()-[r:CUSTOM]-() ON (r.fact_id);
CREATE RANGE INDEX fact_custom_valid IF NOT EXISTS FOR ()-[r:CUSTOM]-() ON (r.valid_from, r.valid_to);
CREATE RANGE INDEX fact_custom_recorded IF NOT EXISTS FOR ()-[r:CUSTOM]-() ON (r.recorded_at);
CREATE RANGE INDEX causes_agent IF NOT EXISTS FOR ()-[r:CAUSES]-() ON (r.agent_id);
// Events (graph/events/): by id (time-ordered: a listing's pages and a stream's polls seek past an
// id), and by owner and time.
CREATE RANGE INDEX event_id IF NOT EXISTS FOR (n:Event) ON (n.id);
CREATE RANGE INDEX event_agent_at IF NOT EXISTS FOR (n:Event) ON (n.agent_id, n.at);
// The learning loop: a cycle's operations, an agent's cycles, reflections and lessons, and the
// unconsolidated episodes a cycle distils.
CREATE RANGE INDEX curator_operation_cycle IF NOT EXISTS FOR (n:CuratorOperation) ON (n.cycle_id);
CREATE RANGE INDEX curator_operation_agent IF NOT EXISTS FOR (n:CuratorOperation) ON (n.agent_id);
CREATE RANGE INDEX curator_cycle_agent IF NOT EXISTS FOR (n:CuratorCycle) ON (n.agent_id, n.seq);
// The newest finished cycle of any agent: the Prometheus endpoint's last Curator run (cypher/prometheus/last_runs).
CREATE RANGE INDEX curator_cycle_finished IF NOT EXISTS FOR (n:CuratorCycle) ON (n.finished_at);
CREATE RANGE INDEX reflection_agent IF NOT EXISTS FOR (n:Reflection) ON (n.agent_id, n.metric);
CREATE RANGE INDEX reflection_series IF NOT EXISTS FOR (n:Reflection) ON (n.agent_id, n.series, n.valid_from);
CREATE RANGE INDEX delta_pending IF NOT EXISTS FOR (n:Delta) ON (n.agent_id, n.applied_in);
CREATE RANGE INDEX entry_lesson_key IF NOT EXISTS FOR (n:Entry) ON (n.lesson_key);
CREATE RANGE INDEX episode_decision IF NOT EXISTS FOR (n:Episode) ON (n.decision_id);
CREATE RANGE INDEX admission_decision_agent IF NOT EXISTS FOR (n:AdmissionDecision) ON (n.agent_id);
CREATE RANGE INDEX metric_sample_agent IF NOT EXISTS FOR (n:MetricSample) ON (n.agent_id, n.name);
// neomodel's indexes of the control-plane nodes (index_<label>_<property>, as install_labels names them).
CREATE RANGE INDEX index_CoreBlock_agent_id IF NOT EXISTS FOR (n:CoreBlock) ON (n.agent_id);
CREATE RANGE INDEX index_CoreBlockVersion_block_id IF NOT EXISTS FOR (n:CoreBlockVersion) ON (n.block_id);
CREATE RANGE INDEX index_WorkspaceFile_agent_id IF NOT EXISTS FOR (n:WorkspaceFile) ON (n.agent_id);
CREATE RANGE INDEX index_MemoryReflection_agent_id IF NOT EXISTS FOR (n:MemoryReflection) ON (n.agent_id);
CREATE RANGE INDEX index_MemoryProposal_agent_id IF NOT EXISTS FOR (n:MemoryProposal) ON (n.agent_id);
CREATE RANGE INDEX index_MemoryProposal_from_agent IF NOT EXISTS FOR (n:MemoryProposal) ON (n.from_agent);
CREATE RANGE INDEX index_Alert_agent_id IF NOT EXISTS FOR (n:Alert) ON (n.agent_id);
CREATE RANGE INDEX index_Alert_item IF NOT EXISTS FOR (n:Alert) ON (n.item);
CREATE RANGE INDEX index_ContextPolicy_agent_id IF NOT EXISTS FOR (n:ContextPolicy) ON (n.agent_id);
CREATE RANGE INDEX index_ContextPolicyRevision_agent_id IF NOT EXISTS FOR (n:ContextPolicyRevision) ON (n.agent_id);
CREATE RANGE INDEX index_ConsoleSession_key_id IF NOT EXISTS FOR (n:ConsoleSession) ON (n.key_id);
CREATE RANGE INDEX index_ConsoleSession_expires_at IF NOT EXISTS FOR (n:ConsoleSession) ON (n.expires_at);
CREATE RANGE INDEX index_ContextMutation_agent_id IF NOT EXISTS FOR (n:ContextMutation) ON (n.agent_id);
// The Context Governor's records: an agent's workspaces and decisions by time (its last one; Loop 2's window),
// and its Beta beliefs by regime.
CREATE RANGE INDEX context_assembly_agent_at IF NOT EXISTS FOR (n:ContextAssembly) ON (n.agent_id, n.at);
CREATE RANGE INDEX context_assembly_at IF NOT EXISTS FOR (n:ContextAssembly) ON (n.at);
CREATE RANGE INDEX context_decision_agent_at IF NOT EXISTS FOR (n:ContextDecision) ON (n.agent_id, n.at);
CREATE RANGE INDEX context_decision_assembly IF NOT EXISTS FOR (n:ContextDecision) ON (n.assembly_id);
CREATE RANGE INDEX context_belief_agent IF NOT EXISTS FOR (n:ContextBelief) ON (n.agent_id, n.regime);
// Agent memories: an agent's, by session (the thread), by day (the episodic log), by store.
CREATE RANGE INDEX memory_session IF NOT EXISTS FOR (n:Memory) ON (n.agent_id, n.session_id);
CREATE RANGE INDEX memory_day IF NOT EXISTS FOR (n:Memory) ON (n.agent_id, n.day);
CREATE RANGE INDEX memory_store IF NOT EXISTS FOR (n:Memory) ON (n.agent_id, n.store);
CREATE RANGE INDEX memory_recorded IF NOT EXISTS FOR (n:Memory) ON (n.agent_id, n.recorded_at);
// An item's version chain (cypher/audit/versions.cypher) and an entry's versions written before Version.
CREATE RANGE INDEX version_item IF NOT EXISTS FOR (n:Version) ON (n.item_id);
CREATE RANGE INDEX entry_version_entry IF NOT EXISTS FOR (n:EntryVersion) ON (n.entry_id);
// Knowledge crystals (graph/crystals/): lifecycle sweeps (the TTL job, the purge, the consolidation engine's
// pages), expired crystals by id and age, skills by their stable id.
CREATE RANGE INDEX episode_lifecycle IF NOT EXISTS FOR (n:Episode) ON (n.lifecycle, n.lifecycle_at);
CREATE RANGE INDEX entry_lifecycle IF NOT EXISTS FOR (n:Entry) ON (n.lifecycle, n.lifecycle_at);
CREATE RANGE INDEX episode_expires_at IF NOT EXISTS FOR (n:Episode) ON (n.expires_at);
CREATE RANGE INDEX entry_expires_at IF NOT EXISTS FOR (n:Entry) ON (n.expires_at);
CREATE RANGE INDEX expired_id IF NOT EXISTS FOR (n:Expired) ON (n.id);
CREATE RANGE INDEX expired_at IF NOT EXISTS FOR (n:Expired) ON (n.lifecycle_at);
CREATE RANGE INDEX skill_stable_id IF NOT EXISTS FOR (n:Skill) ON (n.stable_skill_id);
// The bounty board's list (cypher/crystals/bounties_list.cypher): a seek on the state asked for (open, closed or
// both), newest first.
CREATE RANGE INDEX bounty_status_valid_from IF NOT EXISTS FOR (n:Bounty) ON (n.status, n.valid_from);
CREATE RANGE INDEX strategy_counter_agent IF NOT EXISTS FOR (n:StrategyCounter) ON (n.agent_id);
