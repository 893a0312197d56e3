"""Recipes as data: what scaffold writes for particular APIs that no general rule derives.

Each module here holds data only: dicts and tuples of literals, keyed by an API's name or leaf,
whose values are the source lines (with ``{placeholders}`` the family fills in) or the small
facts a family needs for that API. The code that reads them lives with its family; no module
here holds a function, a class, a loop or an ``if`` (``benchmarks/bench_scaffold_size.py``
checks it, and lists the names these tables hold apart from the rules in code).
"""
