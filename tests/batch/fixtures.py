"""A backend repo for batch tests, made with real git: direct tests per API on two refs, and a
third ref whose commit lacks one blob (as v2.7.1 of a clone of Ascend/pytorch lacks
test_upstream/disabled_testcases.json)."""

from __future__ import annotations

import os
import site
import sys
import venv
from pathlib import Path

from tests.conftest import git

#: API -> test method; each test file appends "<api> <ref> <pid>" to $MARKER when it runs
APIS = {"torch.add": "test_add", "torch.sub": "test_sub", "torch.mul": "test_mul"}

_TEST = """\
import os
import sys
import time

import torch
from torch.testing._internal.common_utils import TestCase, run_tests

try:  # the backend, where the environment has one (torchparity's emulated torch_npu in the Ray tests)
    import torch_npu  # noqa: F401
    DEVICE = "npu" if torch.npu.is_available() else "cpu"
except ImportError:
    DEVICE = "cpu"

if os.environ.get("TORCHPARITY_TEST_MARKER"):
    with open(os.environ["TORCHPARITY_TEST_MARKER"], "a") as fh:
        fh.write("{api} {ref} %d\\n" % os.getpid())
# the first run in the interpreter TORCHPARITY_TEST_HANG_PY hangs (a node is killed under it)
_flag = os.environ.get("TORCHPARITY_TEST_HANG_FLAG")
if _flag and os.environ.get("TORCHPARITY_TEST_HANG_PY") == sys.executable and not os.path.exists(_flag):
    with open(_flag, "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(300)


class Test{cls}(TestCase):
    def {method}(self):
        time.sleep(float(os.environ.get("TORCHPARITY_TEST_SLEEP", "0"))
                   + float(os.environ.get("TORCHPARITY_TEST_SLEEP_{refkey}", "0")))
        out = {api}(torch.ones(2, device=DEVICE), torch.ones(2, device=DEVICE))
        self.assertEqual((out.device.type, out.shape), (DEVICE, (2,)))


if __name__ == "__main__":
    run_tests()
"""


def test_file(api: str, ref: str) -> str:
    method = APIS[api]
    refkey = "".join(
        c if c.isalnum() else "_" for c in ref
    ).upper()  # TORCHPARITY_TEST_SLEEP_V2_11_0: that ref only
    return _TEST.format(api=api, ref=ref, method=method, cls=method[5:].title(), refkey=refkey)


def config(pythons: dict[str, str], extra: str = "") -> str:
    envs = "".join(
        f'[envs.{name}]\npython = "{py}"\nhardware = "CPU host {name}"\n{extra}\n'
        for name, py in pythons.items()
    )
    return (
        f'device = "cpu"\ntest_roots = ["test"]\nactive_branches = ["master", "v2.11.0"]\n\n{envs}'
    )


def backend_repo(
    make_repo, pythons: dict[str, str], *, broken: bool = False, extra: str = ""
) -> Path:
    files = {"torchparity.toml": config(pythons, extra)}
    branches = {}
    for ref in ("master", "v2.11.0", *(("v2.7.1",) if broken else ())):
        branch = {f"test/test_{m[5:]}.py": test_file(api, ref) for api, m in APIS.items()}
        if ref == "master":
            branch.update(files)
        if ref == "v2.7.1":
            branch["test_upstream/disabled_testcases.json"] = "{}\n"
        branches[ref] = branch
    repo = make_repo(branches)
    if broken:  # the blob only v2.7.1 has goes missing from the object store
        blob = git(repo, "rev-parse", "v2.7.1:test_upstream/disabled_testcases.json")
        os.unlink(repo / ".git" / "objects" / blob[:2] / blob[2:])
    return repo


def second_python(home: Path) -> str:
    """Another environment: a venv that sees this interpreter's torch through a .pth file."""
    venv.EnvBuilder(with_pip=False).create(home / "venv")
    purelib = next((home / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "torchparity_tests.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return str(home / "venv" / "bin" / "python")


def tasks_file(path: Path, apis: list[str]) -> Path:
    path.write_text("# tasks of this test\n" + "\n".join(apis) + "\n")
    return path


PY = sys.executable
