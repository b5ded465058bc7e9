// How many episodes and entries (by category and status) the viewer may see.
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL () {
  MATCH (e:Episode)
  WHERE $admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade)
  RETURN count(e) AS episodes
}
CALL () {
  MATCH (e:Entry)
  WHERE $admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade)
  RETURN collect({category: e.category, status: e.status}) AS entries
}
RETURN episodes, entries
