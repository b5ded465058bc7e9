// One bounty, if the viewer may see it.
:param id => 'b-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (b:Bounty {id: $id})
WHERE $admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade)
RETURN properties(b) AS bounty
