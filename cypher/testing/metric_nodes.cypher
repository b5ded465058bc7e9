// The nodes the cognitive metrics read, written as given (tests/integration/test_metrics.py): each
// list's maps become one node's properties; operations are linked to their cycle and entry.
:param decisions => [{id: 'd1', agent_id: 'golem-1', at: 0, outcome: 'admitted'}];
:param entries => [];
:param episodes => [];
:param access => [];
:param reflections => [];
:param cycles => [];
:param operations => [];
:param samples => [];
:param mutations => [];
:param assemblies => [];
:param context_decisions => [];
UNWIND $decisions AS d CREATE (n:AdmissionDecision) SET n = d;
UNWIND $entries AS e CREATE (n:Entry) SET n = e;
UNWIND $episodes AS e CREATE (n:Episode) SET n = e;
UNWIND $access AS a CREATE (n:AccessRecord) SET n = a;
UNWIND $reflections AS r CREATE (n:Reflection) SET n = r;
UNWIND $cycles AS c CREATE (n:CuratorCycle) SET n = c;
UNWIND $operations AS o
MATCH (c:CuratorCycle {id: o.cycle_id}), (e:Entry {id: o.entry_id})
CREATE (n:CuratorOperation)-[:IN_CYCLE]->(c)
SET n = o
CREATE (n)-[:ON]->(e);
UNWIND $samples AS s CREATE (n:MetricSample) SET n = s;
UNWIND $mutations AS m CREATE (n:ContextMutation) SET n = m;
UNWIND $assemblies AS a CREATE (n:ContextAssembly) SET n = a;
UNWIND $context_decisions AS d CREATE (n:ContextDecision) SET n = d
