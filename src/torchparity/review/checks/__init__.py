"""One module per claim kind: each turns claims into verdicts against a ``Facts`` (the repo and the inputs)."""
