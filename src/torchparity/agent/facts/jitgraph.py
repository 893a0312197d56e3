"""Facts of the ``jitgraph`` family: TorchScript IR objects, passes and ``torch._C._jit_*`` helpers.

Each scenario builds a small TorchScript graph (``torch._C.parse_ir`` of IR
written here, so its text carries no source path) or a scripted function or
module, calls the API (spelled ``API``; the test spells it by its name) and
reads back the documented structure: node kinds in order, value types, sizes,
the result the graph computes. The values the test holds are measured here on
the CPU; the test runs the same lines with ``DEVICE`` bound to the device under
test, so structure is compared exactly and results computed on the device.

A scenario is a list of lines:

* a plain line runs here and is written into the test;
* ``"= EXPR"`` is measured here and written as ``self.assertEqual(EXPR, <value>)``;
* ``"! LINE"`` is written into the test only (an assertion worked out by hand).

``restore`` lines run (and are written) in a ``finally``: a switch is put back.
"""

from __future__ import annotations

import linecache
import sys
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..protocol import Json, TorchModule
from .literal import NotLiteral, error_text, literal

#: IR of a function with a dead ``relu``: ``(x + x) * x``
IR_DEAD = [
    "graph(%x : Tensor):",
    "  %one : int = prim::Constant[value=1]()",
    "  %y : Tensor = aten::add(%x, %x, %one)",
    "  %z : Tensor = aten::mul(%y, %x)",
    "  %dead : Tensor = aten::relu(%x)",
    "  return (%z)",
]
#: ``relu(x + y)``: what the add-relu fusion matches
IR_ADD_RELU = [
    "graph(%x : Tensor, %y : Tensor):",
    "  %one : int = prim::Constant[value=1]()",
    "  %s : Tensor = aten::add(%x, %y, %one)",
    "  %r : Tensor = aten::relu(%s)",
    "  return (%r)",
]
#: a tuple built and taken apart again
IR_TUPLE = [
    "graph(%x : Tensor, %y : Tensor):",
    "  %t : (Tensor, Tensor) = prim::TupleConstruct(%x, %y)",
    "  %a : Tensor, %b : Tensor = prim::TupleUnpack(%t)",
    "  %one : int = prim::Constant[value=1]()",
    "  %s : Tensor = aten::sub(%a, %b, %one)",
    "  return (%s)",
]
#: the length of a list built from two tensors
IR_LIST_LEN = [
    "graph(%x : Tensor, %y : Tensor):",
    "  %l : Tensor[] = prim::ListConstruct(%x, %y)",
    "  %n : int = aten::len(%l)",
    "  return (%n)",
]
#: a complete input type: float32 of shape (2, 3) on the CPU
IR_TYPED = [
    "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):",
    "  %y : Tensor = aten::relu(%x)",
    "  %z : Tensor = aten::t(%y)",
    "  return (%z)",
]
#: ``x.t().t()``: peephole removes the double transpose? (measured)
IR_PEEP = [
    "graph(%x : Tensor):",
    "  %one : int = prim::Constant[value=1]()",
    "  %zero : int = prim::Constant[value=0]()",
    "  %y : Tensor = aten::add(%x, %zero, %one)",
    "  %z : Tensor = aten::mul(%y, %x)",
    "  return (%z)",
]
INLINE_SOURCE = "def inner(x):\\n    return x * 2\\n\\ndef outer(x):\\n    return inner(x) + 1\\n"


def _parse(var: str, ir: List[str]) -> List[str]:
    return (
        ['%s = torch._C.parse_ir("\\n".join([' % var]
        + ['    "%s",' % line for line in ir]
        + ["]))"]
    )


KINDS = "= [n.kind() for n in graph.nodes()]"
X = "x = torch.tensor([1.0, -2.0, 3.0], device=DEVICE)"
Y = "y = torch.tensor([0.5, 4.0, -5.0], device=DEVICE)"


def _interpret(args: str) -> List[str]:
    """The graph run by the interpreter on device tensors: its values, and its device by hand."""
    return [
        "out = torch._C._jit_interpret_graph(graph, (%s,))" % args,
        "! self.assertEqual(out.device.type, DEVICE.type)",
        "= out.cpu().tolist()",
    ]


