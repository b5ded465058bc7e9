// Every version of a reserve's price-oracle facts: when each oracle was valid (blocks) and when
// Grimoire believed it (recorded_at to expired_at), with where the valid time came from.
:param reserve => 'reserve:aavev3ethereum dai';
MATCH (r:Reserve {id: $reserve})-[f:ORACLE_DEPENDENCY]->(o:Entity)
RETURN o.id AS oracle, o.name AS name, f.valid_from AS valid_from, f.valid_to AS valid_to,
       datetime({epochMillis: f.recorded_at}) AS recorded_at,
       CASE WHEN f.expired_at IS NULL THEN null ELSE datetime({epochMillis: f.expired_at}) END AS believed_until,
       f.approximate AS approximate, f.valid_from_source AS valid_from_source
ORDER BY f.recorded_at, f.valid_from
