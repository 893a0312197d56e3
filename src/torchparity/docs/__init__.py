"""Native API support pages: parse (three formats), check an API, lint, add an entry, matrix.

Stands on the ground: imports only the standard library, ``torchparity.errors`` and ``torchparity.fsutil``.
Products (code, name, aliases) come in as data; the CLI reads them from the config.
"""

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

__all__ = [
    "FORMATS", "LIST", "RULES", "TABLE", "YESNO", "AddResult", "Change", "CheckResult", "DocsTree",
    "Entry", "Finding", "Matrix", "Page", "Product", "ProductStatus", "Products", "Section",
    "VersionCheck", "add_entry", "build_matrix", "check_api", "check_in_tree", "docs_short",
    "folder_name", "lint_page", "lint_paths", "load_baseline", "normalize_version", "parse_page",
    "parse_statuses", "read_page", "split_baselined", "version_of_folder", "write_baseline",
]
