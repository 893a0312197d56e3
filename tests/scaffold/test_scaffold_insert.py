"""Adding methods to an existing test file (``--into``): every other byte kept; clashes and odd files
refused; the file's own device variable found; the patch of the change applies to the original file."""

from __future__ import annotations

import subprocess

import libcst as cst
import pytest

from tests.conftest import RUFF_BIN
from tests.scaffold.scaffold_fixtures import EXISTING, TWO_SPACE
from torchparity.errors import UsageError
from torchparity.records.checklist import FAIL, PASS
from torchparity.scaffold import Method, check_only_insertions, insert_methods
from torchparity.scaffold.insert import device_reference, find_class
from torchparity.verify.pipeline import _change_patch

NEW_TEST = Method(
    "test_set_grad_enabled_clone",
    (
        "    def test_set_grad_enabled_clone(self):\n"
        "        cloned = torch.set_grad_enabled(False).clone()\n"
        "        self.assertIsNot(cloned, torch.set_grad_enabled(False))\n"
    ),
)
HELPER = Method(
    "_on_cpu", "    def _on_cpu(self, value):\n        return value.cpu()\n", helper=True
)
OPDB = "from torch.testing._internal.common_methods_invocations import op_db"


def removed(new: str, old: str) -> str:
    """``new`` with the lines it has beyond ``old`` taken out again (order kept)."""
    import difflib

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        assert tag in ("equal", "insert"), (tag, a[i1:i2], b[j1:j2])
        if tag == "equal":
            out += b[j1:j2]
    return "".join(out)


def test_methods_imports_and_device_are_added_and_every_other_byte_kept():
    ins = insert_methods(
        EXISTING,
        "t.py",
        [NEW_TEST, HELPER],
        imports=[OPDB, "import torch"],
        device_line='DEVICE = torch.device("cpu")',
    )
    assert ins.class_name == "TestGradModes"
    assert ins.methods == ("test_set_grad_enabled_clone",) and ins.helpers == ("_on_cpu",)
    assert ins.imports == (OPDB,)  # torch is imported already
    assert removed(ins.text, EXISTING) == EXISTING
    assert "    def test_set_grad_enabled_clone(self):\n" in ins.text
    # after the last method of the class, before the main guard
    assert ins.text.index("# the last line of the class body") < ins.text.index(
        "def test_set_grad_enabled_clone"
    )
    assert ins.text.index("def _on_cpu") < ins.text.index('if __name__ == "__main__":')
    assert (
        ins.text.index(OPDB)
        < ins.text.index('DEVICE = torch.device("cpu")')
        < ins.text.index("def helper")
    )
    compile(ins.text, "t.py", "exec")
    added = [line for line in ins.text.splitlines() if line not in EXISTING.splitlines()]
    assert not [line for line in added if line != line.rstrip()]  # no trailing whitespace added


def test_two_space_indentation_and_no_final_newline():
    ins = insert_methods(
        TWO_SPACE, "two.py", [NEW_TEST], device_line='DEVICE = torch.device("cpu")'
    )
    assert (
        "\n  def test_set_grad_enabled_clone(self):\n    cloned = " in ins.text
    )  # the file's own indent
    assert (
        ins.device_line == ""
    )  # DEVICE exists (a string here: the caller then uses torch.device(DEVICE))
    assert removed(ins.text + "\n", TWO_SPACE + "\n") == TWO_SPACE + "\n"
    assert not ins.text.endswith("\n")  # nor is a final newline added
    compile(ins.text, "two.py", "exec")


def test_a_helper_the_class_has_is_not_added_twice():
    once = insert_methods(EXISTING, "t.py", [HELPER]).text
    twice = insert_methods(once, "t.py", [HELPER])
    assert twice.helpers == () and twice.text == once


def test_a_test_the_class_has_is_refused():
    once = insert_methods(EXISTING, "t.py", [NEW_TEST]).text
    with pytest.raises(UsageError, match="already has test_set_grad_enabled_clone"):
        insert_methods(once, "t.py", [NEW_TEST])


