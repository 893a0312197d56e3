"""Adding methods to an existing test file (``--into``): every other byte kept; clashes and odd files
refused; the file's own device variable found; the patch of the change applies to the original file."""

from __future__ import annotations

import subprocess

import libcst as cst
import pytest

from tests.conftest import RUFF_BIN
from tests.scaffold.scaffold_fixtures import EXISTING, TWO_SPACE
from torchparity.errors import UsageError
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
