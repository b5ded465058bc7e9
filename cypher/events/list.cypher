// Events the viewer may see (its own; the admin sees all), by type, agent and time, oldest first,
// after an event id ('' for the first page): the ids are time-ordered UUIDv7s, so `e.id > $after_id`
// is a range seek on event_id and the order is the index's.
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param types => null;
:param agent_id => null;
:param since => null;
:param until => null;
:param after_id => '';
:param limit => 100;
MATCH (e:Event)
WHERE e.id > $after_id
  AND ($admin OR e.agent_id = $viewer)
  AND ($types IS NULL OR e.type IN $types)
  AND ($agent_id IS NULL OR e.agent_id = $agent_id)
  AND ($since IS NULL OR e.at >= $since)
  AND ($until IS NULL OR e.at < $until)
RETURN e.id AS id, e.type AS type, e.agent_id AS agent_id, e.clade AS clade, e.at AS at,
       e.recorded_at AS recorded_at, e.payload AS payload
ORDER BY e.id
LIMIT $limit
