// Every admission decision is kept with its factor scores, linked to the entry it wrote or merged into.
:param decisions => [];
UNWIND $decisions AS d
CREATE (a:AdmissionDecision)
SET a = d.props
WITH a, d
OPTIONAL MATCH (e:Entry {id: d.entry_id})
FOREACH (_ IN CASE WHEN e IS NULL THEN [] ELSE [1] END | MERGE (a)-[:DECIDED]->(e))
RETURN count(a) AS decisions
