// Events (graph/events/), written in the transaction of the mutation they report. `payload` is a
// JSON string; `at` is when the event happened, `recorded_at` when it was stored.
:param now => 1700000000000;
:param rows => [{id: '0190a8e2-0000-7000-8000-000000000001', type: 'GrimoireWrite', agent_id: 'golem-1', clade: 'clade-a', at: 1700000000000, payload: '{"entry_type": "entry", "count": 1}'}];
UNWIND $rows AS row
CREATE (e:Event)
SET e = row, e.recorded_at = $now