def test_class_choice():
    text = EXISTING.replace(
        "class TestGradModes(TestCase):",
        "class Helper:\n    pass\n\n\nclass TestGradModes(TestCase):",
    )
    assert insert_methods(text, "t.py", [NEW_TEST]).class_name == "TestGradModes"
    assert insert_methods(text, "t.py", [NEW_TEST], class_name="Helper").class_name == "Helper"
    with pytest.raises(
        UsageError, match="no top-level class 'Nope' .*classes: Helper, TestGradModes"
    ):
        insert_methods(text, "t.py", [NEW_TEST], class_name="Nope")
    with pytest.raises(UsageError, match="has no test class"):
        insert_methods("import torch\n\nx = 1\n", "t.py", [NEW_TEST])


def test_a_file_that_does_not_parse_is_refused_in_one_line():
    with pytest.raises(UsageError) as exc:
        insert_methods(
            "class TestX(TestCase):\n    def test_a(self)\n        pass\n", "broken.py", [NEW_TEST]
        )
    assert str(exc.value).startswith("broken.py does not parse (line ") and "\n" not in str(
        exc.value
    )


def test_check_only_insertions_catches_a_changed_byte():
    check_only_insertions("a\nb\n", "a\nnew\nb\n", "f.py")
    with pytest.raises(RuntimeError, match="would replace line 2"):
        check_only_insertions("a\nb\n", "a\nB\n", "f.py")
    with pytest.raises(RuntimeError, match="would delete line 1"):
        check_only_insertions("a\nb\n", "b\n", "f.py")


# -- imports at their isort place ------------------------------------------------------------------
_BODY = "\n\nclass TestOld(TestCase):\n    def test_old(self):\n        self.assertTrue(torch.ones(1).bool())\n"
_USES = Method(
    "test_uses_imports",
    (
        "    def test_uses_imports(self):\n"
        "        self.assertEqual(math.prod((2, 3)), 6)\n"
        "        self.assertTrue(op_db)\n"
        "        self.assertTrue(unittest and torch_npu)\n"
    ),
)
_SORTED_FILES = {
    "third-party only": "import torch\nfrom torch_npu.testing.testcase import TestCase\n" + _BODY,
    "docstring, no blank": '"""Old tests."""\nimport torch\nfrom torch_npu.testing.testcase import TestCase\n'
    + _BODY,
    "both sections": "import os\n\nimport torch\nfrom torch_npu.testing.testcase import TestCase\n"
    + _BODY
    + "\n\nprint(os)\n",
    "stdlib only": "import unittest\nfrom unittest import TestCase\n"
    + _BODY.replace("torch.ones(1).bool()", "True"),
    "future and a comment": "from __future__ import annotations\n\n# the torch stack\nimport torch\n"
    "from torch_npu.testing.testcase import TestCase\n" + _BODY,
}


def _ruff(path, select: str = "E,F,W,I") -> str:
    import subprocess

    proc = subprocess.run(
        [RUFF_BIN, "check", "--isolated", "--select", select, "--line-length", "100", str(path)],
        capture_output=True,
        text=True,
    )
    return "" if proc.returncode == 0 else proc.stdout


@pytest.mark.parametrize("name", list(_SORTED_FILES))
def test_new_imports_go_where_isort_puts_them(tmp_path, name):
    old = _SORTED_FILES[name]
    before = tmp_path / "before.py"
    before.write_text(old)
    assert _ruff(before, "I") == ""  # the file is isort-clean to begin with
    imports = ["import math", OPDB, "import unittest", "import torch_npu", "import torch"]
    ins = insert_methods(
        old, "t.py", [_USES], imports=imports, device_line='DEVICE = torch.device("cpu")'
    )
    assert removed(ins.text, old) == old  # only whole lines added
    after = tmp_path / "after.py"
    after.write_text(ins.text)
    assert _ruff(after) == ""
    lines = ins.text.splitlines()
    assert (
        lines.index("import math")
        < lines.index("import torch")
        < lines.index("import torch_npu")
        < lines.index(OPDB)
        < lines.index('DEVICE = torch.device("cpu")')
    )


def test_a_comment_above_the_first_import_stays_with_it():
    old = _SORTED_FILES["future and a comment"]
    ins = insert_methods(old, "t.py", [_USES], imports=["import math"])
    assert (
        "from __future__ import annotations\n\nimport math\n\n# the torch stack\nimport torch\n"
        in ins.text
    )


