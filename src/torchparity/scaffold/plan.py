"""The data a scaffolded test is rendered from: methods, imports, docstring, coverage rows; names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..api.records import Resolution
from ..names import is_private_name
from .facts import Facts

FAMILIES = ("context", "opinfo", "tensor", "signature", "storage", "runtime", "fill-in")

#: the coverage dimensions some teams list in the docstring, in their order
COVERAGE_DIMENSIONS = (
    "空/非空",
    "枚举选项",
    "参数类型",
    "传参与不传参",
    "等价类/边界值",
    "正常传参场景",
    "异常传参场景",
)
NOT_COVERED = "不涉及"


class CannotDecide(Exception):
    """A family's facts leave it nothing real to assert (the message says what is missing)."""


@dataclass(frozen=True)
class Method:
    """One method of the test class, as source indented for a class body."""

    name: str
    source: str
    #: a private helper the tests call (added once per class)
    helper: bool = False


@dataclass(frozen=True)
class TestPlan:
    """Everything a test file (or the methods added to one) is rendered from."""

    api: str
    spelling: str
    family: str
    stem: str
    methods: tuple[Method, ...]
    #: import lines beyond ``import torch`` and the TestCase import
    imports: tuple[str, ...] = ()
    summary: str = ""
    coverage: tuple[tuple[str, str], ...] = ()
    #: why a test fails on purpose (what to fill in); empty for a complete test
    fill_in: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    uses_device: bool = True
    facts: Facts = field(default_factory=Facts)

    @property
    def tests(self) -> list[str]:
        return [m.name for m in self.methods if not m.helper]

    @property
    def class_name(self) -> str:
        return "Test" + "".join(p[:1].upper() + p[1:] for p in snake(self.stem).split("_") if p)

    @property
    def file_name(self) -> str:
        return "test_" + snake(self.stem) + ".py"


#: device modules whose functions share names (``torch.cpu.synchronize``, ``torch.npu.synchronize``)
DEVICE_MODULES = ("cpu", "cuda", "npu", "xpu", "mps", "mtia", "accelerator")


def snake(name: str) -> str:
    """``BoolStorage`` -> ``bool_storage``; underscores collapsed and trimmed."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return re.sub(r"_+", "_", text).strip("_")


def spelling_of(res: Resolution) -> str:
    """How a test spells the API: its shortest public spelling, else the name as resolved."""
    names = [res.canonical, *res.aliases, res.path]
    public = [n for n in names if n and not is_private_name(n)]
    if not public:
        return res.path or res.canonical
    return min(public, key=lambda n: (n.count("."), len(n), n))


def stem_of(res: Resolution) -> str:
    """``set_grad_enabled_clone``, ``tensor_ndim``, ``get_device_index``: test and file names.

    The test names keep what the collector's default selection looks for (the
    API's last two segments joined, or its last segment).
    """
    leaf = res.path.rsplit(".", 1)[-1]
    if res.owner_class:
        owner = res.owner_class.rsplit(".", 1)[-1]
        return f"{owner.lower()}_{leaf}"
    parts = spelling_of(res).split(".")
    if len(parts) >= 3 and parts[-2] in DEVICE_MODULES:
        return f"{parts[-2]}_{leaf}"
    return leaf.lstrip("_") or leaf


def root_module(spelling: str) -> str:
    return spelling.split(".", 1)[0]


def coverage_rows(**given: str) -> tuple[tuple[str, str], ...]:
    """The seven dimensions in order; a dimension not given is "不涉及"."""
    keys = {
        "empty": "空/非空",
        "enum": "枚举选项",
        "types": "参数类型",
        "omitted": "传参与不传参",
        "boundary": "等价类/边界值",
        "normal": "正常传参场景",
        "invalid": "异常传参场景",
    }
    values = {keys[k]: v for k, v in given.items()}
    return tuple((dim, values.get(dim) or NOT_COVERED) for dim in COVERAGE_DIMENSIONS)
