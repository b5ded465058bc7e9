:param id => 'k1';
:param now => 0;
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k.id AS id, k.agent_id AS agent_id, k.revoked_at AS revoked_at,
       apoc.map.removeKeys(properties(k), ['hash', 'version', 'changed_at', 'changed_by']) AS key
