// A workspace as it was given: what went in (JSON: category, id, ref, tokens, disclosure, source, text), the
// situation and policy revision it was built for and the reasons; the staged mutation in line counts one more offer.
:param assembly => {id: 'ctx-1', agent_id: 'golem-1', at: 1700000000000, injected: '[]'};
:param mutation_id => null;
MERGE (a:ContextAssembly {id: $assembly.id})
  ON CREATE SET a += $assembly
WITH a
OPTIONAL MATCH (m:ContextMutation {id: $mutation_id})
SET m.offered = coalesce(m.offered, 0) + 1
RETURN a.id AS id
