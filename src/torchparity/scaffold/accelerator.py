"""Runtime templates for ``torch.accelerator``: the device-generic runtime API (device index, streams, memory).

``torch.accelerator`` works on whichever accelerator the build has (CUDA,
XPU, or an out-of-tree backend such as the NPU through PrivateUse1). Each test
branches on the device under test, as PyTorch documents the module: on a
CPU-only build there is no accelerator, ``is_available()`` is False and every
call that needs a device raises ``RuntimeError``; on the device the call does
what its documentation says, checked against facts that do not come from the
call itself: where new tensors go, the stream a context makes current, the
memory counters around a 1 MiB allocation, ``None`` returned where documented.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.accelerator import ACCELERATOR

A = "torch.accelerator"
#: the C bindings behind torch.accelerator (torch._C._accelerator_isAllocatorInitialized)
C_PREFIX = "torch._C._accelerator_"


def _body(leaf: str, X: str) -> tuple[str, list[str]] | None:
    """(the call made on a CPU-only build, the lines run on the device) for ``torch.accelerator.<leaf>``."""
    recipe = ACCELERATOR.get(leaf)
    if recipe is None:
        return None
    refused, lines = recipe
    fill = {"X": X, "A": A}
    return refused.format_map(fill), [line.format_map(fill) for line in lines]


def accelerator_binding(info: ApiInfo) -> bool:
    """Whether the API is a C binding of torch.accelerator this module has a template for."""
    r = info.resolution
    names = [n for n in (r.canonical, r.path, *r.aliases) if n and n.startswith(C_PREFIX)]
    return any(_body(n[len(C_PREFIX) :], n) is not None for n in names)


def accelerator_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan | None:
    """A plan for a ``torch.accelerator`` function this module knows, or None."""
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    leaf = next(
        (n[len(A) + 1 :].rsplit(".", 1)[-1] for n in names if n and n.startswith(A + ".")), ""
    ) or next((n[len(C_PREFIX) :] for n in names if n and n.startswith(C_PREFIX)), "")
    X = spelling_of(r)
    got = _body(leaf, X) if leaf else None
    if got is None:
        return None
    refused, lines = got
    test = f"test_{stem_of(r)}"
    source = (
        f"    def {test}(self):\n"
        f'        if {device}.type == "cpu":  # a CPU-only build has no accelerator: the call is refused\n'
        f"            self.assertFalse({A}.is_available())\n"
        f'            with self.assertRaisesRegex(RuntimeError, "none is available"):\n'
        f"                {refused}\n"
        f"            return\n"
        f"        self.assertEqual({A}.current_accelerator().type, {device}.type)\n"
        + "".join(f"        {line}\n" for line in lines)
    ).replace("DEVICE", device)
    what = (
        f"on the device, what {X} documents (checked against where tensors go, the current stream, the memory "
        "counters around a 1 MiB allocation); on a CPU-only build, the documented refusal"
    )
    methods: tuple[Method, ...] = tuple(split_methods(source))
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="runtime",
        stem=stem_of(r),
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(normal=what, invalid="无加速器时调用抛出 RuntimeError"),
        facts=facts,
    )
