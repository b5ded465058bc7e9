// Range indexes for the time axes (valid time, recorded time) and ownership (namespace).
CREATE RANGE INDEX episode_agent IF NOT EXISTS FOR (n:Episode) ON (n.agent_id);
CREATE RANGE INDEX episode_valid_from IF NOT EXISTS FOR (n:Episode) ON (n.valid_from);
CREATE RANGE INDEX episode_recorded_at IF NOT EXISTS FOR (n:Episode) ON (n.recorded_at);
CREATE RANGE INDEX episode_block IF NOT EXISTS FOR (n:Episode) ON (n.block);
CREATE RANGE INDEX entry_agent IF NOT EXISTS FOR (n:Entry) ON (n.agent_id);
CREATE RANGE INDEX entry_category_status IF NOT EXISTS FOR (n:Entry) ON (n.category, n.status);
CREATE RANGE INDEX entry_valid_from IF NOT EXISTS FOR (n:Entry) ON (n.valid_from);
CREATE RANGE INDEX entry_recorded_at IF NOT EXISTS FOR (n:Entry) ON (n.recorded_at);
CREATE RANGE INDEX entity_kind IF NOT EXISTS FOR (n:Entity) ON (n.kind);
CREATE RANGE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name);
CREATE RANGE INDEX audit_at IF NOT EXISTS FOR (n:AuditRecord) ON (n.at);
CREATE RANGE INDEX audit_agent IF NOT EXISTS FOR (n:AuditRecord) ON (n.agent_id);
