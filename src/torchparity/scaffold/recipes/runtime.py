"""Which test each device-runtime function or class gets, by its leaf (``torch.cuda.<leaf>``, ``torch.npu.<leaf>``).

``RUNTIME_OBJECTS`` names a macro of ``runtime_more.py.j2`` and the variant of it the leaf
gets; ``RUNTIME_FUNCTIONS`` the older ``runtime.py.j2`` templates; ``GENERATOR_MEMBERS`` the
members of ``torch.Generator`` the ``generator`` template tests, with the lines a member adds
(``{device}``: the device under test), and ``GENERATOR_CALLS`` the calls every generator test
makes (the one of the member under test through its class, ``GENERATOR_CLASS_CALLS``).
``runtime.py`` reads them.
"""

from __future__ import annotations

#: the modules whose runtime classes (``torch.Stream``) go with the device module's functions (the agent's ``home``)
SHARED_MODULES = ("torch",)

#: leaf -> (the macro of runtime_more.py.j2, its variant)
RUNTIME_OBJECTS: dict[str, tuple[str, str]] = {
    "Event": ("event", ""),
    "Stream": ("stream", ""),
    "stream": ("stream_context", ""),
    # random-number state: seeding, the seed drawn, the initial seed, state round trips
    "manual_seed": ("rng", "reseed"),
    "manual_seed_all": ("rng", "reseed"),
    "seed": ("rng", "seed"),
    "seed_all": ("rng", "seed"),
    "initial_seed": ("rng", "initial_seed"),
    "get_rng_state": ("rng", "state"),
    "set_rng_state": ("rng", "state"),
    "get_rng_state_all": ("rng", "state_all"),
    "set_rng_state_all": ("rng", "state_all"),
    # the memory counters around a 1 MiB allocation
    "empty_cache": ("memory", "reserved"),
    "memory_allocated": ("memory", "allocated"),
    "max_memory_allocated": ("memory", "peak"),
    "memory_reserved": ("memory", "reserved"),
    "max_memory_reserved": ("memory", "reserved"),
    "reset_peak_memory_stats": ("memory", "peak"),
    "memory_stats": ("memory", "stats"),
    "reset_max_memory_allocated": ("memory", "peak"),
    # a device context: entered with an index or device, or with a tensor
    "device": ("device_context", "index"),
    "device_of": ("device_context", "tensor"),
    "current_accelerator": ("current_accelerator", ""),
    "is_initialized": ("is_initialized", ""),
    "set_device": ("set_device", ""),
}

#: a macro of runtime_more.py.j2 -> the member of the device module its test calls (measured there first)
MODULE_NEEDS = {
    "stream_context": "Stream",
    "rng": "get_rng_state",
    "memory": "memory_allocated",
    "set_device": "current_device",
}

#: the modules that speak for whichever device is under test (their counts and availability are its own)
DEVICE_NEUTRAL_MODULES = ("torch.accelerator",)

#: leaf -> (the kind of runtime.py.j2 it renders, what its test checks); stream functions return a stream
RUNTIME_FUNCTIONS: dict[str, tuple[str, str]] = {
    "device_count": ("device_count", "the device count it reports for the device under test."),
    "is_available": ("is_available", "availability of the device under test."),
    "current_device": ("current_device", "the current device it reports."),
    "synchronize": (
        "synchronize",
        "that work queued on the device is complete and correct after it returns.",
    ),
    "current_stream": ("stream_function", "the stream it returns."),
    "default_stream": ("stream_function", "the stream it returns."),
}

#: the classes whose members the generator family tests
GENERATOR_CLASSES = ("torch.Generator", "torch._C.Generator")

#: the calls of the seeding and state round trips every generator test makes: member -> its call
GENERATOR_CALLS = {
    "manual_seed": "generator.manual_seed(7)",
    "initial_seed": "generator.initial_seed()",
    "get_state": "generator.get_state()",
    "set_state": "generator.set_state(state)",
}
#: the member under test among them is called through its class: member -> that call
GENERATOR_CLASS_CALLS = {
    "manual_seed": "torch.Generator.manual_seed(generator, 7)",
    "initial_seed": "torch.Generator.initial_seed(generator)",
    "get_state": "torch.Generator.get_state(generator)",
    "set_state": "torch.Generator.set_state(generator, state)",
}

#: a member of torch.Generator -> the lines its test adds after the seeding and state round trips
GENERATOR_MEMBERS: dict[str, tuple[str, ...]] = {
    "manual_seed": (),
    "initial_seed": (),
    "get_state": (),
    "set_state": (),
    "seed": (
        "drawn = torch.Generator.seed(generator)",
        "self.assertEqual(generator.initial_seed(), drawn)",
    ),
    "device": (),
    "clone_state": (
        "copy = torch.Generator.clone_state(generator)",
        "torch.testing.assert_close(torch.rand(4, generator=copy, device={device}).cpu(),",
        "                           torch.rand(4, generator=generator, device={device}).cpu())",
    ),
}
