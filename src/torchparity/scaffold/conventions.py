"""The backend's test-file conventions, read from the config's ``[scaffold]`` table.

Keys (all optional; the presets set them per backend):

* ``testcase_import``: the line that brings ``TestCase`` and ``run_tests``;
* ``copyright``: the header, ``{year}`` replaced by the current year;
* ``coverage_table``: whether the docstring carries the coverage-dimension table;
* ``device_variable``: the module-level name the tests use for the device;
* ``test_dir``: where a new test file goes (relative to the repo or current folder).
"""

from __future__ import annotations

import ast
import datetime
import re
from dataclasses import dataclass
from typing import Any

from .. import pyast
from ..config import Config
from ..errors import UsageError

DEFAULT_TESTCASE_IMPORT = "from torch.testing._internal.common_utils import TestCase, run_tests"
DEFAULT_DEVICE_VARIABLE = "DEVICE"
DEFAULT_TEST_DIR = "test"


@dataclass(frozen=True)
class Conventions:
    testcase_import: str
    testcase_module: str
    copyright: str
    coverage_table: bool
    device_variable: str
    test_dir: str
    backend_module: str

    def header(self, year: int | None = None) -> str:
        """The copyright header for a new file ("" when the config has none)."""
        text = self.copyright.strip("\n")
        if not text.strip():
            return ""
        return text.replace("{year}", str(year or datetime.date.today().year)) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "testcase_import": self.testcase_import,
            "copyright": bool(self.copyright.strip()),
            "coverage_table": self.coverage_table,
            "device_variable": self.device_variable,
            "test_dir": self.test_dir,
        }


def _testcase_module(line: str, source: str) -> str:
    try:
        node = pyast.parse_module(line).body[0]
    except (SyntaxError, IndexError):
        node = None
    if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
        raise UsageError(
            f"[scaffold] testcase_import in {source} must be 'from MODULE import TestCase, run_tests', "
            f"got {line!r}; fix it in the config"
        )
    names = {a.asname or a.name for a in node.names}
    missing = sorted({"TestCase", "run_tests"} - names)
    if missing:
        raise UsageError(
            f"[scaffold] testcase_import in {source} does not import {', '.join(missing)}: {line!r}; "
            "write 'from MODULE import TestCase, run_tests'"
        )
    return node.module


def conventions_from(config: Config) -> Conventions:
    """The conventions of ``config`` (missing keys take the embedded default's values)."""
    table = config.scaffold
    line = str(table.get("testcase_import") or DEFAULT_TESTCASE_IMPORT).strip()
    module = _testcase_module(line, config.source)
    var = str(table.get("device_variable") or DEFAULT_DEVICE_VARIABLE)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        raise UsageError(
            f"[scaffold] device_variable in {config.source} is not a Python name: {var!r}"
        )
    return Conventions(
        testcase_import=line,
        testcase_module=module,
        copyright=str(table.get("copyright") or ""),
        coverage_table=bool(table.get("coverage_table", False)),
        device_variable=var,
        test_dir=str(table.get("test_dir") or DEFAULT_TEST_DIR),
        backend_module=config.backend_module,
    )


def device_string(device_type: str) -> str:
    """``cpu`` for the CPU, ``npu:0`` for any other device type: the device the tests use."""
    return "cpu" if device_type in ("", "cpu") else f"{device_type}:0"


def device_expression(device_type: str) -> str:
    return f'torch.device("{device_string(device_type)}")'
