// One sample per agent, day and metric (id agent_id:day:name): recording a day again overwrites its
// value, so the daily job may run any number of times.
:param samples => [{id: 'golem-1:2026-01-01:grimoire_size', agent_id: 'golem-1', day: '2026-01-01', name: 'grimoire_size', value: 3.0, at: 1767225600000}];
UNWIND $samples AS s
MERGE (m:MetricSample {id: s.id})
SET m.agent_id = s.agent_id, m.day = s.day, m.name = s.name, m.value = s.value, m.at = s.at,
    m.version = coalesce(m.version, 0) + 1  // the audit record names the day's value before and after
RETURN count(m) AS recorded, collect({id: m.id, version: m.version}) AS versions
