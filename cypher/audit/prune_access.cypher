// Prunes the access log: deletes up to $batch access records whose read happened before $before
// (ms), in one transaction; the caller repeats until fewer than $batch are deleted (graph/scheduler.py).
// The range index on AccessRecord.at (access_at) finds them.
:param before => 1700000000000;
:param batch => 1000;
MATCH (a:AccessRecord)
WHERE a.at < $before
WITH a LIMIT $batch
DETACH DELETE a
RETURN count(*) AS deleted