def _switch(getter: str, setter: str, returns_old: bool) -> Dict[str, List[str]]:
    """A bool switch: each value set is read back (or the old value returned), then put back."""
    if returns_old:  # the setter returns the value it replaced
        return {
            "lines": [
                "old = API(True)",
                "= API(False)",
                "= API(True)",
                "= API(True)",
            ],
            "restore": ["API(old)"],
        }
    return {
        "lines": [
            "old = %s()" % getter,
            "%s(True)" % setter,
            "= %s()" % getter,
            "%s(False)" % setter,
            "= %s()" % getter,
        ],
        "restore": ["%s(old)" % setter],
    }


PASSES = {
    "_jit_pass_dce": {
        "lines": _parse("graph", IR_DEAD)
        + [KINDS, "= API(graph)", KINDS, "= [str(v.type()) for v in graph.outputs()]", X]
        + _interpret("x")
    },
    "_jit_pass_inline": {
        "lines": [
            'unit = torch.jit.CompilationUnit("%s")' % INLINE_SOURCE,
            "graph = unit.outer.graph.copy()",
            "= [n.kind() for n in graph.nodes() if n.kind() != 'prim::Constant']",
            "= API(graph)",
            "= [n.kind() for n in graph.nodes() if n.kind() != 'prim::Constant']",
            X,
        ]
        + _interpret("x")
    },
    "_jit_pass_fuse_add_relu": {
        "lines": _parse("graph", IR_ADD_RELU)
        + [KINDS, "= API(graph)", KINDS, X, Y]
        + _interpret("x, y")
    },
    "_jit_pass_lower_all_tuples": {
        "lines": _parse("graph", IR_TUPLE)
        + [KINDS, "= API(graph)", KINDS, X, Y]
        + _interpret("x, y")
    },
    "_jit_pass_erase_shape_information": {
        "lines": _parse("graph", IR_TYPED)
        + [
            "= [v.type().sizes() for v in graph.inputs()]",
            "= [v.type().scalarType() for v in graph.inputs()]",
            "= API(graph)",
            "= [v.type().sizes() for v in graph.inputs()]",
            "= [v.type().scalarType() for v in graph.inputs()]",
            KINDS,
        ]
    },
    "_jit_pass_propagate_shapes_on_graph": {
        "lines": _parse("graph", IR_TYPED)
        + [
            "= [v.type().sizes() for v in graph.outputs()]",
            "= API(graph)",
            "= [v.type().sizes() for v in graph.outputs()]",
            "= [v.type().scalarType() for v in graph.outputs()]",
        ]
    },
    "_jit_pass_propagate_device": {
        "lines": _parse("graph", IR_TYPED)
        + ["= API(graph)", "= [str(v.type().device()) for v in graph.outputs()]"]
    },
    "_jit_pass_complete_shape_analysis": {
        "lines": _parse(
            "graph",
            IR_ADD_RELU[:1]
            + [
                "  %s : Tensor = aten::mul(%x, %y)",
                "  %r : Tensor = aten::relu(%s)",
                "  return (%r)",
            ],
        )
        + [
            "= [v.type().scalarType() for v in graph.outputs()]",
            "= API(graph, (torch.ones(2, 3), torch.ones(2, 3)), False)",
            "= [v.type().sizes() for v in graph.outputs()]",
            "= [v.type().scalarType() for v in graph.outputs()]",
        ]
    },
    "_jit_pass_peephole": {
        "lines": _parse("graph", IR_PEEP) + [KINDS, "API(graph)", KINDS, X] + _interpret("x")
    },
    "_jit_pass_peephole_list_idioms": {
        "lines": _parse("graph", IR_LIST_LEN)
        + [
            KINDS,
            "= API(graph)",
            KINDS,
            "= [n.i('value') for n in graph.findAllNodes('prim::Constant')]",
        ]
    },
    "_jit_pass_canonicalize": {
        "lines": _parse("graph", IR_DEAD)
        + [
            "canonical = API(graph, False)",
            "= [v.debugName() for v in graph.inputs()]",
            "= [v.debugName() for v in canonical.inputs()]",
            "= [n.kind() for n in canonical.nodes()]",
        ]
    },
    "_jit_pass_custom_pattern_based_rewrite_graph": {
        "lines": _parse("graph", IR_ADD_RELU)
        + [
            "pattern = '\\n'.join([",
            "    'graph(%a, %b, %c):',",
            "    '  %s = aten::add(%a, %b, %c)',",
            "    '  %r = aten::relu(%s)',",
            "    '  return (%r)',",
            "])",
            "fused = '\\n'.join([",
            "    'graph(%a, %b, %c):',",
            "    '  %r = aten::_add_relu(%a, %b, %c)',",
            "    '  return (%r)',",
            "])",
            KINDS,
            "= API(pattern, fused, graph)",
            KINDS,
            X,
            Y,
        ]
        + _interpret("x, y")
    },
    "_jit_pass_remove_dropout": {
        "lines": [
            "frozen = torch._C._freeze_module(torch.jit.script(torch.nn.Dropout(0.5).eval())._c)",
            "= [n.kind() for n in frozen._get_method('forward').graph.nodes()]",
            "= API(frozen)",
            "= [n.kind() for n in frozen._get_method('forward').graph.nodes()]",
            "model = torch.jit._recursive.wrap_cpp_module(frozen)",
            X,
            "! self.assertEqual(model(x), x)  # no dropout left: the identity",
        ]
    },
    "_jit_pass_lint": {
        "lines": _parse("graph", IR_DEAD)
        + [
            "= API(graph)",
            "add, mul = graph.findNode('aten::add'), graph.findNode('aten::mul')",
            "mul.moveBefore(add)  # now mul reads a value not yet defined",
            "! with self.assertRaises(RuntimeError):",
            "!     API(graph)",
        ]
    },
}

