"""``scaffold/code.py``: the code scaffold writes (wrapped lines, double quotes, checks as assertions)."""

from __future__ import annotations

import ast

from torchparity.scaffold.code import Spelling, check_line, double_quoted, wrap_line


# -- code ------------------------------------------------------------------------------------------
def test_long_lines_are_wrapped_inside_their_widest_brackets_and_still_parse():
    line = (
        "        gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(3, 2), "
        "torch.nn.ReLU()).to(DEVICE))"
    )
    wrapped = wrap_line(line)
    assert wrapped[0] == "        gm = torch.fx.symbolic_trace("
    assert all(len(w) <= 100 for w in wrapped)
    ast.parse("if 1:\n" + "\n".join(wrapped))
    text = "x" * 150
    long = f'        self.assertEqual(result, "{text}")'
    wrapped = wrap_line(long)
    assert all(len(w) <= 100 for w in wrapped)
    tree = ast.parse("if 1:\n" + "\n".join(wrapped))
    assert any(isinstance(n, ast.Constant) and n.value == text for n in ast.walk(tree))
    assert wrap_line("    x = 1") == ["    x = 1"]


def test_single_quoted_literals_become_double_quoted_unless_that_changes_them():
    assert double_quoted("f('a', b='c')") == 'f("a", b="c")'
    assert double_quoted("f('it\\'s', 'say \"hi\"')") == "f('it\\'s', 'say \"hi\"')"


def test_checks_become_assertions_with_placeholders_spelled():
    sp = Spelling(api="torch.x.f", owner="torch.x.C", device="DEVICE")
    assert check_line(["eq", "len(result)", "3"], sp) == "self.assertEqual(len(result), 3)"
    assert check_line(["is", "result", "None"], sp) == "self.assertIs(result, None)"
    assert (
        check_line(["type", "result", "torch.fx.node.Node"], sp)
        == "self.assertIsInstance(result, torch.fx.node.Node)"
    )
    assert check_line(["tensor", "result", "torch.tensor([1.0])"], sp) == (
        "torch.testing.assert_close(result.cpu(), torch.tensor([1.0]), equal_nan=True)"
    )
    assert "rtol=1e-05" in check_line(["float", "result", "0.5"], sp)
    assert sp.apply("_API_(x, _OWNER_, DEVICE, _TMP_)") == "torch.x.f(x, torch.x.C, DEVICE, tmp)"
