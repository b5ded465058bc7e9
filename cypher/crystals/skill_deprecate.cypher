// A skill deprecated in favour of another (deprecated_by: the replacement's stable skill id), at its newest
// version.
:param id => 'en-1';
:param replaced_by => 'skill:en-9';
:param now => 1770000000000;
MATCH (s:Skill {id: $id})
SET s.deprecated = true, s.deprecated_by = $replaced_by, s.deprecated_at = $now
RETURN s.id AS id
