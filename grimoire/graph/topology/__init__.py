"""The bi-temporal DeFi topology: entities, facts with valid and recorded time, and traversal."""
