// A month's digest (12.6), written once before its records are deleted: `complete` stays false until the last
// batch is gone, so a job stopped half-way resumes the deletion instead of summarising what is left.
:param digest => {id: 'agent-a:2026-01', agent_id: 'agent-a', month: '2026-01', start: 1767225600000, end: 1769904000000, markdown: '# Audit Digest — January 2026\n', mutations: 0, items: 0, reflections: 0, approved: 0, partial: 0, rejected: 0, critical: 0, decay: 0, archival: 0, notable: [], folded_at: 0, audit_id: 'audit-1'};
MERGE (d:AuditDigest {id: $digest.id})
ON CREATE SET d += $digest, d.complete = false, d.valid_from = $digest.start, d.recorded_at = $digest.folded_at
RETURN d.id AS id, d.complete AS complete, d.folded_at = $digest.folded_at AS written
