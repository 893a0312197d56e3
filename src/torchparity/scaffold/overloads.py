"""The ``overload`` family: ATen operator overloads and packets, and batch-norm operators.

* An overload or packet ``torch.ops.aten.X[.ov]`` whose operator ``X`` has an
  OpInfo entry (by name) gets that entry's sample inputs, only those the
  overload's schema accepts (read with ``torch._C._get_schema``, not from the
  API object), arranged in the schema's order, called through the overload on
  the device and compared with OpInfo's NumPy ``ref`` or with the OpInfo's own
  function in float64 on the CPU; the number of samples that fit is the one
  measured here.
* A batch-norm operator (``torch.batch_norm``, ``aten.native_batch_norm``,
  ``aten.native_batch_norm_backward``, …, recognised by the names of its
  schema's arguments) gets a 2 x 2 x 2 input whose channel means and variances
  are worked out by hand, in training and eval: the normalised output, the
  saved mean and inverse standard deviation, the running statistics' update
  (``(1 - momentum) * old + momentum * batch``, unbiased variance) and, for a
  backward kernel, the gradients of the same normalisation written out in
  float64 and differentiated by autograd.
"""

from __future__ import annotations

import re

from ..agent.facts.schema_calls import NormFacts, OverloadFacts, OverloadOpinfo
from ..api.records import ApiInfo
from .facts import Facts
from .operators import OPDB_IMPORT, _comment_lines, _lookup, metadata_helper, split_methods
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .render import render_helpers

DISPATCH_IMPORT = "from torch.utils._python_dispatch import TorchDispatchMode"


def is_overload_kind(info: ApiInfo) -> bool:
    """An ATen overload or packet, or a torch-level batch-norm operator."""
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    if any(n.startswith("torch.ops.aten.") for n in names if n):
        return True
    leaf = r.path.rsplit(".", 1)[-1]
    return r.kind in ("function", "builtin") and "batch_norm" in leaf and r.path.count(".") == 1


