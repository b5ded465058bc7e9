// Which of $ids name entries the viewer may see; the rest (unknown or not visible) answer 404 alike.
:param ids => ['entry-1'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
UNWIND $ids AS id
MATCH (e:Entry {id: id})
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN e.id AS id
