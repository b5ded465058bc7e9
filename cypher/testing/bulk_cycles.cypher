// Many completed Curator cycles at once, for the Prometheus scrape's cost test (tests/integration/test_prometheus.py).
:param n => 10;
:param at => 1770000000000;
UNWIND range(1, $n) AS i
CREATE (:CuratorCycle {id: 'bulk-cycle-' + toString(i), agent_id: 'bulk-' + toString(i % 50), seq: i,
                       started_at: $at + i, finished_at: $at + i, status: 'complete'})