# -- OpInfo samples through the overload ---------------------------------------------------------
def _opinfo_methods(
    spelling: str, test: str, ov: OverloadFacts, op: OverloadOpinfo, device: str
) -> list[Method]:
    qual = ov["qualified"]
    if ov.get("kind") == "overload":
        schemas = f'[torch._C._get_schema("{qual}", "{ov.get("overload") or ""}")]'
    else:
        schemas = f'list(torch._C._jit_get_schemas_for_operator("{qual}"))'
    order = op.get("order")
    notes = [f"{e['dtype']} left out: {e['reason']}" for e in op.get("excluded", [])]
    captured = bool(op.get("captured"))
    meta = op["reference"] == "meta"
    overload_name = ov.get("overload") if ov.get("kind") == "overload" else None
    lines: list[str] = []
    for n, dname in enumerate(op["dtypes"]):
        lines += [
            f"    def {test}_{dname}(self):",
            f"        {_lookup(op['name'], op.get('variant_test_name', ''))}",
            f"        # what {spelling} accepts, read from the dispatcher",
            f"        schemas = {schemas}",
        ]
        if n == 0:
            lines += [f"        # {line}" for note in notes for line in _comment_lines(note)]
            if meta:
                lines += [
                    f"        # OpInfo {op['name']} marks its values as undefined (its tests skip comparing them):",
                    "        # the result's shape, dtype, layout, strides and requires_grad are checked against",
                    "        # what the meta kernels give for the same sample, never its values",
                ]
        lines += [
            "        checked = 0",
            "        torch.manual_seed(0)  # the samples measured on the CPU when this test was written",
            f'        for sample in op.sample_inputs("cpu", torch.{dname}):',
        ]
        if captured:
            lines += [
                "            # the arguments the OpInfo's function passes to the operator (recorded)",
                "            calls = self._aten_calls(op, sample)",
                "            if len(calls) != 1:",
                "                continue  # a sample whose function calls the operator other than once",
                "            args, kwargs = calls[0]",
            ]
        kwargs = "kwargs" if captured else "sample.kwargs"
        if op.get("out"):
            lines += [
                f"            out = torch.empty(0, dtype=torch.{dname}, device={device})",
                f'            kwargs = {{**{kwargs}, "out": out}}',
            ]
            kwargs = "kwargs"
        args = "args" if captured else "self._arranged(sample)"
        lines += [
            f"            if not self._fits(schemas, {args}, {kwargs}):",
            f"                continue  # a sample for another overload of {op['name']}",
        ]
        if op["reference"] == "seeded":
            lines += [
                f"            same = self._sample_to(sample, {device})",
                "            # the OpInfo's function draws under torch.manual_seed(42) (wrapper_set_seed)",
                "            expected = op.op(same.input, *same.args, **same.kwargs)",
            ]
        elif op["reference"] == "numpy":
            lines += [
                "            ref = sample.numpy()",
                "            expected = op.ref(ref.input, *ref.args, **ref.kwargs)  # OpInfo's NumPy reference",
            ]
        elif meta:
            lines += [
                '            on_meta = self._sample_to(sample, "meta")',
                "            # the OpInfo's function on the meta device: shapes, dtypes and strides, no values",
                "            expected = op.op(on_meta.input, *on_meta.args, **on_meta.kwargs)",
            ]
        else:
            lines += [
                '            wide = self._sample_to(sample, "cpu", widen=True)',
                "            # the OpInfo's own function in float64 on the CPU",
                "            expected = op.op(wide.input, *wide.args, **wide.kwargs)",
            ]
        if captured:
            lines += [
                f"            args, kwargs = self._moved(args, {device}), self._moved(kwargs, {device})"
            ]
            call_args = "*args, **kwargs"
        else:
            lines += [f"            dev = self._sample_to(sample, {device})"]
            call_args = (
                "*self._arranged(dev), **dev.kwargs, out=out"
                if op.get("out")
                else "*self._arranged(dev), **dev.kwargs"
            )
        if op["reference"] == "seeded":
            lines += ["            torch.manual_seed(42)  # the reference's seed: the same draw"]
        lines += [f"            actual = {spelling}({call_args})"]
        if op.get("out"):
            lines += ["            self.assertIs(actual, out)  # out= is filled and returned"]
        lines += ["            self._assert_on_device(actual)"]
        if meta:
            lines += [
                f"            self._assert_same_metadata(actual, expected, {'kwargs' if captured else 'dev.kwargs'})"
            ]
        else:
            lines += [f"            self._assert_matches(actual, expected, torch.{dname})"]
        lines += ["            checked += 1"]
        if captured and op.get("limit"):
            lines += [
                f"            if checked == {int(op['limit'])}:",
                "                break  # the first samples: recording each one's calls runs its function",
            ]
        lines += [
            f"        # the samples of {op['name']} its schema accepts",
            f"        self.assertEqual(checked, {int((op.get('samples') or {}).get(dname, 0))})",
            "",
        ]
    helper = [
        "    def _fits(self, schemas, args, kwargs):",
        '        """Whether one of the schemas accepts the arguments (types, not values)."""',
        "        for schema in schemas:",
        "            try:",
        "                torch._C._check_schema_allow_fake_script_object(schema, *args, **kwargs)",
        "            except RuntimeError:",
        "                continue",
        "            return True",
        "        return False",
        "",
        "    def _arranged(self, sample):",
        '        """The sample\'s positional arguments in the schema\'s order."""',
        "        args = (sample.input, *sample.args)",
    ]
    if order is not None:
        helper.append(f"        return tuple(args[i] for i in {tuple(order)!r} if i < len(args))")
    else:
        helper.append("        return args")
    if captured:
        helper += [
            "",
            "    def _moved(self, value, device):",
            '        """Arguments copied to ``device``: tensors (in lists, tuples and dicts too) and a factory\'s',
            '        ``device=`` keyword."""',
            "        if isinstance(value, torch.Tensor):",
            "            return value.to(device, copy=True)",
            "        if isinstance(value, (list, tuple)):",
            "            return type(value)(self._moved(v, device) for v in value)",
            "        if isinstance(value, dict):",
            "            return {",
            '                k: device if k == "device" and v is not None else self._moved(v, device)',
            "                for k, v in value.items()",
            "            }",
            "        return value",
        ]
        want = (
            f"schema.name == {qual!r} and schema.overload_name == {overload_name!r}"
            if overload_name is not None
            else f"schema.name == {qual!r}"
        )
        helper += [
            "",
            "    def _aten_calls(self, op, sample):",
            f'        """(args, kwargs) of each call of {qual} by the OpInfo\'s function."""',
            "        calls = []",
            "",
            "        class Record(TorchDispatchMode):",
            "            def __torch_dispatch__(self, func, types, args=(), kwargs=None):",
            "                kwargs = kwargs or {}",
            "                schema = func._schema",
            f"                if {want}:",
            "                    calls.append((tuple(args), dict(kwargs)))",
            "                return func(*args, **kwargs)",
            "",
            "        with Record():",
            "            op.op(sample.input, *sample.args, **sample.kwargs)",
            "        return calls",
        ]
    methods = split_methods("\n".join(lines) + "\n")
    methods += [
        Method(m.name, m.source, helper=True) for m in split_methods("\n".join(helper) + "\n")
    ]
    if meta:
        methods.append(metadata_helper())
    return methods


