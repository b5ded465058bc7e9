// Index names by their internal id (the folder an index's files live in).
SHOW INDEXES YIELD id, name, type
RETURN id, name, type
