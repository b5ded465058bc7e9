// Test-only (tests/integration/test_leases.py): every unit of work the jobs under test did, in order.
MATCH (m:LeaseMark)
RETURN m.id AS id, m.job AS job, m.period AS period, m.agent AS agent, m.by AS by
ORDER BY m.at, m.id
