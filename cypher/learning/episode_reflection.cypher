// Reflexion's verdict on one episode (its prediction beside the verified outcome, its snapshots compared, the
// invariants that did not hold and the safety_incident episode they recorded), if the viewer may see the
// episode: its own, shared within its clade, or public. The Delta operations it produced are those on entries
// the viewer may see too; and whether the episode is archived (its lifecycle fields), which the route answers as
// GET /episodes/{id} does.
:param id => 'ep-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (ep:Episode {id: $id})
WHERE $admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade)
OPTIONAL MATCH (r:Reflection)-[:REFLECTS_ON]->(ep)
RETURN ep {.lifecycle, .archived_at, .status} AS episode,
       r {.id, .episode_id, .metric, .expected, .actual, .tolerance, .deviation, .within_tolerance,
          .direction_correct, .verdict, .interpretation, .reasoner, .fallback, .state_deviations,
          .invariants_checked, .violations, .incident_id, .at} AS reflection,
       [(r)-[:PRODUCED]->(d:Delta)-[:ON]->(e:Entry)
        WHERE $admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade)
        | d {.entry_id, .op, .verdict, .reason}] AS deltas
