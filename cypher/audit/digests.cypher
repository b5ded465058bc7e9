// One owner's monthly digests (12.6; null: the service's own), newest month first: audit-archive.md.
:param agent_id => 'agent-a';
MATCH (d:AuditDigest)
WHERE d.agent_id = $agent_id OR ($agent_id IS NULL AND d.agent_id IS NULL)
RETURN d {.id, .agent_id, .month, .start, .end, .markdown, .mutations, .items, .reflections, .approved, .partial,
          .rejected, .critical, .decay, .archival, .verbs, .notable, .folded_at, .audit_id, .complete, .valid_from,
          .recorded_at} AS digest
ORDER BY d.start DESC
