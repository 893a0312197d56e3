"""What the agent knows of PyTorch's API: a name resolved, its kind and docs, the public surface, aliases and types."""