# -- batch norm by hand -------------------------------------------------------------------------
#: a 2 x 2 x 2 input: channel 0 holds 1, 3, 5, 7 (mean 4, variance 5, unbiased 20/3), channel 1 holds
#: 2, 6, 2, 6 (mean 4, variance 4, unbiased 16/3)
_SETUP = [
    "x64 = torch.tensor([[[1.0, 3.0], [2.0, 6.0]], [[5.0, 7.0], [2.0, 6.0]]], dtype=torch.float64)",
    "weight64 = torch.tensor([1.5, -0.5], dtype=torch.float64)",
    "bias64 = torch.tensor([0.25, 1.0], dtype=torch.float64)",
    "old_mean64 = torch.tensor([0.5, -1.0], dtype=torch.float64)",
    "old_var64 = torch.tensor([2.0, 0.5], dtype=torch.float64)",
    "momentum = 0.1",
    "eps = 1e-5",
    "mean64 = torch.tensor([4.0, 4.0], dtype=torch.float64)  # (1 + 3 + 5 + 7) / 4, (2 + 6 + 2 + 6) / 4",
    "var64 = torch.tensor([5.0, 4.0], dtype=torch.float64)  # (9 + 1 + 1 + 9) / 4, (4 + 4 + 4 + 4) / 4",
    "unbiased64 = torch.tensor([20.0 / 3, 16.0 / 3], dtype=torch.float64)  # the same sums over 3",
    "invstd64 = 1 / torch.sqrt(var64 + eps)",
    "x = x64.to(DEVICE, torch.float32)",
    "weight = weight64.to(DEVICE, torch.float32)",
    "bias = bias64.to(DEVICE, torch.float32)",
    "running_mean = old_mean64.to(DEVICE, torch.float32)",
    "running_var = old_var64.to(DEVICE, torch.float32)",
]
_ARG_EXPR = {
    "input": "x",
    "grad_out": "grad_out",
    "weight": "weight",
    "bias": "bias",
    "running_mean": "running_mean",
    "running_var": "running_var",
    "save_mean": "save_mean",
    "save_invstd": "save_invstd",
    "mean": "save_mean",
    "invstd": "save_invstd",
    "momentum": "momentum",
    "eps": "eps",
    "cudnn_enabled": "False",
    "output_mask": "[True, True, True]",
}


def _grouped(expr: str) -> str:
    return expr if expr.isidentifier() else f"({expr})"


def _used(body: list[str]) -> list[str]:
    """The body without the set-up assignments nothing after them reads (ruff's F841)."""
    kept: list[str] = []
    for line in reversed(body):
        target = re.match(r"([A-Za-z_][A-Za-z0-9_]*) = ", line)
        if (
            target
            and line in _SETUP
            and not any(
                re.search(rf"\b{target.group(1)}\b", later.split("#", 1)[0]) for later in kept
            )
        ):
            continue
        kept.insert(0, line)
    return kept


def _channel(name: str) -> str:
    return f"{name}[None, :, None]"


