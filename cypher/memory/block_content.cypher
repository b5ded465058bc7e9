// One core block's text (the active context a "what's the latest" recall shows).
:param id => 'agent-a:core:context';
MATCH (b:CoreBlock {id: $id})
RETURN b.content AS content