# -- --into: the file's own device ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ('device = "npu:0"\n\n\nclass TestA(TestCase):\n    pass\n', "torch.device(device)"),
        ('DEVICE = torch.device("npu:0")\n\n\nclass TestA(TestCase):\n    pass\n', "DEVICE"),
        (
            'npu_device = f"npu:{0}"\n\n\nclass TestA(TestCase):\n    pass\n',
            "torch.device(npu_device)",
        ),
        ('class TestA(TestCase):\n    device = torch.device("npu")\n', "self.device"),
        (
            'class TestA(TestCase):\n    def setUp(self):\n        self.device = "npu:1"\n',
            "torch.device(self.device)",
        ),
        ("class TestA(TestCase):\n    pass\n", ""),
        ('name = "weights"\n\n\nclass TestA(TestCase):\n    pass\n', ""),
    ],
)
def test_the_file_s_own_device_variable_is_found(text, ref):
    module = cst.parse_module("import torch\n" + text)
    assert device_reference(module, find_class(module, "t.py"), "DEVICE") == ref


# -- verify: the patch for --into ---------------------------------------------------------------------------
def test_the_into_patch_applies_to_the_original_file(tmp_path):
    old = "import torch\n\n\nclass TestA:\n    def test_a(self):\n        pass\n"
    new = old + "\n    def test_b(self):\n        self.assertTrue(True)\n"
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_a.py").write_text(old)
    (tmp_path / "a.patch").write_text(_change_patch("test/test_a.py", old, new))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "a.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "test" / "test_a.py").read_text() == new


# -- --into: the copyright header and the module docstring the checklist asks for ----------------------
_NPU_IMPORTS = "import torch\nfrom torch_npu.testing.testcase import TestCase, run_tests\n"
_NPU_CLASS = (
    "\n\nclass TestOld(TestCase):\n    def test_old(self):\n        self.assertTrue(torch.ones(1).bool())\n"
    '\n\nif __name__ == "__main__":\n    run_tests()\n'
)
_LACKING = {
    "neither": _NPU_IMPORTS + _NPU_CLASS,
    "shebang and coding line": "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"
    + _NPU_IMPORTS
    + _NPU_CLASS,
    "a one-line docstring naming other APIs": '"""Old tests of torch.ones."""\n\n'
    + _NPU_IMPORTS
    + _NPU_CLASS,
    "a docstring closed on its own line": '"""Old tests.\n\nOf torch.ones.\n"""\n\n'
    + _NPU_IMPORTS
    + _NPU_CLASS,
    "a comment above the imports": "# the torch stack\n" + _NPU_IMPORTS + _NPU_CLASS,
}


def _linear_into(path, config_name: str = "torch_npu"):
    """``scaffold --into path`` for torch.nn.Linear (the fill-in family: no agent needed)."""
    import sys

    from tests.scaffold.scaffold_fixtures import api_info, resolution
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_test

    return scaffold_test(
        api_info(resolution("torch.nn.Linear", "class")),
        load_preset(config_name),
        python=sys.executable,
        into=path,
        facts={},
        year=2026,
    )


def _checked(path, text: str):
    """(copyright item, docstring item) of the checklist on ``text``, as verify evaluates them."""
    from torchparity.checks.checklist import alias_table, check_copyright, check_docstring
    from torchparity.checks.pysource import SourceFile
    from torchparity.config import load_preset

    config = load_preset("torch_npu")
    src = SourceFile(str(path), text)
    template = str(config.scaffold["copyright"])
    table = alias_table("torch.nn.Linear", config=config)
    return (
        check_copyright(src, template).status,
        check_docstring(src, "torch.nn.Linear", table).status,
    )


@pytest.mark.parametrize("name", list(_LACKING))
def test_into_adds_the_header_and_docstring_the_checklist_asks_for(tmp_path, name):
    import ast

    old = _LACKING[name]
    path = tmp_path / "test_old.py"
    path.write_text(old)
    assert _checked(path, old) == (FAIL, FAIL)
    res = _linear_into(path)
    new = path.read_text()
    assert new == res.content
    assert _checked(path, new) == (PASS, PASS)
    assert res.head_added == (
        "the copyright header",
        "the module docstring naming torch.nn.Linear ("
        + ("extended)" if "docstring" in name else "added)"),
    )
    # the header as a new file gets it, after a shebang and coding line; the old lines all kept
    header = "# Copyright (c) 2026 Huawei Technologies Co., Ltd\n"
    assert new.startswith(
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n" + header if "shebang" in name else header
    )
    tree = ast.parse(new)
    doc = ast.get_docstring(tree)
    assert doc is not None and "This file validates torch.nn.Linear" in doc
    assert (
        "API 覆盖说明（torch.nn.Linear）：" in doc
    )  # the preset's coverage list, as in a new file
    old_doc = ast.get_docstring(ast.parse(old))
    if old_doc is not None:  # extended, not a second docstring: the old text first
        assert doc.startswith(old_doc + "\n\n")
    assert sum(isinstance(s, ast.Expr) for s in tree.body) == 1
    if "one-line" not in name:  # the one-line docstring's closing quotes move to their own line
        assert removed(new, old) == old
    assert "    def test_Linear(self):" in new
    assert _ruff(path, "E,F,W,I") == "", new


