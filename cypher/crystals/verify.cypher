// A knowledge crystal endorsed by a management node: verified, by that node's public key — only while its text is
// still the one whose hash was signed ($hash; a crystal stored before hashes were kept is matched by its text).
:param label => 'Entry';
:param id => 'en-1';
:param hash => 'ab12';
:param text => 'steps';
:param public_key => 'base64';
:param key_id => 'mn-0123456789abcdef';
:param now => 1770000000000;
CALL () {
  MATCH (c:Episode {id: $id}) WHERE $label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: $id}) WHERE $label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: $id}) WHERE $label = 'Entry' RETURN c
}
WITH DISTINCT c
WHERE c.content_hash = $hash OR (c.content_hash IS NULL AND coalesce(c.content, c.text) = $text)
SET c.is_verified = true, c.verified_by = $public_key, c.verified_key_id = $key_id, c.verified_at = $now
RETURN c.id AS id
