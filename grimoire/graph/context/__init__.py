"""The Context Governor (../shared/spec/context-governor.md): the per-agent ContextPolicy with its revisions
(policy.py), its defaults (categories.py), override composition (overrides.py), affect modulation (affect.py),
progressive disclosure and observation masking (disclosure.py) and lost-in-the-middle ordering (ordering.py)."""
