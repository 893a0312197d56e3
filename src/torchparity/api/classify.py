"""Category and a reusable zh/en conclusion for an API, built only from its evidence.

The categories:

* ``python-state``: Python code whose trace dispatched no operator and created no tensor;
* ``python-wrapper``: Python code whose trace dispatched operators;
* ``operator``: an ATen operator or C binding (builtin, C method or property, storage class) that
  dispatches operators, or whose trace is missing;
* ``c-binding``: a C binding whose trace dispatched no operator and created no tensor (tensor
  metadata such as ``Tensor.ndimension``, ``Tensor.dim``);
* ``device-runtime``: device module functions and classes (streams, events, memory, ...);
* ``other``: modules, plain values, and Python code without a trace to judge it by.

A sentence states only what the resolution or the trace showed; where the
evidence is missing (no trace, or the trace failed) the sentence says so.
"""

from __future__ import annotations

from .records import Classification, Resolution, Trace

#: (each worded once for every text and the terminal: ``phrases.CATEGORY_WORDS``)
CATEGORIES = ("python-state", "python-wrapper", "operator", "c-binding", "device-runtime", "other")

#: modules (and their submodules) that talk to a device runtime rather than dispatch operators
DEVICE_RUNTIME_MODULES = (
    "torch.cuda",
    "torch.xpu",
    "torch.mps",
    "torch.mtia",
    "torch.npu",
    "torch.cpu",
    "torch.accelerator",
    "torch.backends.cuda",
    "torch.backends.mps",
)
#: device-generic runtime classes that live directly in ``torch``
DEVICE_RUNTIME_NAMES = ("torch.Stream", "torch.Event")
MAX_OPS_IN_SENTENCE = 4


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def is_device_runtime(res: Resolution, backend_module: str = "") -> bool:
    prefixes = DEVICE_RUNTIME_MODULES + ((backend_module,) if backend_module else ())
    names = [res.canonical, res.module, *res.aliases]
    if res.owner_class:
        names.append(res.owner_class)
    if any(_under(n, prefixes) for n in names if n):
        return True
    return any(_under(n, DEVICE_RUNTIME_NAMES) for n in [res.canonical, *res.aliases])


def device_label(device_type: str) -> str:
    """``NPU`` for npu; a generic word when the run was on the CPU."""
    return device_type.upper() if device_type and device_type != "cpu" else ""


def _ops_text(trace: Trace) -> str:
    shown = [f"{o.op}×{o.count}" for o in trace.ops[:MAX_OPS_IN_SENTENCE]]
    more = len(trace.ops) - len(shown)
    text = ", ".join(shown)
    return text + (f" … (+{more})" if more > 0 else "")


def _calls_en(n: int) -> str:
    return f"{n} operator call" + ("" if n == 1 else "s")


def _devices(trace: Trace) -> str:
    return "/".join(trace.devices) or trace.device_type


def _what_zh(trace: Trace) -> str:
    if trace.tests_run is not None:
        return f"测试 {trace.target}（运行 {trace.tests_run} 个）的分派跟踪"
    if trace.probed:
        return "facts 探测自动构造的调用（无调用样例）的分派跟踪"
    return "调用样例的分派跟踪"


def _what_en(trace: Trace) -> str:
    if trace.tests_run is not None:
        return f"the dispatch trace of tests {trace.target} ({trace.tests_run} run)"
    if trace.probed:
        return "the dispatch trace of a call the facts probe built (no call sample)"
    return "the dispatch trace of its call sample"


def _adapt_zh(dev: str) -> str:
    return f"因此无需 {dev} 专用适配" if dev else "因此无需设备专用适配"


def _adapt_en(dev: str) -> str:
    return (
        f"so it needs no {dev}-specific adaptation"
        if dev
        else "so it needs no device-specific adaptation"
    )


def _role(res: Resolution) -> tuple[str, str]:
    """What the Python code does, as far as its kind tells."""
    if res.kind == "context-manager" or res.owner_kind == "context-manager":
        return "仅管理 Python 上下文状态", "only manages Python context state"
    return "为纯 Python 实现", "is plain Python"


