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

from typing import Any

from ..api.records import ApiInfo
from .operators import split_methods
from .plan import Method, TestPlan, coverage_rows, spelling_of, stem_of

A = "torch.accelerator"
#: the C bindings behind torch.accelerator (torch._C._accelerator_isAllocatorInitialized)
C_PREFIX = "torch._C._accelerator_"
MIB = "t = torch.empty(1024 * 1024, dtype=torch.uint8, device=DEVICE)"


def _body(leaf: str, X: str) -> tuple[str, list[str]] | None:
    """(the call made on a CPU-only build, the lines run on the device) for ``torch.accelerator.<leaf>``."""
    if leaf in ("current_device_index", "current_device_idx"):
        return f"{X}()", [
            f"index = {X}()",
            "self.assertIsInstance(index, int)",
            f"self.assertTrue(0 <= index < {A}.device_count())",
            "self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, index)  # new tensors go there",
        ]
    if leaf in ("set_device_index", "set_device_idx"):
        return f"{X}(0)", [
            f"saved = {A}.current_device_index()",
            f"last = {A}.device_count() - 1",
            "try:",
            f"    self.assertIsNone({X}(last))",
            f"    self.assertEqual({A}.current_device_index(), last)",
            "    self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, last)",
            "finally:",
            f"    {A}.set_device_index(saved)",
            f"self.assertEqual({A}.current_device_index(), saved)",
        ]
    if leaf == "device_index":
        return f"{X}(0).__enter__()", [
            f"saved = {A}.current_device_index()",
            f"last = {A}.device_count() - 1",
            f"with {X}(last):",
            f"    self.assertEqual({A}.current_device_index(), last)",
            "    self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, last)",
            f"self.assertEqual({A}.current_device_index(), saved)  # restored after the block",
            f"with {X}(None):  # None: a no-op",
            f"    self.assertEqual({A}.current_device_index(), saved)",
        ]
    if leaf == "current_stream":
        return f"{X}()", [
            f"stream = {X}()",
            "self.assertIsInstance(stream, torch.Stream)",
            "self.assertEqual(stream.device.type, DEVICE.type)",
            f"self.assertEqual(stream.device_index, {A}.current_device_index())",
            "other = torch.Stream(device=DEVICE)",
            "with other:  # a stream used as a context is the current one inside it",
            f"    self.assertEqual({X}(), other)",
            f"self.assertEqual({X}(), stream)",
        ]
    if leaf == "set_stream":
        return f'{X}(torch.Stream(device="cpu"))', [
            f"saved = {A}.current_stream()",
            "other = torch.Stream(device=DEVICE)",
            "try:",
            f"    self.assertIsNone({X}(other))",
            f"    self.assertEqual({A}.current_stream(), other)",
            "finally:",
            f"    {X}(saved)",
            f"self.assertEqual({A}.current_stream(), saved)",
        ]
    if leaf == "synchronize":
        return f"{X}()", [
            "x = torch.full((1000,), 3.0, device=DEVICE) * 2",
            f"self.assertIsNone({X}())  # returns once queued work is done",
            "self.assertEqual(x.sum().item(), 6000.0)",
            f"self.assertIsNone({X}({A}.current_device_index()))",
        ]
    if leaf in (
        "memory_allocated",
        "max_memory_allocated",
        "memory_reserved",
        "max_memory_reserved",
    ):
        return f"{X}()", [
            f"{A}.synchronize()",
            f"before = {X}()",
            "self.assertIsInstance(before, int)",
            MIB,
            f"self.assertGreaterEqual({X}() - before, 1024 * 1024)  # a 1 MiB tensor is counted",
            f"self.assertLessEqual({A}.memory_allocated(), {A}.memory_reserved())",
            "del t",
        ]
    if leaf == "memory_stats":
        return f"{X}()", [
            MIB,
            f"stats = {X}()",
            "self.assertIsInstance(stats, dict)",
            f'self.assertEqual(stats["allocated_bytes.all.current"], {A}.memory_allocated())',
            'self.assertGreaterEqual(stats["allocated_bytes.all.peak"], stats["allocated_bytes.all.current"])',
            "del t",
        ]
    if leaf in ("reset_peak_memory_stats", "reset_accumulated_memory_stats"):
        check = (
            [
                f"self.assertEqual({A}.max_memory_allocated(), {A}.memory_allocated())  # peak is now current"
            ]
            if leaf == "reset_peak_memory_stats"
            else [
                f'self.assertEqual({A}.memory_stats().get("allocation.all.allocated", 0), 0)'
                "  # counts start again"
            ]
        )
        return f"{X}()", [
            MIB,
            "del t",
            f"self.assertIsNone({X}())",
            *check,
        ]
    if leaf == "empty_cache":
        return f"{X}()", [
            MIB,
            "del t",
            f"before = {A}.memory_reserved()",
            f"self.assertIsNone({X}())",
            f"self.assertLessEqual({A}.memory_reserved(), before)  # cached blocks are released",
            f"self.assertLessEqual({A}.memory_reserved() - {A}.memory_allocated(), before)",
        ]
    if leaf == "isAllocatorInitialized":  # torch._C._accelerator_isAllocatorInitialized
        return f"{X}()", [
            MIB,
            f"self.assertIs({X}(), True)  # allocating on the device has initialised its allocator",
            "del t",
            f"self.assertIs({X}(), True)  # and freeing keeps it",
        ]
    if leaf in ("empty_host_cache", "emptyHostCache"):
        return f"{X}()", [
            "x = torch.full((1024,), 2.0, device=DEVICE)",
            f"self.assertIsNone({X}())  # releases cached pinned host memory only",
            "self.assertEqual(x.sum().item(), 2048.0)  # device memory in use is untouched",
            f"self.assertIsNone({X}())  # nothing cached: a no-op",
        ]
    if leaf == "Graph":
        return f"{X}()", [
            "x = torch.ones(8, device=DEVICE)",
            "y = x * 2  # warm up outside the capture",
            f"{A}.synchronize()",
            f"graph = {X}()",
            "stream = torch.Stream(device=DEVICE)",
            "with stream:",
            "    with graph:  # captured, not run",
            "        y.copy_(x * 3)",
            "graph.replay()",
            f"{A}.synchronize()",
            "self.assertEqual(y.cpu().tolist(), [3.0] * 8)",
            "x.fill_(5.0)",
            "graph.replay()  # the captured work reads x again",
            f"{A}.synchronize()",
            "self.assertEqual(y.cpu().tolist(), [15.0] * 8)",
        ]
    if leaf == "get_device_capability":
        return f"{X}()", [
            f"capability = {X}()",
            "self.assertIsInstance(capability, dict)",
            "# documented: the set of dtypes tensors can be allocated in and converted to on the device",
            'dtypes = capability["supported_dtypes"]',
            "self.assertIsInstance(dtypes, set)",
            "self.assertIn(torch.float32, dtypes)",
            "for dtype in sorted(dtypes, key=str):",
            "    t = torch.zeros(2, device=DEVICE).to(dtype)",
            "    self.assertEqual((t.dtype, t.device.type), (dtype, DEVICE.type))",
            "# without an argument: the current device",
            f"self.assertEqual({X}({A}.current_device_index()), capability)",
        ]
    if leaf == "get_memory_info":
        return f"{X}()", [
            f"free, total = {X}()",
            "self.assertIsInstance(free, int)",
            "self.assertTrue(0 <= free <= total)",
            "self.assertGreater(total, 0)",
        ]
    return None


def accelerator_binding(info: ApiInfo) -> bool:
    """Whether the API is a C binding of torch.accelerator this module has a template for."""
    r = info.resolution
    names = [n for n in (r.canonical, r.path, *r.aliases) if n and n.startswith(C_PREFIX)]
    return any(_body(n[len(C_PREFIX) :], n) is not None for n in names)


def accelerator_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan | None:
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
