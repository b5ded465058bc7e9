// Which of these entity ids exist.
:param ids => ['1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2'];
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id
