"""Recipe data of the ``config`` family (``scaffold/configs.py``): the methods of torch's config
modules it tests, and each test's lines (``{S}``: the method as the test spells it, ``{C}``: its
config module)."""

from __future__ import annotations

#: how the name of a config module ends (``torch._inductor.config``)
CONFIG_MODULE_SUFFIX = "config"

#: the lines every test starts with, after ``import operator`` and the method's ``entries`` line:
#: a boolean entry of the module's own and its value
PICK = (
    "key = sorted(k for k, v in entries.items() if isinstance(v, bool))[0]  # a boolean entry of its own",
    "value = operator.attrgetter(key)({C})",
)

#: method -> how its test reads the module's entries, its test's name (``test_<method>_<test>``) and
#: what it checks
CONFIG_METHODS: dict[str, dict[str, str]] = {
    "get_config_copy": {
        "entries": "entries = {S}()",
        "test": "copies_every_entry",
        "what": "{S} against the module's own entries: every value copied, copies independent of "
        "later patches and of the module",
    },
    "shallow_copy_dict": {
        "entries": "entries = {C}.get_config_copy()",
        "test": "copies_every_entry",
        "what": "{S} against the module's own entries: every value copied, copies independent of "
        "later patches and of the module",
    },
    "load_config": {
        "entries": "entries = {C}.get_config_copy()",
        "test": "restores_saved_values",
        "what": "{S} of a saved config inside a patch restores the saved value",
    },
}

#: test -> its lines after ``PICK``
CONFIG_TESTS: dict[str, tuple[str, ...]] = {
    "copies_every_entry": (
        "copy = {S}()",
        "self.assertIsInstance(copy, dict)",
        "self.assertEqual(sorted(copy), sorted(entries))",
        "for name in list(copy)[:50]:",
        "    self.assertEqual(copy[name], operator.attrgetter(name)({C}), name)",
        "with {C}.patch({{key: not value}}):",
        "    self.assertEqual({S}()[key], not value)  # a copy made inside the patch",
        "self.assertEqual(copy[key], value)  # the copy made before is not changed by the patch",
        "copy[key] = not value",
        "self.assertEqual(operator.attrgetter(key)({C}), value)  # changing the copy leaves the module",
    ),
    "restores_saved_values": (
        "saved = {C}.save_config()",
        "with {C}.patch({{key: not value}}):",
        "    self.assertEqual(operator.attrgetter(key)({C}), not value)",
        "    self.assertIsNone({S}(saved))",
        "    self.assertEqual(operator.attrgetter(key)({C}), value)  # the saved value is back",
        "self.assertEqual(operator.attrgetter(key)({C}), value)",
    ),
}
