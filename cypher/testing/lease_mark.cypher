// Test-only (tests/integration/test_leases.py): one unit of a job's work done, written through Database (so
// fenced when it runs under a lease): which job, period and agent, and which replica did it.
:param id => 'a:170000001:-';
:param job => 'a';
:param period => 170000001;
:param agent => null;
:param by => 'replica-0';
CREATE (m:LeaseMark {id: $id, job: $job, period: $period, agent: $agent, by: $by, at: timestamp()})
RETURN m.id AS id
