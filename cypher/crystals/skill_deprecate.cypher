// A skill deprecated in favour of another (deprecated_by: the replacement's stable skill id), at its newest
// version.
:param stable_id => 'skill-0192';
:param version => 1;
:param replaced_by => 'skill:en-9';
:param now => 1770000000000;
MATCH (s:Skill {stable_skill_id: $stable_id}) WHERE s.skill_version = $version
SET s.deprecated = true, s.deprecated_by = $replaced_by, s.deprecated_at = $now
RETURN s.id AS id