HELPERS = {
    "_jit_interpret_graph": {
        "lines": _parse("graph", IR_DEAD)
        + [X]
        + _interpret("x")
        + ["! self.assertEqual(out.cpu(), (x.cpu() + x.cpu()) * x.cpu())  # (x + x) * x by hand"]
    },
    "_jit_get_operation": {
        "lines": [
            "op, overloads = API('aten::add')",
            "= 'Tensor' in overloads",
            X,
            Y,
            "out = op(x, y)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()",
            "= op(x, y, alpha=2).cpu().tolist()",
        ]
    },
    "_jit_get_schemas_for_operator": {
        "lines": [
            "schemas = API('aten::relu')",
            "= sorted(s.overload_name for s in schemas)",
            "= sorted({s.name for s in schemas})",
            "= sorted(str(s) for s in schemas)",
        ]
    },
    "_jit_flatten": {
        "lines": [
            X,
            Y,
            "flat, desc = API((x, (y, x)))",
            "= len(flat)",
            "! self.assertIs(flat[0], x)",
            "! self.assertIs(flat[1], y)",
            "= [t.cpu().tolist() for t in flat]",
            "back = torch._C._jit_unflatten(flat, desc)",
            "! self.assertIs(back[1][0], y)",
            "= len(back)",
        ]
    },
    "_jit_object_is_non_holding": {
        "lines": [
            "class Box:",
            "    def __init__(self, v: int):",
            "        self.v = v",
            "Box = torch.jit.script(Box)",
            "class Counter(torch.nn.Module):",
            "    def __init__(self):",
            "        super().__init__()",
            "        self.box = Box(3)",
            "    def forward(self, x):",
            "        box = self.box",
            "        box.v = box.v + 1",
            "        return x * box.v",
            "frozen = torch.jit.freeze(torch.jit.script(Counter()).eval())",
            "held = [n for n in frozen.graph.findAllNodes('prim::Constant') if n.output().type().kind() == 'ClassType']",
            "= len(held)  # freezing made the module's object a constant",
            "= API(held[0])  # a frozen object constant holds no strong reference",
            X,
            "out = frozen(x)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()  # (3 + 1) x by hand",
        ]
    },
    "_jit_debug_module_iterators": {
        "lines": [
            "model = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()))",
            "found = API(model._c)",
            "= sorted(found)",
            "= [name for name, _ in found['named_children']]",
            "= sorted(name for name, _ in found['named_parameters'])",
        ]
    },
    "_jit_can_fuse_on_gpu": {
        "lines": [
            "old = API()",
            "torch._C._jit_override_can_fuse_on_gpu(True)",
            "= API()",
            "torch._C._jit_override_can_fuse_on_gpu(False)",
            "= API()",
        ],
        "restore": ["torch._C._jit_override_can_fuse_on_gpu(old)"],
    },
    "_jit_override_can_fuse_on_gpu": {
        "lines": [
            "old = torch._C._jit_can_fuse_on_gpu()",
            "= API(True)",
            "= torch._C._jit_can_fuse_on_gpu()",
            "= API(False)",
            "= torch._C._jit_can_fuse_on_gpu()",
        ],
        "restore": ["API(old)"],
    },
    "_jit_texpr_fuser_enabled": _switch("API", "torch._C._jit_set_texpr_fuser_enabled", False),
    "_jit_set_texpr_fuser_enabled": {
        "lines": [
            "old = torch._C._jit_texpr_fuser_enabled()",
            "= API(True)",
            "= torch._C._jit_texpr_fuser_enabled()",
            "= API(False)",
            "= torch._C._jit_texpr_fuser_enabled()",
        ],
        "restore": ["API(old)"],
    },
    "_jit_set_texpr_reductions_enabled": _switch("", "", True),
    "_jit_set_profiling_executor": _switch("", "", True),
    "_jit_set_autocast_mode": _switch("", "", True),
    "_jit_get_te_must_use_llvm_cpu": _switch(
        "API", "torch._C._jit_set_te_must_use_llvm_cpu", False
    ),
    "_jit_debug_fuser_num_cached_kernel_specs": {
        "lines": ["= API()", "! self.assertIsInstance(API(), int)"]
    },
    "_jit_has_cpp_tests": {"lines": ["= API()"]},
}

