"""The distributed family's recipes: the stores it tests and the lines that differ by store, the
store members it tests, and the DDP communication hooks.

``STORES[cls]`` holds the lines that make ``store`` (``make``, in the folder ``tmp``) and the
checks of the store's own members after the common ones (``own``); ``{C}`` is the store class as
the test spells it.
"""

STORES: dict[str, dict[str, tuple[str, ...]]] = {
    # the base class's members run on a HashStore
    "Store": {"make": ("store = torch.distributed.HashStore()",)},
    "HashStore": {"make": ("store = {C}()",)},
    "FileStore": {
        "make": ('path = os.path.join(tmp, "store")', "store = {C}(path, 1)"),
        "own": (
            "self.assertEqual(store.path, path)",
            'self.assertEqual({C}(path, 1).get("key"), b"new")  # another store on the same file',
        ),
    },
    "TCPStore": {
        "make": (
            'store = {C}("127.0.0.1", 0, 1, True, timeout=timedelta(seconds=30), wait_for_workers=False)',
        ),
        "own": (
            "self.assertGreater(store.port, 0)",
            'self.assertEqual(store.host, "127.0.0.1")',
            "client = {C}(store.host, store.port, 1, False, timeout=timedelta(seconds=30))",
            'self.assertEqual(client.get("key"), b"new")  # the server\'s value, through its port',
        ),
    },
    "PrefixStore": {
        "make": ("base = torch.distributed.HashStore()", 'store = {C}("run0", base)'),
        "own": (
            "self.assertIs(store.underlying_store, base)",
            'self.assertEqual(base.get("run0/key"), b"new")',
        ),
    },
}
#: store members the template exercises (others of these classes are not decided on)
STORE_MEMBERS = (
    "__init__",
    "set",
    "get",
    "add",
    "compare_set",
    "check",
    "delete_key",
    "multi_set",
    "multi_get",
    "append",
    "wait",
    "set_timeout",
    "timeout",
    "num_keys",
    "port",
    "host",
    "underlying_store",
    "path",
)
#: members tested on one store class only: the class
OWN_MEMBERS = {
    "__init__": "Store",
    "port": "TCPStore",
    "host": "TCPStore",
    "underlying_store": "PrefixStore",
    "path": "FileStore",
}
#: a class and its members ("" for the class itself) tested as the base of a Python store
SUBCLASSED = {"Store": ("", "__init__")}
HOOKS = "torch.distributed.algorithms.ddp_comm_hooks"
#: the communication hooks, and whether each sends the gradient in 16 bits
HOOK_FUNCTIONS = {"allreduce_hook": False, "fp16_compress_hook": True, "bf16_compress_hook": True}
#: the wrappers of a hook (the test wraps allreduce_hook), and whether each sends in 16 bits
HOOK_WRAPPERS = {"fp16_compress_wrapper": True, "bf16_compress_wrapper": True}
