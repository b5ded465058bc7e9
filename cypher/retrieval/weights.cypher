// An agent's learned Generative Agents weights (graph/retrieval/weights.py), if it has any: no
// row until the first feedback on one of its decisions (graph/retrieval/feedback.py).
:param agent_id => 'golem-1';
MATCH (w:RetrievalWeights {agent_id: $agent_id})
RETURN w.id AS id, w.recency AS recency, w.importance AS importance, w.relevance AS relevance,
       w.updates AS updates, w.updated_at AS updated_at, w.last_decision_id AS last_decision_id
LIMIT 1
