// One causal link's evidence as the Curator's cross-reference moves it (tests only).
:param id => 'agent-a:e1.causes.e2';
MATCH ()-[c:CAUSES {id: $id}]->()
RETURN c.weight AS weight, c.evidence AS evidence, c.confidence AS confidence,
       c.confirmed_count AS confirmed_count, c.contradicted_count AS contradicted_count
