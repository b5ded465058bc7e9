// A bounty the viewer may see, locked for the match's transaction: of two matches at once, the second finds it
// closed.
:param id => 'b-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (b:Bounty {id: $id})
WHERE $admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade)
SET b.status = b.status
RETURN properties(b) AS bounty
