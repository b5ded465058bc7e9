// Which of these entry ids exist already, with their status.
:param ids => [];
UNWIND $ids AS id
MATCH (e:Entry {id: id})
RETURN e.id AS id, e.status AS status
