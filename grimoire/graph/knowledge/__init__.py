"""The entry lifecycle: admission, the reasoner, quality, decay, the causal graph between entries."""
