// One agent's item's earlier states, newest first: the version nodes kept for it (graph/audit/versions.py).
// Versions written before states were kept as JSON (an entry's EntryVersion, a core block's
// CoreBlockVersion) have their fields instead. $agent_id null: any owner's (the admin).
:param item_id => 'mem-1';
:param agent_id => 'agent-a';
CALL () {
  MATCH (v:Version {item_id: $item_id}) RETURN v
  UNION
  MATCH (v:EntryVersion {entry_id: $item_id}) RETURN v
  UNION
  MATCH (v:CoreBlockVersion {block_id: $item_id}) RETURN v
}
WITH v WHERE $agent_id IS NULL OR v.agent_id = $agent_id
RETURN v {.id, .item_id, .item_label, .labels, .state, .agent_id, .valid_from, .valid_until, .recorded_at,
          .recorded_until, .written_by, .replaced_by, .reason, .audit_id, .entry_id, .revision, .content,
          .market_regime, .tags, .confidence, .scope, .clade, .block_id, .block, .version, .tokens, .pinned,
          n: coalesce(v.n, v.revision, v.version)} AS version
ORDER BY version.n DESC
