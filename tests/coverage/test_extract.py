"""The per-file AST walk: names resolved through imports and simple data flow, bad files skipped."""

from __future__ import annotations

import textwrap
from typing import Any

from torchparity.coverage.extract import VERSION, decode_refs, extract


def _facts(src: str | bytes) -> dict[str, Any]:
    data = src if isinstance(src, bytes) else textwrap.dedent(src).lstrip("\n").encode()
    facts = extract(data)
    assert facts["v"] == VERSION
    return facts


def _funcs(src: str) -> dict[str, list[Any]]:
    facts = _facts(src)
    assert facts["err"] is None
    # refs decoded from their ints: [[chain, kind, line, via], ...]; calls' arguments and ret as chains
    st = facts["s"]

    def calls(f: list[Any]) -> list[Any]:
        return [
            [c, [st[a] for a in args], {k: st[v] for k, v in kws.items()}]
            for c, args, kws, _ in f[5]
        ]

    return {
        f[0]: [*f[:4], decode_refs(facts, f), calls(f), f[6], st[f[7]], *f[8:]] for f in facts["f"]
    }


def _refs(func: list[Any]) -> set[tuple[str, str, str]]:
    return {(chain, kind, via) for chain, kind, _, via in func[4]}


def test_imports_and_aliases_resolve_to_dotted_chains() -> None:
    funcs = _funcs("""
        import torch as t
        import torch.nn.functional as F
        from torch import set_grad_enabled as sge
        from torch.autograd import grad_mode
        import torch.nn

        def test_a():
            t.zeros(1)
            F.relu(x)
            sge(False)
            grad_mode.no_grad()
            torch.nn.Linear(2, 2)
    """)
    assert _refs(funcs["test_a"]) == {
        ("torch.zeros()", "c", "i:t"),
        ("torch.nn.functional.relu()", "c", "i:F"),
        ("torch.set_grad_enabled()", "c", "i:sge"),
        ("torch.autograd.grad_mode.no_grad()", "c", ""),
        ("torch.nn.Linear()", "c", ""),
    }


def test_data_flow_through_locals_setup_and_helpers() -> None:
    funcs = _funcs("""
        import torch

        def make():
            return torch.optim.SGD([])

        class TestX:
            def setUp(self):
                self.ctx = torch.set_grad_enabled(False)

            def test_self(self):
                self.ctx.clone()

            def test_local(self):
                a = torch.no_grad()
                b = a
                b.clone()

            def test_rebound(self):
                a = torch.no_grad()
                a = make_other()
                a.clone()

            def test_helper(self):
                opt = make()
                opt.step()
    """)
    assert (
        "torch.set_grad_enabled().clone()",
        "c",
        "s:ctx#2=torch.set_grad_enabled(...)",
    ) in _refs(funcs["TestX.test_self"])
    assert funcs["TestX.test_self"][5] == [["TestX.setUp", [], {}]]
    assert ("torch.no_grad().clone()", "c", "l:a#2=torch.no_grad(),l:b#2=a") in _refs(
        funcs["TestX.test_local"]
    )
    assert not any("clone" in c for c, _, _ in _refs(funcs["TestX.test_rebound"]))
    assert ("torch.optim.SGD().step()", "c", "h:make,l:opt#3=make()") in _refs(
        funcs["TestX.test_helper"]
    )
    assert "make" in [c[0] for c in funcs["TestX.test_helper"][5]]
    assert funcs["make"][7] == "torch.optim.SGD()"


def test_with_decorator_and_nested_functions_belong_to_the_test() -> None:
    funcs = _funcs("""
        import torch

        @torch.no_grad()
        def test_b():
            with torch.enable_grad() as g:
                pass
            @torch.set_grad_enabled(False).clone()
            def inner():
                return torch.ones(1)
            lam = lambda: torch.zeros(1)
    """)
    refs = _refs(funcs["test_b"])
    assert ("torch.no_grad()", "d", "") in refs
    assert ("torch.enable_grad()", "w", "") in refs
    assert ("torch.set_grad_enabled().clone()", "d", "") in refs
    assert ("torch.ones()", "c", "") in refs and ("torch.zeros()", "c", "") in refs
    assert set(funcs) == {"test_b"}  # the nested def is not a function of its own


def test_comments_never_and_strings_only_as_weak_mentions() -> None:
    funcs = _funcs('''
        import torch

        def test_c():
            """Covers torch.set_grad_enabled.clone here."""
            # torch.set_grad_enabled(False).clone()
            msg = f"see torch.inference_mode.clone {1}"
    ''')
    assert funcs["test_c"][4] == []
    assert funcs["test_c"][6] == ["torch.set_grad_enabled.clone", "torch.inference_mode.clone"]


def test_unknown_heads_and_parameters_are_not_guessed() -> None:
    funcs = _funcs("""
        def test_d(device, helper):
            device.clone()
            helper.set_grad_enabled(False)
            F.relu(1)
    """)
    # parameters are unknown values; F is torch.nn.functional by convention
    assert _refs(funcs["test_d"]) == {("torch.nn.functional.relu()", "c", "")}


def test_module_and_class_docstrings_are_weak_mentions() -> None:
    facts = _facts('''
        """Validates torch.autograd.grad_mode.set_grad_enabled.clone on NPU."""
        import torch


        class TestY:
            """Also torch.no_grad.clone."""

            def test_e(self):
                pass
    ''')
    assert facts["m"] == [
        ["torch.autograd.grad_mode.set_grad_enabled.clone", 1],
        ["torch.no_grad.clone", 6],
    ]


def test_bad_files_are_skipped_with_the_reason() -> None:
    syntax = _facts("def test_x(:\n    pass\n")
    assert syntax["err"].startswith("syntax error at line 1") and syntax["f"] == []
    data = b"def test_x():\n    s = '\xff\xfe'\n"
    binary = _facts(data)
    offset = data.index(b"\xff")
    assert binary["err"] == f"not UTF-8 text (byte 0xff at offset {offset})"
    nul = _facts(b"def test_x():\n    pass\x00\n")
    assert nul["err"] is not None and nul["f"] == []


def test_a_coding_cookie_is_honoured() -> None:
    src = "# -*- coding: latin-1 -*-\nimport torch\ndef test_x():\n    s = '\xe9'\n    torch.zeros(1)\n"
    facts = _facts(src.encode("latin-1"))
    assert facts["err"] is None
    assert decode_refs(facts, facts["f"][0])[0][0] == "torch.zeros()"


def test_test_ids_and_line_ranges() -> None:
    funcs = _funcs("""
        import torch


        class TestOuter:
            class TestInner:
                @staticmethod
                @torch.no_grad()
                def test_deep():
                    pass

            def _helper(self):
                return torch.no_grad()

            def test_uses_helper(self):
                self._helper().clone()
    """)
    assert funcs["TestOuter.TestInner.test_deep"][1:4] == [6, 9, 1]
    assert funcs["TestOuter._helper"][3] == 0
    assert ("torch.no_grad().clone()", "c", "h:_helper") in _refs(
        funcs["TestOuter.test_uses_helper"]
    )
    assert funcs["TestOuter.test_uses_helper"][5] == [["TestOuter._helper", [], {}]]
