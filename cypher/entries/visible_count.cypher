// How many entries a viewer can see that admission compares with: decides how the Admission Gate finds
// a batch's neighbours (entries/neighbours per candidate, or entries/visible_vectors once).
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (e:Entry)
WHERE e.status IN ['active', 'candidate']
  AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN count(e) AS n