def _norm_methods(spelling: str, test: str, norm: NormFacts) -> list[Method]:
    names = norm["arguments"]
    flag = norm.get("flag") or ""
    backward = "grad_out" in names
    out = []
    for training in norm["modes"]:
        mode = "training" if training else "eval"
        args = ", ".join(
            ("True" if training else "False") if n == flag else _ARG_EXPR[n] for n in names
        )
        body = list(_SETUP)
        stats_mean, stats_invstd = (
            ("mean64", "invstd64")
            if training
            else ("old_mean64", "1 / torch.sqrt(old_var64 + eps)")
        )
        if backward:
            body += [
                "grad_out64 = torch.tensor([[[1.0, -2.0], [0.5, 3.0]], [[-1.0, 4.0], [2.0, -0.5]]], "
                "dtype=torch.float64)",
                "grad_out = grad_out64.to(DEVICE, torch.float32)",
                f"save_mean = {_grouped(stats_mean)}.to(DEVICE, torch.float32)",
                f"save_invstd = {_grouped(stats_invstd)}.to(DEVICE, torch.float32)",
                "# the same normalisation written out in float64, differentiated by autograd",
                "xr = x64.clone().requires_grad_(True)",
                "wr = weight64.clone().requires_grad_(True)",
                "br = bias64.clone().requires_grad_(True)",
            ]
            if training:
                body += [
                    "mu = xr.mean(dim=(0, 2))",
                    "sigma2 = ((xr - mu[None, :, None]) ** 2).mean(dim=(0, 2))",
                    "normed = (xr - mu[None, :, None]) / torch.sqrt(sigma2 + eps)[None, :, None]",
                ]
            else:
                body += [
                    "normed = (xr - old_mean64[None, :, None]) / torch.sqrt(old_var64 + eps)[None, :, None]"
                ]
            body += [
                "y = normed * wr[None, :, None] + br[None, :, None]",
                "grads = torch.autograd.grad((y * grad_out64).sum(), (xr, wr, br))",
                f"result = {spelling}({args})",
                "self.assertEqual(len(result), 3)",
                'for index, what in enumerate(("grad_input", "grad_weight", "grad_bias")):',
                "    self.assertEqual(result[index].device.type, DEVICE.type)",
                "    torch.testing.assert_close(",
                "        result[index].cpu().double(), grads[index], rtol=1e-4, atol=1e-4, msg=what",
                "    )",
                "# the bias gradient is the channel sum of grad_out: 1 - 2 - 1 + 4, 0.5 + 3 + 2 - 0.5",
                "torch.testing.assert_close(result[2].cpu().double(), "
                "torch.tensor([2.0, 5.0], dtype=torch.float64), rtol=1e-5, atol=1e-5)",
            ]
        else:
            if "mean" in names and "invstd" in names:  # an element-wise kernel given the statistics
                body += [
                    f"save_mean = {_grouped(stats_mean)}.to(DEVICE, torch.float32)",
                    f"save_invstd = {_grouped(stats_invstd)}.to(DEVICE, torch.float32)",
                ]
            w = "weight64" if "weight" in names else "1.0"
            b = "bias64" if "bias" in names else "0.0"
            wc = _channel(w) if w != "1.0" else w
            bc = _channel(b) if b != "0.0" else b
            body += [
                "# the normalisation by hand: (x - mean) / sqrt(var + eps) * weight + bias, per channel",
                f"scale = {_grouped(stats_invstd)}[None, :, None]",
                f"expected = (x64 - {_channel(stats_mean)}) * scale * {wc} + {bc}",
                f"result = {spelling}({args})",
            ]
            if norm.get("returns", 1) > 1:
                body += ["output = result[0]"]
            else:
                body += ["output = result"]
            body += [
                "self.assertEqual(output.device.type, DEVICE.type)",
                "self.assertEqual(output.dtype, torch.float32)",
                "torch.testing.assert_close(output.cpu().double(), expected, rtol=1e-4, atol=1e-4)",
            ]
            if training and norm.get("returns", 1) >= 3:
                body += [
                    "# the batch statistics it saves: the mean and 1 / sqrt(var + eps) of each channel",
                    "torch.testing.assert_close(result[1].cpu().double(), mean64, rtol=1e-5, atol=1e-5)",
                    "torch.testing.assert_close(result[2].cpu().double(), invstd64, rtol=1e-4, atol=1e-4)",
                ]
            if "running_mean" in names:
                if training and norm.get("updates_running"):
                    body += [
                        "# running statistics move by momentum towards the batch's (unbiased variance)",
                        "torch.testing.assert_close(running_mean.cpu().double(), "
                        "(1 - momentum) * old_mean64 + momentum * mean64, rtol=1e-5, atol=1e-5)",
                        "torch.testing.assert_close(running_var.cpu().double(), "
                        "(1 - momentum) * old_var64 + momentum * unbiased64, rtol=1e-5, atol=1e-5)",
                    ]
                elif not training:
                    body += [
                        "# eval normalises with the running statistics and leaves them as they were",
                        "torch.testing.assert_close(running_mean.cpu().double(), old_mean64)",
                        "torch.testing.assert_close(running_var.cpu().double(), old_var64)",
                    ]
        body = _used(body)
        source = f"    def {test}_{mode}(self):\n" + "".join(f"        {line}\n" for line in body)
        out += split_methods(source)
    return out


