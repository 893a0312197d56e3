"""Native API support pages: parse (three formats), check an API, lint, add an entry, matrix, propose.

Stands on the ground: imports only the standard library, ``torchparity.errors``, ``torchparity.fsutil``
and the records; ``docs propose``'s modules (``propose_*.py``) also read the store and call git.
Products (code, name, aliases) come in as data; the CLI reads them from the config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .add import AddResult, Change, add_entry, parse_statuses
    from .check import CheckResult, VersionCheck, check_api, check_in_tree
    from .lint import (
        RULES,
        Finding,
        lint_page,
        lint_paths,
        load_baseline,
        split_baselined,
        write_baseline,
    )
    from .matrix import Matrix, build_matrix
    from .model import (
        FORMATS,
        LIST,
        TABLE,
        YESNO,
        Entry,
        Page,
        Product,
        Products,
        ProductStatus,
        Section,
    )
    from .parse import parse_page, read_page
    from .tree import DocsTree
    from .versions import docs_short, folder_name, normalize_version, version_of_folder

#: where each name lives (imported on first use: a verb that reads one page pays for no other part)
_FROM = {
    "AddResult": "add",
    "Change": "add",
    "CheckResult": "check",
    "DocsTree": "tree",
    "Entry": "model",
    "FORMATS": "model",
    "Finding": "lint",
    "LIST": "model",
    "Matrix": "matrix",
    "Page": "model",
    "Product": "model",
    "ProductStatus": "model",
    "Products": "model",
    "RULES": "lint",
    "Section": "model",
    "TABLE": "model",
    "VersionCheck": "check",
    "YESNO": "model",
    "add_entry": "add",
    "build_matrix": "matrix",
    "check_api": "check",
    "check_in_tree": "check",
    "docs_short": "versions",
    "folder_name": "versions",
    "lint_page": "lint",
    "lint_paths": "lint",
    "load_baseline": "lint",
    "normalize_version": "versions",
    "parse_page": "parse",
    "parse_statuses": "add",
    "read_page": "parse",
    "split_baselined": "lint",
    "version_of_folder": "versions",
    "write_baseline": "lint",
}


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "FORMATS",
    "LIST",
    "RULES",
    "TABLE",
    "YESNO",
    "AddResult",
    "Change",
    "CheckResult",
    "DocsTree",
    "Entry",
    "Finding",
    "Matrix",
    "Page",
    "Product",
    "ProductStatus",
    "Products",
    "Section",
    "VersionCheck",
    "add_entry",
    "build_matrix",
    "check_api",
    "check_in_tree",
    "docs_short",
    "folder_name",
    "lint_page",
    "lint_paths",
    "load_baseline",
    "normalize_version",
    "parse_page",
    "parse_statuses",
    "read_page",
    "split_baselined",
    "version_of_folder",
    "write_baseline",
]
