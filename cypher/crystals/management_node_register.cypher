// A management node's Ed25519 public key registered by the admin: valid from now until revoked.
:param props => {id: 'mn-0123456789abcdef', public_key: 'base64', name: 'hub', created_at: 1770000000000};
CREATE (m:ManagementNode)
SET m = $props
RETURN properties(m) AS node