#: TorchScript's IR classes: built and read through the class (``API``), so a stand-in class is seen
CLASSES = {
    "Graph": {
        "lines": [
            "graph = API()",
            "x_in = graph.addInput()",
            "relu = graph.create('aten::relu', [x_in])",
            "graph.appendNode(relu)",
            "= graph.registerOutput(relu.output())",
            "! self.assertIsInstance(graph, API)",
            KINDS,
            "= [v.unique() == x_in.unique() for v in graph.inputs()]",
            "= [u.user.kind() for u in x_in.uses()]",
            "= len(list(graph.inputs()))",
            X,
        ]
        + _interpret("x")
    },
    "Node": {
        "lines": _parse("graph", IR_DEAD)
        + [
            "mul = graph.findNode('aten::mul')",
            "! self.assertIsInstance(mul, API)",
            "= API.kind(mul)",
            "= [v.debugName() for v in API.inputsAt(mul, 0).node().outputs()] + [API.inputsAt(mul, 1).debugName()]",
            "= API.output(mul).debugName()",
            "= [u.user.kind() for u in API.output(mul).uses()]",
            "= API.kind(API.inputsAt(mul, 0).node())",
            "= API.i(graph.findNode('prim::Constant'), 'value')",
            "= API.hasUses(graph.findNode('aten::relu'))",
            "API.destroy(graph.findNode('aten::relu'))",
            KINDS,
            X,
        ]
        + _interpret("x")
    },
    "ScriptModule": {
        "lines": [
            "linear = torch.nn.Linear(2, 1)",
            "with torch.no_grad():",
            "    linear.weight.copy_(torch.tensor([[1.0, -1.0]]))",
            "    linear.bias.fill_(0.5)",
            "model = torch.jit.script(linear).to(DEVICE)",
            "! self.assertIsInstance(model._c, API)",
            "= API.hasattr(model._c, 'weight')",
            "= API.hasattr(model._c, 'missing')",
            "= API._has_method(model._c, 'forward')",
            "= sorted(API._method_names(model._c))",
            "= API.getattr(model._c, 'bias').cpu().tolist()",
            "out = model(torch.tensor([[3.0, 1.0]], device=DEVICE))",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()  # 3 - 1 + 0.5 by hand",
        ]
    },
}
_SEQ = "torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())"
#: helpers of torch.jit and torch.fx that no other family writes a test of
PYTHON = {
    "torch.jit._state.enable": {
        "lines": [
            "torch.jit._state.disable()",
            "= isinstance(torch.jit.script(torch.nn.ReLU()), torch.jit.ScriptModule)  # disabled: the module as is",
            "= API()",
            "= isinstance(torch.jit.script(torch.nn.ReLU()), torch.jit.ScriptModule)",
            X,
            "! self.assertEqual(torch.jit.script(torch.nn.ReLU())(x), torch.relu(x))",
        ],
        "restore": ["torch.jit._state.enable()"],
    },
    "torch.jit._wait": {
        "lines": [
            X,
            Y,
            "future = torch.jit._fork(torch.add, x, y, alpha=2)",
            "out = API(future)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()  # x + 2 * y by hand",
        ]
    },
    "torch.jit.export_opnames": {
        "lines": [
            "= API(torch.jit.script(torch.nn.Linear(2, 1)))",
            "= sorted(API(torch.jit.script(%s)))" % _SEQ,
        ]
    },
    "torch.jit.isinstance": {
        "lines": [  # builtin generics: Python >= 3.9
            "= API([1, 2], list[int])",
            "= API([1, 2], list[str])",
            "= API({'a': torch.ones(1, device=DEVICE)}, dict[str, torch.Tensor])",
            "= API({'a': torch.ones(1, device=DEVICE)}, dict[str, int])",
            "= API((1, 'a'), tuple[int, str])",
            "= API(torch.ones(1, device=DEVICE), list[torch.Tensor])",
        ]
    },
    "torch.jit.last_executed_optimized_graph": {
        "lines": [
            'unit = torch.jit.CompilationUnit("def f(x):\\n    return x * 2 + 1\\n")',
            X,
            "for _ in range(3):  # the profiling executor optimizes after its profiling runs",
            "    out = unit.f(x)",
            "= out.cpu().tolist()",
            "graph = API()",
            "! self.assertIsInstance(graph, torch._C.Graph)",
            "= [n.kind() for n in graph.nodes() if n.kind().startswith('aten::')]",
        ]
    },
    "torch.jit.run_frozen_optimizations": {
        "lines": [
            "model = torch.nn.Sequential(torch.nn.Linear(1, 1), torch.nn.BatchNorm1d(1)).eval()",
            "with torch.no_grad():",
            "    model[0].weight.fill_(2.0)",
            "    model[0].bias.fill_(1.0)",
            "    model[1].running_mean.fill_(1.0)",
            "    model[1].running_var.fill_(4.0 - 1e-5)",
            "frozen = torch.jit.freeze(torch.jit.script(model.to(DEVICE)), optimize_numerics=False)",
            "= 'aten::batch_norm' in [n.kind() for n in frozen.graph.nodes()]",
            "= API(frozen)",
            "= 'aten::batch_norm' in [n.kind() for n in frozen.graph.nodes()]  # folded into the linear layer",
            "x = torch.tensor([[1.0], [3.0]], device=DEVICE)",
            "out = frozen(x)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= [round(v, 4) for v in out.cpu().flatten().tolist()]  # (2x + 1 - 1) / 2 by hand: x",
        ]
    },
    "torch.jit.optimize_for_inference": {
        "lines": [
            "model = torch.nn.Sequential(torch.nn.Linear(1, 1), torch.nn.BatchNorm1d(1)).eval()",
            "with torch.no_grad():",
            "    model[0].weight.fill_(2.0)",
            "    model[0].bias.fill_(1.0)",
            "    model[1].running_mean.fill_(1.0)",
            "    model[1].running_var.fill_(4.0 - 1e-5)",
            "optimized = API(torch.jit.script(model.to(DEVICE)))",
            "! self.assertIsInstance(optimized, torch.jit.ScriptModule)",
            "= 'aten::batch_norm' in [n.kind() for n in optimized.graph.nodes()]  # folded away",
            "= [n for n, _ in optimized.named_parameters()]  # frozen: its parameters are constants",
            "x = torch.tensor([[1.0], [3.0]], device=DEVICE)",
            "= [round(v, 4) for v in optimized(x).cpu().flatten().tolist()]  # (2x + 1 - 1) / 2 by hand: x",
        ]
    },
    "torch.jit.frontend.get_jit_def": {
        "lines": [
            "definition = API(torch.nn.functional.hardtanh, 'hardtanh')",
            "= type(definition).__name__",
            "= definition.name().name",
        ]
    },
    "torch.fx.passes.split_module.split_module": {
        "lines": [
            "import torch.fx",
            "torch.manual_seed(0)",
            "traced = torch.fx.symbolic_trace(%s.to(DEVICE))" % _SEQ,
            "split = API(traced, traced, lambda node: 0 if node.target == '0' else 1)",
            "= [name for name, _ in split.named_children()]",
            "= [(n.op, str(n.target)) for n in split.graph.nodes]",
            "= [type(m).__name__ for m in split.submod_1.modules()]",
            "x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], device=DEVICE)",
            "! self.assertEqual(split(x), traced(x))",
            "! self.assertEqual(split(x).cpu(), traced.cpu()(x.cpu()))",
        ]
    },
    "torch.fx.proxy.Proxy": {
        "lines": [
            "import torch.fx",
            "graph = torch.fx.Graph()",
            "tracer = torch.fx.Tracer()",
            "tracer.graph = graph",
            "proxy = API(graph.placeholder('x'), tracer)",
            "! self.assertIsInstance(proxy, API)",
            "result = proxy * 2 + 1  # each operation on a proxy records a node",
            "graph.output(result.node)",
            "= [(n.op, str(n.target)) for n in graph.nodes]",
            "= [n.name for n in graph.nodes]",
            "module = torch.fx.GraphModule(torch.nn.Module(), graph)",
            X,
            "out = module(x)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()  # 2x + 1 by hand",
        ]
    },
    "torch.fx._symbolic_trace.ProxyableClassMeta": {
        "lines": [
            "import torch.fx",
            "class Pair(metaclass=API):",
            "    def __init__(self, a, b):",
            "        self.a = a",
            "        self.b = b",
            "def make(x):",
            "    pair = Pair(x, x * 2)  # its construction is recorded, not run, while tracing",
            "    return pair.a + pair.b",
            "traced = torch.fx.symbolic_trace(make)",
            "= [(n.op, getattr(n.target, '__name__', str(n.target))) for n in traced.graph.nodes]",
            X,
            "out = traced(x)",
            "! self.assertEqual(out.device.type, DEVICE.type)",
            "= out.cpu().tolist()  # x + 2x by hand",
            "= type(Pair(1, 2)).__name__  # outside tracing, a plain construction",
        ]
    },
}
#: scripted from source the test itself holds (here: a module ``inspect`` reads, see ``_module``)
PYTHON.update(
    {
        "torch.jit.Final": {
            "lines": [
                "class Scaled(torch.nn.Module):",
                "    scale: API[int]",
                "    def __init__(self):",
                "        super().__init__()",
                "        self.scale = 3",
                "    def forward(self, x):",
                "        return x * self.scale",
                "scripted = torch.jit.script(Scaled())",
                "= [n.kind() for n in scripted.graph.nodes()]  # a constant, not a prim::GetAttr",
                "= [n.i('value') for n in scripted.graph.findAllNodes('prim::Constant') if n.kindOf('value') == 'i']",
                X,
                "out = scripted(x)",
                "! self.assertEqual(out.device.type, DEVICE.type)",
                "= out.cpu().tolist()  # 3x by hand",
            ]
        },
        "torch.jit.interface": {
            "lines": [
                "@API",
                "class Doubler(torch.nn.Module):",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
                "        pass",
                "class Twice(torch.nn.Module):",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
                "        return x * 2",
                "class Holder(torch.nn.Module):",
                "    inner: Doubler",
                "    def __init__(self):",
                "        super().__init__()",
                "        self.inner = Twice()",
                "    def forward(self, x):",
                "        return self.inner.forward(x)",
                "scripted = torch.jit.script(Holder())",
                "= [n.kind() for n in scripted.graph.nodes()]  # a call through the interface",
                "= scripted.graph.findNode('prim::CallMethod').inputsAt(0).type().annotation_str.endswith('Doubler')",
                X,
                "out = scripted(x)",
                "! self.assertEqual(out.device.type, DEVICE.type)",
                "= out.cpu().tolist()  # 2x by hand",
            ]
        },
        "torch.jit._overload": {
            "lines": [
                "@API",
                "def twice(x: int) -> int:",
                "    pass",
                "@API",
                "def twice(x: float) -> float:  # noqa: F811",
                "    pass",
                "def twice(x):  # noqa: F811",
                "    return x * 2",
                "def both(a: int, b: float) -> float:",
                "    return twice(a) + twice(b)",
                "scripted = torch.jit.script(both)",
                "= [n.kind() for n in scripted.graph.nodes() if n.kind() != 'prim::Constant']",
                "= [str(n.output().type()) for n in scripted.graph.findAllNodes('prim::CallFunction')]",
                "= scripted(2, 1.5)  # 4 + 3.0 by hand",
            ]
        },
        "torch.jit._overload_method": {
            "lines": [
                "class Twice(torch.nn.Module):",
                "    @API",
                "    def twice(self, x: int) -> int:",
                "        pass",
                "    @API",
                "    def twice(self, x: float) -> float:  # noqa: F811",
                "        pass",
                "    def twice(self, x):  # noqa: F811",
                "        return x * 2",
                "    def forward(self, a: int, b: float) -> float:",
                "        return self.twice(a) + self.twice(b)",
                "scripted = torch.jit.script(Twice())",
                "= sorted(scripted._c._method_names())",
                "= scripted(2, 1.5)  # 4 + 3.0 by hand",
            ]
        },
        "torch.jit.frontend.FrontendError": {
            "lines": [
                "def uses_lambda(x):",
                "    return (lambda y: y)(x)",
                "try:",
                "    torch.jit.script(uses_lambda)",
                "    caught = None",
                "except API as exc:  # lambdas are not supported",
                "    caught = exc",
                "= type(caught).__name__",
                "= isinstance(caught, torch.jit.frontend.NotSupportedError)",
                "= 'Lambda' in str(caught)",
            ]
        },
        "torch.jit.frontend.NotSupportedError": {
            "lines": [
                "def variadic(x, *rest):",
                "    return x",
                "try:",
                "    torch.jit.script(variadic)",
                "    caught = None",
                "except API as exc:  # no variable number of arguments",
                "    caught = exc",
                "= type(caught).__name__",
                "= isinstance(caught, torch.jit.frontend.FrontendError)",
                "= 'variable number of arguments' in str(caught)",
            ]
        },
        "torch.jit.TracingCheckError": {
            "lines": [
                "def branchy(x):",
                "    if bool(x.sum() > 0):",
                "        return x * 2",
                "    return x - 1",
                "try:",
                "    torch.jit.trace(branchy, (torch.ones(2),), check_inputs=[(-torch.ones(2),)])",
                "    caught = None",
                "except API as exc:  # each input traces another graph",
                "    caught = exc",
                "= type(caught).__name__",
                "= 'Graphs differed across invocations' in str(caught)",
            ]
        },
    }
)
PYTHON["torch.fx.Proxy"] = PYTHON["torch.fx.proxy.Proxy"]
PYTHON["torch.fx.ProxyableClassMeta"] = PYTHON["torch.fx._symbolic_trace.ProxyableClassMeta"]

