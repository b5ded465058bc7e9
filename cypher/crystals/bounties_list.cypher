// The bounties the viewer may see (the one visibility rule), newest first; open ones only unless $status says.
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param status => 'open';
:param limit => 100;
MATCH (b:Bounty)
WHERE ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  AND ($status IS NULL OR b.status = $status)
RETURN properties(b) AS bounty
ORDER BY b.valid_from DESC, b.id
LIMIT $limit