def test_into_leaves_a_file_with_header_and_docstring_as_it_was_but_for_the_methods(tmp_path):
    from torchparity.config import load_preset

    template = str(load_preset("torch_npu").scaffold["copyright"])
    head = (
        template.strip("\n").replace("{year}", "2019")
        + '\n\n"""Tests of torch.nn.Linear on NPU."""\n\n'
        + _NPU_IMPORTS
    )
    old = head + _NPU_CLASS
    path = tmp_path / "test_old.py"
    path.write_text(old)
    assert _checked(path, old) == (PASS, PASS)
    res = _linear_into(path)
    new = path.read_text()
    assert new.startswith(head + "\n\nclass TestOld(TestCase):\n")  # every byte above the class
    assert removed(new, old) == old
    added = [line for line in new.splitlines() if line not in old.splitlines()]
    assert added[0] == "    def test_Linear(self):"  # the methods alone
    assert new.index("def test_Linear") > new.index("class TestOld")
    assert res.head_added == () and not [n for n in res.notes if "docstring" in n or "header" in n]


def test_into_leaves_another_copyright_header_alone_and_says_so(tmp_path):
    old = "# Copyright (c) 2020 Someone Else\n\n" + _NPU_IMPORTS + _NPU_CLASS
    path = tmp_path / "test_old.py"
    path.write_text(old)
    res = _linear_into(path)
    new = path.read_text()
    assert new.startswith('# Copyright (c) 2020 Someone Else\n\n"""Validation cases for')
    assert "Huawei" not in new and removed(new, old) == old
    assert _checked(path, new) == (FAIL, PASS)
    assert res.head_added == ("the module docstring naming torch.nn.Linear (added)",)
    assert any("another copyright or licence header" in n for n in res.notes)


def test_into_without_a_configured_header_adds_only_the_docstring(tmp_path):
    old = _NPU_IMPORTS + _NPU_CLASS
    path = tmp_path / "test_old.py"
    path.write_text(old)
    res = _linear_into(path, "default")
    new = path.read_text()
    assert res.head_added == ("the module docstring naming torch.nn.Linear (added)",)
    assert new.startswith('"""Validation cases for torch.nn.Linear on CPU.\n')
    assert "API 覆盖说明" not in new  # the default conventions have no coverage list
    assert removed(new, old) == old


def test_the_header_and_docstring_keep_the_file_s_line_endings():
    from torchparity.checks.checklist import alias_table
    from torchparity.scaffold.filehead import add_docstring, add_header

    old = (_NPU_IMPORTS + _NPU_CLASS).replace("\n", "\r\n")
    head = add_header(old, "t.py", "# Copyright (c) {year} Org\n", "# Copyright (c) 2026 Org\n")
    doc = add_docstring(
        head.text,
        "t.py",
        "torch.nn.Linear",
        alias_table("torch.nn.Linear"),
        "T.",
        ["Of torch.nn.Linear."],
        "x",
    )
    assert doc.text.startswith(
        '# Copyright (c) 2026 Org\r\n\r\n"""T.\r\n\r\nOf torch.nn.Linear.\r\n"""\r\n\r\nimport torch\r\n'
    )
    assert "\n" not in doc.text.replace("\r\n", "") and doc.text.endswith(old)


def test_a_docstring_that_cannot_take_lines_is_left_with_a_note(tmp_path):
    old = '"Old tests."\n\n' + _NPU_IMPORTS + _NPU_CLASS  # not triple-quoted
    path = tmp_path / "test_old.py"
    path.write_text(old)
    res = _linear_into(path)
    new = path.read_text()
    assert removed(new, old) == old and new.count("Old tests.") == 1
    assert _checked(path, new) == (PASS, FAIL)
    assert res.head_added == ("the copyright header",)
    assert any("name torch.nn.Linear in it by hand" in n for n in res.notes)