#: the tensor-expression kernel: compiled for the CPU with its IR interpreter (no LLVM needed)
TE = {
    "TensorExprKernel": {
        "lines": [
            "old = torch._C._jit_get_te_must_use_llvm_cpu()",
            "torch._C._jit_set_te_must_use_llvm_cpu(False)",
        ]
        + _parse(
            "graph",
            [
                "graph(%x : Float(3, strides=[1], requires_grad=0, device=cpu)):",
                "  %y : Float(3, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)",
                "  %z : Float(3, strides=[1], requires_grad=0, device=cpu) = aten::mul(%y, %y)",
                "  return (%z)",
            ],
        )
        + [
            "kernel = API(graph)",
            "! self.assertIsInstance(kernel, API)",
            "x = torch.tensor([1.0, -2.0, 3.0])  # the kernel is compiled for the CPU",
            "= kernel.run((x,)).tolist()  # relu(x) ** 2 by hand: [1, 0, 9]",
            "= kernel.fallback((x,)).tolist()",
        ],
        "restore": ["torch._C._jit_set_te_must_use_llvm_cpu(old)"],
    }
}

SCENARIOS: Dict[str, Dict[str, List[str]]] = {}
for _leaf, _scenario in list(PASSES.items()) + list(HELPERS.items()) + list(CLASSES.items()):
    SCENARIOS["torch._C." + _leaf] = _scenario
