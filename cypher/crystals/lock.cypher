// A crystal its owner (or the admin) is about to change, locked for the transaction: its lifecycle, kinds
// and the fields a transition reads (ids are unique per label: the caller's own, one row each).
:param id => 'ep-1';
:param viewer => 'golem-1';
:param admin => false;
CALL () {
  MATCH (c:Episode {id: $id}) RETURN c
  UNION
  MATCH (c:Memory {id: $id}) RETURN c
  UNION
  MATCH (c:Entry {id: $id}) RETURN c
}
WITH DISTINCT c WHERE $admin OR c.agent_id = $viewer
SET c.lifecycle = coalesce(c.lifecycle, 'generated')
RETURN c {.id, .agent_id, .clade, .scope, .lifecycle, .lifecycle_at, .semantic_type, .status, .stable_skill_id,
          .deprecated, .sensitivity, .is_verified, .verified_by, .verified_key_id, .verified_at}
       AS crystal, [l IN labels(c) WHERE l IN ['Episode', 'Memory', 'Entry', 'Skill']] AS kinds
