// A verified outcome for a causal link: one more piece of evidence; the weight becomes the share
// of confirmations (a running mean), the confidence moves by the asymmetric vote steps, the version on by one.
:param id => 'agent-a:e1.causes.e2';
:param confirmed => true;
:param now => 1700000000000;
:param up => 0.1;
:param down => 0.15;
:param floor => 0.05;
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH ()-[c:CAUSES {id: $id}]->()
WHERE $admin OR c.agent_id = $viewer OR (c.scope = 'shared' AND c.clade = $clade)
SET c.updated_at = $now  // takes the write lock before the values are read
WITH c, coalesce(c.version, 1) AS was, {weight: c.weight, evidence: c.evidence, confidence: c.confidence,
         confirmed_count: c.confirmed_count, contradicted_count: c.contradicted_count} AS before
SET c.weight = (c.weight * c.evidence + CASE WHEN $confirmed THEN 1.0 ELSE 0.0 END) / (c.evidence + 1),
    c.evidence = c.evidence + 1,
    c.confidence = CASE WHEN $confirmed THEN CASE WHEN c.confidence + $up > 1.0 THEN 1.0 ELSE c.confidence + $up END
                        ELSE CASE WHEN c.confidence - $down < $floor THEN $floor ELSE c.confidence - $down END END,
    c.confirmed_count = coalesce(c.confirmed_count, 0) + CASE WHEN $confirmed THEN 1 ELSE 0 END,
    c.contradicted_count = coalesce(c.contradicted_count, 0) + CASE WHEN $confirmed THEN 0 ELSE 1 END,
    c.version = was + 1  // the link's version: its earlier state is the audit record's revert
RETURN c {.*} AS link, before, was
