"""A test file that cannot import a name from a module that is there says so (a test file of another
torch release), not that the module is missing."""

from __future__ import annotations

from pathlib import Path

from torchparity.agent.upstream import _missing
from torchparity.phrases import phrase
from torchparity.upstream.target import missing_note, missing_of


def test_a_name_missing_from_a_module_is_not_a_missing_module(tmp_path: Path):
    exc = ImportError(
        "cannot import name 'binary_ufuncs_and_refs' from "
        "'torch.testing._internal.common_methods_invocations'",
        name="torch.testing._internal.common_methods_invocations",
    )
    raw = _missing(exc)
    assert raw["kind"] == "name"
    said = phrase(missing_note(missing_of(raw, "test/test_binary_ufuncs.py", tmp_path)), "zh")
    assert "中没有该文件导入的名称" in said and "binary_ufuncs_and_refs" in said
    assert "环境中没有模块" not in said
    # a module that is not there at all is still said as such
    gone = _missing(ModuleNotFoundError("No module named 'scipy'", name="scipy"))
    assert phrase(missing_note(missing_of(gone, "test/x.py", tmp_path)), "en") == (
        "the file could not start: the environment has no module scipy"
    )