def _no_trace(trace: Trace | None) -> tuple[str, str]:
    if trace is None:
        return (
            "未取得分派跟踪（无调用样例或测试），无法判定是否分派算子",
            "no dispatch trace was taken (no call sample or test), so whether it dispatches operators is not established",
        )
    if trace.status == "no-sample":
        return (
            f"未取得分派跟踪（无调用样例或测试；{trace.error or trace.status}），无法判定是否分派算子",
            f"no dispatch trace was taken (no call sample or test; {trace.error or trace.status}), so whether it dispatches operators is not established",
        )
    return (
        f"分派跟踪未能完成（{trace.error or trace.status}），无法判定是否分派算子",
        f"the dispatch trace did not complete ({trace.error or trace.status}), so whether it dispatches operators is not established",
    )


def _where(res: Resolution) -> tuple[str, str]:
    if res.is_c_extension:
        return (
            f"由 C 扩展实现（{res.kind_detail}）",
            f"implemented in a C extension ({res.kind_detail})",
        )
    return f"上游实现位于 {res.source}", f"implemented upstream at {res.source}"


def classify(
    res: Resolution, trace: Trace | None, device_type: str, backend_module: str = ""
) -> Classification:
    dev = device_label(device_type)
    traced = trace is not None and trace.ok
    where_zh, where_en = _where(res)
    name = res.canonical

    if res.kind == "module":
        return Classification(
            "other",
            f"{name} 是模块（{res.source}），不是单个可调用 API；请解析其中具体的函数或类。",
            f"{name} is a module ({res.source}), not a single callable API; resolve the function or class inside it.",
            "resolution",
        )

    if is_device_runtime(res, backend_module):
        if traced:
            assert trace is not None
            if trace.total_ops:
                t_zh = f"{_what_zh(trace)}在 {_devices(trace)} 上分派 {trace.total_ops} 次算子（{_ops_text(trace)}）"
                t_en = f"{_what_en(trace)} shows {_calls_en(trace.total_ops)} on {_devices(trace)} ({_ops_text(trace)})"
            else:
                t_zh = f"{_what_zh(trace)}未分派任何 ATen 算子"
                t_en = f"{_what_en(trace)} shows no ATen operator dispatched"
        else:
            t_zh, t_en = _no_trace(trace)
            if trace is not None:
                t_zh = f"在 {device_type} 上{t_zh}，需在目标设备上验证"
                t_en = f"on {device_type} {t_en}; verify on the target device"
        target_zh = f"{dev} 后端" if dev else "目标设备后端"
        target_en = f"the {dev} backend" if dev else "the target device backend"
        return Classification(
            "device-runtime",
            f"{name} 属于设备运行时接口（{res.module}，{where_zh}），管理流、事件、内存等设备运行时资源而非 ATen 算子；{t_zh}；需由{target_zh}提供对应的运行时实现。",
            f"{name} is a device-runtime API ({res.module}, {where_en}) that manages streams, events, memory and the like rather than ATen operators; {t_en}; {target_en} must provide the matching runtime implementation.",
            "trace" if traced else "resolution",
        )

    if res.kind in ("attribute", "enum-member"):
        what_zh = "枚举值" if res.kind == "enum-member" else "属性值"
        return Classification(
            "other",
            f"{name} 是{what_zh}（{res.kind_detail}），读取时不执行代码、不分派算子，无需设备适配。",
            f"{name} is a {'enum member' if res.kind == 'enum-member' else 'plain value'} ({res.kind_detail}); reading it runs no code and dispatches no operator, so it needs no device adaptation.",
            "resolution",
        )

    if res.kind == "storage-class" or res.is_c_extension:
        if res.kind == "storage-class":
            what_zh = f"{name} 是存储类（{res.source}），其数据由 C 扩展的存储绑定按设备分配"
            what_en = f"{name} is a storage class ({res.source}) whose data the C extension's storage binding allocates per device"
        else:
            what_zh = f"{name} {where_zh}，是 ATen 算子或 C 绑定"
            what_en = f"{name} is {where_en}, an ATen operator or C binding"
        if traced:
            assert trace is not None
            if trace.total_ops:
                t_zh = f"{_what_zh(trace)}在 {_devices(trace)} 上分派 {_ops_text(trace)}；{dev + ' ' if dev else '目标设备'}需提供这些算子的实现"
                t_en = f"{_what_en(trace)} shows {_ops_text(trace)} on {_devices(trace)}; {dev or 'the target device'} must implement these operators"
            else:
                t_zh = f"{_what_zh(trace)}未分派任何 ATen 算子、未创建张量，不依赖设备算子"
                t_en = f"{_what_en(trace)} shows no ATen operator dispatched and no tensor created, so it relies on no device operator"
                if (
                    res.kind != "storage-class"
                ):  # a binding that reads metadata: no operator behind it
                    what_zh = f"{name} {where_zh}，是 C 绑定"
                    what_en = f"{name} is {where_en}, a C binding"
                    return Classification(
                        "c-binding", f"{what_zh}；{t_zh}。", f"{what_en}; {t_en}.", "trace"
                    )
        else:
            t_zh, t_en = _no_trace(trace)
        return Classification(
            "operator",
            f"{what_zh}；{t_zh}。",
            f"{what_en}; {t_en}.",
            "trace" if traced else "resolution",
        )

    # Python code: the trace decides.
    if not traced:
        t_zh, t_en = _no_trace(trace)
        return Classification(
            "other",
            f"{name} {where_zh}（Python 代码）；{t_zh}；请提供调用代码或测试文件后再判定。",
            f"{name} is {where_en} (Python code); {t_en}; pass the code to call or its tests to classify it.",
            "resolution",
        )
    assert trace is not None
    if trace.total_ops == 0 and trace.tensors_total == 0:
        role_zh, role_en = _role(res)
        dev_zh = f"不创建 {dev} 张量" if dev else "不创建任何张量"
        dev_en = f"creates no {dev} tensor" if dev else "creates no tensor"
        return Classification(
            "python-state",
            f"{name} {where_zh}，{role_zh}；{_what_zh(trace)}显示其未分派任何 ATen 算子，{dev_zh}，不依赖设备算子，{_adapt_zh(dev)}。",
            f"{name} is {where_en} and {role_en}; {_what_en(trace)} shows it dispatches no ATen operator, {dev_en} and relies on no device operator, {_adapt_en(dev)}.",
            "trace",
        )
    if trace.total_ops == 0:
        return Classification(
            "python-wrapper",
            f"{name} {where_zh}（Python 代码）；{_what_zh(trace)}未分派算子，但创建了 {trace.tensors_total} 个张量（{dict(trace.tensors_created)}），其设备行为取决于张量的创建与分配。",
            f"{name} is {where_en} (Python code); {_what_en(trace)} shows no operator dispatched but {trace.tensors_total} tensors created ({dict(trace.tensors_created)}), so its device behaviour rests on tensor creation and allocation.",
            "trace",
        )
    layer_zh = (
        f"Python 层无需 {dev} 专用适配，其在 {dev} 上的行为"
        if dev
        else "Python 层无需设备专用适配，其在设备上的行为"
    )
    layer_en = (
        f"the Python layer needs no {dev}-specific adaptation, and its behaviour on {dev}"
        if dev
        else "the Python layer needs no device-specific adaptation, and its behaviour on a device"
    )
    return Classification(
        "python-wrapper",
        f"{name} {where_zh}（Python 代码）；{_what_zh(trace)}在 {_devices(trace)} 上分派 {trace.total_ops} 次算子（{_ops_text(trace)}）；{layer_zh}取决于这些算子的设备实现。",
        f"{name} is {where_en} (Python code); {_what_en(trace)} shows {_calls_en(trace.total_ops)} on {_devices(trace)} ({_ops_text(trace)}); {layer_en} rests on those operators' device kernels.",
        "trace",
    )
