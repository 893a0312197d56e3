"""Recipe snippets: each family's scenarios as one real, linted Python test module (``scaffold/snippets.py``)."""
