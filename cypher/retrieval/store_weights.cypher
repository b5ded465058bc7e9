// An agent's Generative Agents weights after a Hedge step (graph/retrieval/feedback.py), created at
// the first, and the decision marked as learned from (a second feedback on it changes nothing).
:param agent_id => 'golem-1';
:param id => 'retrieval-weights:golem-1';
:param decision_id => 'ac1';
:param weights => {recency: 0.3, importance: 0.3, relevance: 0.4};
:param reward => 1.0;
:param now => 1700000000000;
MERGE (w:RetrievalWeights {agent_id: $agent_id})
ON CREATE SET w.id = $id, w.created_at = $now, w.updates = 0
SET w.recency = $weights.recency, w.importance = $weights.importance, w.relevance = $weights.relevance,
    w.updates = w.updates + 1, w.updated_at = $now, w.last_decision_id = $decision_id
WITH w
MATCH (a:AccessRecord {id: $decision_id})
SET a.feedback = $reward, a.feedback_at = $now
RETURN w.id AS id, w.updates AS updates
