"""Knowledge crystals (../shared/spec/knowledge-crystals.md): the properties and behaviours every unit of knowledge —
episode, entry, memory — carries in the graph. This first part holds the rules, without the database: the
lifecycle's transitions, the importance formula, the hormonal system and sensitivity tagging."""
