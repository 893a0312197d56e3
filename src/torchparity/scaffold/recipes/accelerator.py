"""What a test of each ``torch.accelerator`` function runs: the call refused on a CPU-only build, and the lines run on the device.

Keyed by the function's leaf (``torch.accelerator.<leaf>``, or the C binding
``torch._C._accelerator_<leaf>``). In each line ``{X}`` is the spelling under test and ``{A}``
is ``torch.accelerator``; ``accelerator.py`` fills them in.
"""

from __future__ import annotations

#: a 1 MiB allocation on the device, for the memory counters to see
MIB = "t = torch.empty(1024 * 1024, dtype=torch.uint8, device=DEVICE)"

_CURRENT_DEVICE_INDEX = (
    "{X}()",
    (
        "index = {X}()",
        "self.assertIsInstance(index, int)",
        "self.assertTrue(0 <= index < {A}.device_count())",
        "self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, index)  # new tensors go there",
    ),
)
_SET_DEVICE_INDEX = (
    "{X}(0)",
    (
        "saved = {A}.current_device_index()",
        "last = {A}.device_count() - 1",
        "try:",
        "    self.assertIsNone({X}(last))",
        "    self.assertEqual({A}.current_device_index(), last)",
        "    self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, last)",
        "finally:",
        "    {A}.set_device_index(saved)",
        "self.assertEqual({A}.current_device_index(), saved)",
    ),
)
#: a memory counter grows by at least a 1 MiB tensor
_COUNTER = (
    "{X}()",
    (
        "{A}.synchronize()",
        "before = {X}()",
        "self.assertIsInstance(before, int)",
        MIB,
        "self.assertGreaterEqual({X}() - before, 1024 * 1024)  # a 1 MiB tensor is counted",
        "self.assertLessEqual({A}.memory_allocated(), {A}.memory_reserved())",
        "del t",
    ),
)
_EMPTY_HOST_CACHE = (
    "{X}()",
    (
        "x = torch.full((1024,), 2.0, device=DEVICE)",
        "self.assertIsNone({X}())  # releases cached pinned host memory only",
        "self.assertEqual(x.sum().item(), 2048.0)  # device memory in use is untouched",
        "self.assertIsNone({X}())  # nothing cached: a no-op",
    ),
)

