// The decision a feedback is about: the access record of a retrieval for a decision, the caller's
// own (or any, for an admin), locked with its agent for the rest of the transaction (two feedbacks
// on one agent's decisions update its weights one after the other), with the agent's learned
// weights if it has any.
:param decision_id => 'ac1';
:param viewer => 'golem-1';
:param admin => false;
MATCH (a:AccessRecord {id: $decision_id})
WHERE a.action = 'retrieval.for_decision' AND ($admin OR a.agent_id = $viewer)
OPTIONAL MATCH (ag:Agent {id: a.agent_id})
CALL apoc.lock.nodes([x IN [a, ag] WHERE x IS NOT NULL])
OPTIONAL MATCH (w:RetrievalWeights {agent_id: a.agent_id})
RETURN a.id AS id, a.agent_id AS agent_id, a.ids AS ids, a.mode AS mode, a.feedback AS feedback,
       a.ga_recency AS recency, a.ga_importance AS importance, a.ga_relevance AS relevance,
       w {.id, .recency, .importance, .relevance, .updates, .updated_at, .last_decision_id} AS weights
