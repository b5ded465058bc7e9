// Which of these episode ids exist, with owner, scope, clade and valid time.
:param ids => [];
UNWIND $ids AS id
MATCH (e:Episode {id: id})
RETURN e.id AS id, e.agent_id AS agent_id, e.scope AS scope, e.clade AS clade, e.valid_from AS valid_from
