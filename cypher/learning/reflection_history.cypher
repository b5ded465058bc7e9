// The agent's earlier comparisons of one metric for one tool and pair, oldest first: Reflexion looks
// for a systematic miss (a calibration pattern) across them.
:param agent_id => 'golem-1';
:param metric => 'return_bps';
:param tool => null;
:param token_pair => null;
:param before => 9999999999999;
:param limit => 10;
MATCH (r:Reflection {agent_id: $agent_id, metric: $metric})
WHERE coalesce(r.tool, '') = coalesce($tool, '') AND coalesce(r.token_pair, '') = coalesce($token_pair, '')
  AND r.valid_from < $before
WITH r ORDER BY r.valid_from DESC, r.id DESC LIMIT $limit
RETURN r.expected AS expected, r.actual AS actual
ORDER BY r.valid_from, r.id
