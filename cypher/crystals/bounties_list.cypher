// The bounties the viewer may see (the one visibility rule), newest first, of the states in $statuses ('open';
// 'closed': its valid time ended on a match; both for all). A seek on the status and valid-time index
// (cypher/schema/range_indexes.cypher, bounty_status_valid_from), not a scan of every bounty: the valid_from
// predicate is there so the composite index applies (it needs one on each of its properties), and with one
// status the index gives the order, so the limit stops the read.
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param statuses => ['open'];
:param limit => 100;
MATCH (b:Bounty) USING INDEX b:Bounty(status, valid_from)
WHERE b.status IN $statuses AND b.valid_from IS NOT NULL
  AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
RETURN properties(b) AS bounty
ORDER BY b.valid_from DESC, b.id
LIMIT $limit