SCENARIOS.update(PYTHON)
for _leaf, _scenario in TE.items():
    SCENARIOS["torch._C._te." + _leaf] = _scenario


def scenario_for(res: Json) -> Tuple[Optional[str], Optional[Dict[str, List[str]]]]:
    """The scenario of the API (by any of its names), and its leaf; or (None, None)."""
    for name in [res.get("path", ""), res.get("canonical", "")] + list(res.get("aliases", [])):
        if name in SCENARIOS:
            return name.rsplit(".", 1)[-1], SCENARIOS[name]
    return None, None


def _expr(line: str) -> str:
    """The expression of a ``=`` line, without its comment."""
    return line[2:].split("  # ", 1)[0]


def _comment(line: str) -> str:
    return line.split("  # ", 1)[1] if "  # " in line else ""


_RUNS = [0]


def _module(torch: TorchModule, source: str) -> Tuple[types.ModuleType, str]:
    """A fresh module whose source ``inspect`` can read (``torch.jit.script`` of a function or class
    defined in the scenario reads it), as the test file's is."""
    _RUNS[0] += 1
    name = "torchparity_jitgraph_scenario_%d" % _RUNS[0]
    filename = "<%s>" % name
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    return module, filename


def _run_lines(torch: TorchModule, obj: Any, lines: List[str], restore: Sequence[str]) -> List[Any]:
    """Run the scenario's lines here, in a function as the test's method runs them; the measured
    value of each ``=`` line, in order."""
    code: List[str] = []
    for line in lines:
        if line.startswith("! "):
            continue
        code.append("__measured__.append(%s)" % _expr(line) if line.startswith("= ") else line)
    if restore:
        code = (
            ["try:"]
            + ["    " + line for line in code]
            + ["finally:"]
            + ["    " + line for line in restore]
        )
    source = (
        "def __scenario__():\n" + "".join("    %s\n" % line for line in code) + "\n__scenario__()\n"
    )
    module, filename = _module(torch, source)
    values: List[Any] = []
    module.__dict__.update(
        {"torch": torch, "API": obj, "DEVICE": torch.device("cpu"), "__measured__": values}
    )
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return values


def jitgraph_facts(torch: TorchModule, obj: Any, res: Json) -> Json:
    """``{"found": True, "leaf", "lines": [line or ["=", expr, literal, comment]], "restore"}``, or a problem."""
    leaf, scenario = scenario_for(res)
    if scenario is None:
        return {"found": False, "problem": "no TorchScript IR scenario for %s" % res.get("path")}
    lines, restore = scenario["lines"], scenario.get("restore") or []
    try:
        first = _run_lines(torch, obj, lines, restore)
        second = _run_lines(torch, obj, lines, restore)
    except Exception as exc:
        return {"found": False, "problem": "its scenario failed here: %s" % error_text(exc)}
    out: List[Any] = []
    index = 0
    for line in lines:
        if not line.startswith("= "):
            out.append(line)
            continue
        value, again = first[index], second[index]
        index += 1
        try:
            text = literal(value, torch)
        except NotLiteral as exc:
            return {"found": False, "problem": "%s gives no literal (%s)" % (line[2:], exc)}
        if text != literal(again, torch):
            continue  # differs between runs: not a fact
        out.append(["=", _expr(line), text, _comment(line)])
    return {"found": True, "leaf": leaf, "lines": out, "restore": list(restore)}
