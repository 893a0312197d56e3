"""Recipe data of the ``package`` family (``scaffold/package.py``, ``templates/package.py.j2``): the
two classes of ``torch.package`` and the members it tests."""

from __future__ import annotations

#: class -> the side of the package it is (the test's name for its instance)
PACKAGE_SIDES = {"PackageExporter": "exporter", "PackageImporter": "importer"}

#: side -> member -> the lines its test adds at its end (``{C}``: the class as the test spells it),
#: calling the member through its class
PACKAGE_MEMBERS: dict[str, dict[str, tuple[str, ...]]] = {
    "exporter": {
        "extern": (),
        "save_source_string": (),
        "save_pickle": (),
        "save_text": (),
        "save_binary": (),
        "add_dependency": (),
        "externed_modules": (),
        "interned_modules": (),
        "dependency_graph_string": (),
        "close": (
            "# close writes the rest of the package (its records and the zip's directory): readable only after it",
            "other = io.BytesIO()",
            "exporter = torch.package.PackageExporter(other)",
            'exporter.save_text("notes", "c.txt", "closed")',
            "before = len(other.getvalue())",
            "self.assertIsNone({C}.close(exporter))",
            "self.assertGreater(len(other.getvalue()), before)",
            "reread = torch.package.PackageImporter(io.BytesIO(other.getvalue()))",
            'self.assertEqual(reread.load_text("notes", "c.txt"), "closed")',
        ),
        "__init__": (),
    },
    "importer": {
        "load_pickle": (),
        "load_text": (),
        "load_binary": (),
        "get_source": (),
        "import_module": (),
        "file_structure": (),
        "__init__": (),
    },
}
