// One crystal (an episode, a memory or an entry) by id, if the viewer may see it: its properties without
// its embeddings, its labels, and how many provenance links lead from and to it.
:param id => 'ep-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL () {
  MATCH (c:Episode {id: $id}) RETURN c
  UNION
  MATCH (c:Memory {id: $id}) RETURN c
  UNION
  MATCH (c:Entry {id: $id}) RETURN c
}
WITH DISTINCT c WHERE $admin OR c.agent_id = $viewer OR c.scope = 'public' OR (c.scope = 'shared' AND c.clade = $clade)
RETURN apoc.map.removeKeys(properties(c), ['embedding', 'embedding_procedural', 'embedding_causal',
                                           'embedding_entity']) AS crystal,
       [l IN labels(c) WHERE l IN ['Episode', 'Memory', 'Entry', 'Skill']] AS kinds
