"""The ``jitgraph`` family's scenarios of Python helpers of ``torch.jit`` and ``torch.fx``, by API.

A scenario is ``{"lines": [...], "restore": [...]}``, as ``jitgraph.py`` (which runs them) describes.
Data only (see ``__init__.py``).
"""

from __future__ import annotations

from typing import Dict, List

Scenario = Dict[str, List[str]]

X = "x = torch.tensor([1.0, -2.0, 3.0], device=DEVICE)"
Y = "y = torch.tensor([0.5, 4.0, -5.0], device=DEVICE)"
_SEQ = "torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())"

_PROXY: Scenario = {
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
}

_PROXYABLE_CLASS_META: Scenario = {
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
}


#: helpers of torch.jit and torch.fx that no other family writes a test of
PYTHON: Dict[str, Scenario] = {
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
    "torch.fx.proxy.Proxy": _PROXY,
    "torch.fx._symbolic_trace.ProxyableClassMeta": _PROXYABLE_CLASS_META,
    # scripted from source the test itself holds (here: a module ``inspect`` reads, see
    # ``jitgraph._module``)
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
    "torch.fx.Proxy": _PROXY,
    "torch.fx.ProxyableClassMeta": _PROXYABLE_CLASS_META,
}