#: leaf -> (the call made on a CPU-only build, the lines run on the device)
ACCELERATOR: dict[str, tuple[str, tuple[str, ...]]] = {
    "current_device_index": _CURRENT_DEVICE_INDEX,
    "current_device_idx": _CURRENT_DEVICE_INDEX,
    "set_device_index": _SET_DEVICE_INDEX,
    "set_device_idx": _SET_DEVICE_INDEX,
    "device_index": (
        "{X}(0).__enter__()",
        (
            "saved = {A}.current_device_index()",
            "last = {A}.device_count() - 1",
            "with {X}(last):",
            "    self.assertEqual({A}.current_device_index(), last)",
            "    self.assertEqual(torch.empty(1, device=DEVICE.type).device.index, last)",
            "self.assertEqual({A}.current_device_index(), saved)  # restored after the block",
            "with {X}(None):  # None: a no-op",
            "    self.assertEqual({A}.current_device_index(), saved)",
        ),
    ),
    "current_stream": (
        "{X}()",
        (
            "stream = {X}()",
            "self.assertIsInstance(stream, torch.Stream)",
            "self.assertEqual(stream.device.type, DEVICE.type)",
            "self.assertEqual(stream.device_index, {A}.current_device_index())",
            "other = torch.Stream(device=DEVICE)",
            "with other:  # a stream used as a context is the current one inside it",
            "    self.assertEqual({X}(), other)",
            "self.assertEqual({X}(), stream)",
        ),
    ),
    "set_stream": (
        '{X}(torch.Stream(device="cpu"))',
        (
            "saved = {A}.current_stream()",
            "other = torch.Stream(device=DEVICE)",
            "try:",
            "    self.assertIsNone({X}(other))",
            "    self.assertEqual({A}.current_stream(), other)",
            "finally:",
            "    {X}(saved)",
            "self.assertEqual({A}.current_stream(), saved)",
        ),
    ),
    "synchronize": (
        "{X}()",
        (
            "x = torch.full((1000,), 3.0, device=DEVICE) * 2",
            "self.assertIsNone({X}())  # returns once queued work is done",
            "self.assertEqual(x.sum().item(), 6000.0)",
            "self.assertIsNone({X}({A}.current_device_index()))",
        ),
    ),
    "memory_allocated": _COUNTER,
    "max_memory_allocated": _COUNTER,
    "memory_reserved": _COUNTER,
    "max_memory_reserved": _COUNTER,
    "memory_stats": (
        "{X}()",
        (
            MIB,
            "stats = {X}()",
            "self.assertIsInstance(stats, dict)",
            'self.assertEqual(stats["allocated_bytes.all.current"], {A}.memory_allocated())',
            'self.assertGreaterEqual(stats["allocated_bytes.all.peak"], stats["allocated_bytes.all.current"])',
            "del t",
        ),
    ),
    "reset_peak_memory_stats": (
        "{X}()",
        (
            MIB,
            "del t",
            "self.assertIsNone({X}())",
            "self.assertEqual({A}.max_memory_allocated(), {A}.memory_allocated())  # peak is now current",
        ),
    ),
    "reset_accumulated_memory_stats": (
        "{X}()",
        (
            MIB,
            "del t",
            "self.assertIsNone({X}())",
            'self.assertEqual({A}.memory_stats().get("allocation.all.allocated", 0), 0)  # counts start again',
        ),
    ),
    "empty_cache": (
        "{X}()",
        (
            MIB,
            "del t",
            "before = {A}.memory_reserved()",
            "self.assertIsNone({X}())",
            "self.assertLessEqual({A}.memory_reserved(), before)  # cached blocks are released",
            "self.assertLessEqual({A}.memory_reserved() - {A}.memory_allocated(), before)",
        ),
    ),
    #: torch._C._accelerator_isAllocatorInitialized
    "isAllocatorInitialized": (
        "{X}()",
        (
            MIB,
            "self.assertIs({X}(), True)  # allocating on the device has initialised its allocator",
            "del t",
            "self.assertIs({X}(), True)  # and freeing keeps it",
        ),
    ),
    "empty_host_cache": _EMPTY_HOST_CACHE,
    "emptyHostCache": _EMPTY_HOST_CACHE,
    "Graph": (
        "{X}()",
        (
            "x = torch.ones(8, device=DEVICE)",
            "y = x * 2  # warm up outside the capture",
            "{A}.synchronize()",
            "graph = {X}()",
            "stream = torch.Stream(device=DEVICE)",
            "with stream:",
            "    with graph:  # captured, not run",
            "        y.copy_(x * 3)",
            "graph.replay()",
            "{A}.synchronize()",
            "self.assertEqual(y.cpu().tolist(), [3.0] * 8)",
            "x.fill_(5.0)",
            "graph.replay()  # the captured work reads x again",
            "{A}.synchronize()",
            "self.assertEqual(y.cpu().tolist(), [15.0] * 8)",
        ),
    ),
    "get_device_capability": (
        "{X}()",
        (
            "capability = {X}()",
            "self.assertIsInstance(capability, dict)",
            "# documented: the set of dtypes tensors can be allocated in and converted to on the device",
            'dtypes = capability["supported_dtypes"]',
            "self.assertIsInstance(dtypes, set)",
            "self.assertIn(torch.float32, dtypes)",
            "for dtype in sorted(dtypes, key=str):",
            "    t = torch.zeros(2, device=DEVICE).to(dtype)",
            "    self.assertEqual((t.dtype, t.device.type), (dtype, DEVICE.type))",
            "# without an argument: the current device",
            "self.assertEqual({X}({A}.current_device_index()), capability)",
        ),
    ),
    "get_memory_info": (
        "{X}()",
        (
            "free, total = {X}()",
            "self.assertIsInstance(free, int)",
            "self.assertTrue(0 <= free <= total)",
            "self.assertGreater(total, 0)",
        ),
    ),
}
