// The fencing check at the start of a write transaction made under leases (graph/db/fencing.py): each
// lease is write-locked (a take waits for this transaction to end), then the names still held by this
// holder with this token and not expired are returned; the caller aborts the transaction on any other.
:param fences => [{name: 'curator:golem-1', holder: 'host-a:4242:1f2e3d', token: 7}];
UNWIND $fences AS f
MATCH (l:Lease {name: f.name})
SET l.fenced_at = timestamp()
WITH f, l
WHERE l.holder = f.holder AND l.token = f.token AND l.expires_at > timestamp()
RETURN collect(f.name) AS held