def overload_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    ov = facts.get("overload") or {}
    if not ov.get("found"):
        raise CannotDecide(ov.get("problem") or "no overload facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    norm = ov.get("norm") or {}
    op = ov.get("opinfo") or {}
    methods: list[Method] = []
    imports: tuple[str, ...] = ()
    parts = []
    if norm.get("found"):
        methods += _norm_methods(spelling, test, norm)
        parts.append(
            "a 2 x 2 x 2 input whose channel statistics are worked out by hand, in "
            + " and ".join("training" if m else "eval" for m in norm["modes"])
            + ": the normalised output"
            + (
                ", its gradients against autograd of the normalisation written out in float64"
                if "grad_out" in norm["arguments"]
                else ", the saved statistics and the running statistics"
            )
        )
    if op.get("found") and op.get("dtypes"):
        methods += _opinfo_methods(spelling, test, ov, op, device)
        tol = ", ".join(
            f"torch.{k}: ({v[0]}, {v[1]})" for k, v in sorted((op.get("tolerances") or {}).items())
        )
        # values undefined: no value comparison, so neither its helper nor the one it reads
        unused = {"_assert_matches", "_on_cpu"} if op["reference"] == "meta" else set()
        methods += [
            Method(name, src, helper=True)
            for name, src in render_helpers(
                "opinfo_helpers.py.j2", device=device, tolerances="{" + tol + "}"
            )
            if name not in unused
        ]
        imports = (OPDB_IMPORT,)
        if op.get("captured"):
            imports += (DISPATCH_IMPORT,)
        ref = {
            "numpy": "OpInfo's NumPy reference",
            "seeded": "the OpInfo's function under the same seed",
            "meta": "the shape, dtype, layout, strides and requires_grad the meta kernels give (its values "
            "are undefined)",
        }.get(op["reference"], "the OpInfo's function in float64")
        what = (
            f"the arguments OpInfo {op['name']}'s function passes to the operator"
            if op.get("captured")
            else f"the sample inputs of OpInfo {op['name']} its schema accepts"
        )
        parts.append(f"{what}, for {', '.join(op['dtypes'])}, compared with {ref}")
    if not methods:
        raise CannotDecide(
            "; ".join(p for p in (norm.get("problem"), op.get("problem")) if p)
            or "neither an OpInfo entry nor a batch-norm schema"
        )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="overload",
        stem=stem,
        methods=tuple(methods),
        imports=imports,
        summary="; ".join(parts) + ".",
        coverage=coverage_rows(
            enum="training、eval"
            if norm.get("found")
            else "dtype：" + "、".join(op.get("dtypes") or []),
            types="按 schema 接受的参数类型筛选的样例输入"
            if op.get("found")
            else "schema 规定的参数",
            normal="设备计算结果与手工计算值或独立参考实现一致，结果位于被测设备",
        ),
        facts=facts,
    )
