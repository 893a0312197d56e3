"""Recipe snippets: real tests that run as they stand, written out with the API's own spelling."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RUFF_BIN
from torchparity.scaffold import snippets
from torchparity.scaffold.snippets import FOLDER, Snippet, SnippetError, filled, snippet, variants

FAMILIES = sorted(p.stem for p in FOLDER.glob("*.py") if p.stem != "__init__")


def test_placeholders_are_replaced_where_they_are_names_and_nowhere_else(tmp_path: Path) -> None:
    body = (
        "        x = torch.ones(2, device=DEVICE)  # API on DEVICE\n"
        '        self.assertEqual(API(x).device, DEVICE, "API and DEVICE in a string")\n'
        "        API_2 = API\n"
    )
    found = Snippet("toy", "frob", tmp_path / "toy.py", "what", body)
    out = filled(found, "test_frob", {"API": "torch.frob", "DEVICE": "self.device"})
    assert out == (
        "    def test_frob(self):\n"
        "        x = torch.ones(2, device=self.device)  # API on DEVICE\n"
        '        self.assertEqual(torch.frob(x).device, self.device, "API and DEVICE in a string")\n'
        "        API_2 = torch.frob\n"
    )
    with pytest.raises(SnippetError, match="no value given for DEVICE"):
        filled(found, "test_frob", {"API": "torch.frob"})


def test_an_attribute_a_keyword_or_an_f_string_s_text_is_not_a_placeholder(tmp_path: Path) -> None:
    body = (
        '        self.assertEqual(f"{API.__name__} on {DEVICE}", obj.DEVICE)\n'
        "        call(API=1, device=DEVICE)\n"
    )
    found = Snippet("toy", "frob", tmp_path / "toy.py", "what", body)
    out = filled(found, "test_frob", {"API": "torch.frob", "DEVICE": "self.device"})
    assert out.splitlines()[1:] == [
        '        self.assertEqual(f"{torch.frob.__name__} on {self.device}", obj.DEVICE)',
        "        call(API=1, device=self.device)",
    ]


TOY = '''"""Toy scenarios."""

import unittest

import torch

DEVICE = torch.device("cpu")


class Snippets(unittest.TestCase):
    def test_ones(self):
        """a tensor of ones on the device"""
        API = torch.ones
        self.assertEqual(API(2, device=DEVICE).sum().item(), 2.0)
{more}'''


def _toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, more: str = "") -> None:
    (tmp_path / "toy.py").write_text(TOY.format(more=more))
    monkeypatch.setattr(snippets, "FOLDER", tmp_path)
    snippets._scenarios.cache_clear()


def test_a_scenario_is_its_method_after_the_docstring_and_the_binding_of_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _toy(tmp_path, monkeypatch)
    try:
        found = snippet("toy", "ones")
        assert found is not None and found.what == "a tensor of ones on the device"
        assert variants("toy") == ("ones",)
        assert snippet("toy", "zeros") is None and snippet("../toy", "ones") is None
        assert filled(found, "test_x", {"API": "torch.ones", "DEVICE": "DEVICE"}) == (
            "    def test_x(self):\n"
            "        self.assertEqual(torch.ones(2, device=DEVICE).sum().item(), 2.0)\n"
        )
    finally:
        snippets._scenarios.cache_clear()


@pytest.mark.parametrize(
    ("method", "said"),
    [
        ("    def test_bare(self):\n        x = 1\n        y = 2\n", "starts with a docstring"),
        (
            '    def test_unbound(self):\n        """what"""\n        x = 1\n        y = 2\n',
            "binds API",
        ),
        (
            '    def test_crammed(self):\n        """what"""\n        API = torch.ones; n = 2\n'
            "        y = n\n",
            "on a line of its own",
        ),
    ],
)
def test_a_scenario_without_its_docstring_or_binding_is_named_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, said: str
) -> None:
    _toy(tmp_path, monkeypatch, "\n" + method)
    try:
        with pytest.raises(SnippetError, match=f"toy.py:1[0-9]: .*{said}"):
            snippet("toy", "ones")
    finally:
        snippets._scenarios.cache_clear()


def test_a_decorated_first_statement_keeps_its_decorator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    more = (
        '\n    def test_decorated(self):\n        """what"""\n        API = torch.ones\n\n'
        "        @torch.no_grad()\n        def make():\n            return API(2)\n\n"
        "        self.assertEqual(make().sum().item(), 2.0)\n"
    )
    _toy(tmp_path, monkeypatch, more)
    try:
        found = snippet("toy", "decorated")
        assert found is not None
        out = filled(found, "test_x", {"API": "torch.ones", "DEVICE": "DEVICE"})
        assert out.splitlines()[1:3] == ["        @torch.no_grad()", "        def make():"]
    finally:
        snippets._scenarios.cache_clear()


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_s_snippets_say_what_they_check_and_are_clean(family: str) -> None:
    assert variants(family)
    for variant in variants(family):
        found = snippet(family, variant)
        assert found is not None
        # written out for a name of the API and the device, it is Python that parses
        ast.parse(filled(found, "test_x", {"API": "torch.frob", "DEVICE": "self.device"}).strip())
    lint = subprocess.run(
        [RUFF_BIN, "check", "-q", str(FOLDER / f"{family}.py")], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout


@pytest.mark.slow
def test_every_snippet_runs_as_it_stands_on_the_cpu() -> None:
    pytest.importorskip("torch")
    src = FOLDER.parents[3]  # the folder torchparity is imported from
    package = ".".join(FOLDER.relative_to(src).parts)
    run = subprocess.run(
        [sys.executable, "-m", "unittest", *(f"{package}.{f}" for f in FAMILIES)],
        capture_output=True,
        text=True,
        cwd=src,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"Ran {sum(len(variants(f)) for f in FAMILIES)} tests" in run.stderr
