// Test-only (tests/integration/test_leases.py): the holder's time runs out now, as after a pause longer than the
// lease (a process stopped, a long garbage collection), without the test waiting for it.
:param name => 'j';
MATCH (l:Lease {name: $name})
SET l.expires_at = timestamp() - 1
RETURN l.holder AS holder
