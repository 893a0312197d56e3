"""The ``jitgraph`` family's scenarios of ``torch._C``: its passes, its ``_jit_*`` helpers, its IR
classes (``Graph``, ``Node``, ...) and the tensor-expression kernel (``torch._C._te``), and the IR and
lines they are built of.

A scenario is ``{"lines": [...], "restore": [...]}``, as ``jitgraph.py`` describes.
"""

from __future__ import annotations

from typing import Dict, List

from .recipes.jitgraph import X, Y

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
