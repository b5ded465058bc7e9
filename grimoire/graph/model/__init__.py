"""The knowledge model's vocabularies and the validated shapes of what agents write."""
