"""The graph family's recipes: which torch.jit, torch.fx, torch.export and torch.compile names it
tests and how, and the lines that test the members whose checks differ by name.

The lines of ``JIT_FUNCTION_MEMBERS`` follow the scripted function's checks (``scripted``, ``x``);
those of ``FX_MEMBERS`` the traced module's (``gm``, its nodes ``placeholder``, ``linear``,
``relu``, ``add``, ``output``; ``net``, ``x``, ``expected``; a ``Tracer``'s ``tracer`` and
``graph``), keyed by the member's name, or by ``Class.member`` where only that class's member
gets them. ``{owner}`` is the member's class as the test spells it, ``{device}`` the test's
device; ``{{``/``}}`` are braces of the test's own code; an empty line is a blank line.
"""

#: torch.jit's captures, by what the test captures with: the API itself (``trace``, ``freeze``,
#: ``trace_module``, ``script``), or ``torch.jit.script`` (``save``/``load``, spelled where the
#: test saves or loads, and ``class``: a script module's class)
JIT = {
    "torch.jit._trace.trace": "trace",
    "torch.jit._script.script": "script",
    "torch.jit._trace.trace_module": "trace_module",
    "torch.jit._freeze.freeze": "freeze",
    "torch.jit._serialization.save": "save",
    "torch.jit._serialization.load": "load",
    "torch.jit._script.ScriptModule": "class",
    "torch.jit._script.RecursiveScriptModule": "class",
}
#: members of a script module tested by capturing one
JIT_MEMBERS = ("code", "graph", "inlined_graph")
#: the classes of scripted functions (the class and its members get the scripted function's test)
JIT_FUNCTION_CLASSES = ("ScriptFunction",)
#: torch.jit's flags: whether each is the scripting one (else the tracing one)
JIT_FLAGS = {
    "torch.jit._trace.is_tracing": False,
    "torch._jit_internal.is_scripting": True,
    "torch.jit.is_tracing": False,
    "torch.jit.is_scripting": True,
}
#: torch.fx: the classes (and their members) tested on a traced module, and the functions that
#: trace
FX_CLASSES = ("GraphModule", "Graph", "Node", "Tracer", "Interpreter", "Transformer")
FX_TRACE = ("torch.fx._symbolic_trace.symbolic_trace",)
FX_MODULE = "torch.fx"
#: torch.export's entry points
EXPORT = ("torch.export.export", "torch.export._trace._export")
#: the classes of exported programs, and the members tested on one: the lines that replace the
#: default list of the graph's ATen operators (``graph``) or the line that gets the exported
#: module (``module``)
EXPORTED_CLASSES = ("ExportedProgram",)
EXPORTED_MEMBERS: dict[str, dict[str, tuple[str, ...]]] = {
    "run_decompositions": {
        "graph": (
            "program = {owner}.run_decompositions(program)",
            "aten = [torch.ops.aten.permute.default, torch.ops.aten.addmm.default,",
            "        torch.ops.aten.relu.default, torch.ops.aten.add.Tensor]",
        ),
    },
    "module": {"module": ("module = {owner}.module(program)",)},
}
#: torch.compile and its spellings
COMPILE = (
    "torch.compile",
    "torch.compiler.compile",
    "torch._dynamo.eval_frame.optimize",
    "torch._dynamo.optimize",
)
#: what the family takes: everything under these modules, and these names
MODULES = ("torch.jit", "torch.fx", "torch.export")
ENTRY_POINTS = ("torch.compile", "torch.compiler.compile")

#: the openings of the graph-editing recipes: an unused node, a node doubling relu's output
_UNUSED_NODE = (
    "with gm.graph.inserting_after(relu):",
    "    unused = gm.graph.call_function(torch.neg, (relu,))",
    "self.assertIn(unused, list(gm.graph.nodes))",
    "self.assertEqual(len(list(gm.graph.nodes)), 6)",
)
_DOUBLED_NODE = (
    "with gm.graph.inserting_after(relu):",
    "    doubled = gm.graph.call_function(torch.mul, (relu, 2.0))",
)

JIT_FUNCTION_MEMBERS: dict[str, tuple[str, ...]] = {
    "save": (
        "with tempfile.TemporaryDirectory() as tmp:",
        '    path = os.path.join(tmp, "fn.pt")',
        "    {owner}.save(scripted, path)",
        "    loaded = torch.jit.load(path)",
        "torch.testing.assert_close(loaded(x.to({device})).cpu(), torch.tensor([0.0, 1.0, 4.0]))",
    ),
    "save_to_buffer": (
        "data = {owner}.save_to_buffer(scripted)",
        "self.assertIsInstance(data, bytes)",
        "loaded = torch.jit.load(io.BytesIO(data))",
        "torch.testing.assert_close(loaded(x.to({device})).cpu(), torch.tensor([0.0, 1.0, 4.0]))",
    ),
    "get_debug_state": (
        "scripted(x.to({device}))",
        "state = {owner}.get_debug_state(scripted)",
        "self.assertGreaterEqual(len(state.execution_plans), 1)",
    ),
}

FX_MEMBERS: dict[str, tuple[str, ...]] = {
    "find_nodes": (
        'self.assertEqual({owner}.find_nodes(gm.graph, op="call_function", target=torch.relu), [relu])',
        'self.assertEqual({owner}.find_nodes(gm.graph, op="placeholder"), [placeholder])',
    ),
    "graph_copy": (
        "copied = torch.fx.Graph()",
        "values = {owner}.graph_copy(copied, gm.graph, {{}})",
        "copied.output(values)",
        'self.assertEqual([n.op for n in copied.nodes], ["placeholder", "call_module", "call_function", "call_function", "output"])',
    ),
    "erase_node": _UNUSED_NODE
    + (
        "{owner}.erase_node(gm.graph, unused)",
        'self.assertEqual([n.name for n in gm.graph.nodes], ["x", "linear", "relu", "add", "output"])',
        "gm.graph.lint()",
        "gm.recompile()",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "eliminate_dead_code": _UNUSED_NODE
    + (
        "gm.graph.eliminate_dead_code()",
        'self.assertEqual([n.name for n in gm.graph.nodes], ["x", "linear", "relu", "add", "output"])',
        "gm.graph.lint()",
        "gm.recompile()",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "lint": _UNUSED_NODE
    + (
        "gm.graph.eliminate_dead_code()",
        'self.assertEqual([n.name for n in gm.graph.nodes], ["x", "linear", "relu", "add", "output"])',
        "{owner}.lint(gm.graph)",
        "gm.recompile()",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "recompile": _UNUSED_NODE
    + (
        "gm.graph.eliminate_dead_code()",
        'self.assertEqual([n.name for n in gm.graph.nodes], ["x", "linear", "relu", "add", "output"])',
        "gm.graph.lint()",
        "{owner}.recompile(gm)",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "replace_all_uses_with": _DOUBLED_NODE
    + (
        "{owner}.replace_all_uses_with(relu, doubled)",
        "doubled.update_arg(0, relu)",
        "gm.recompile()",
        "self.assertEqual(add.args[0], doubled)",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), torch.tensor([[4.0, 8.0, 1.0], [6.0, 1.0, 1.0]]))",
    ),
    "update_arg": _DOUBLED_NODE
    + (
        "{owner}.update_arg(add, 0, doubled)",
        "gm.recompile()",
        "self.assertEqual(add.args[0], doubled)",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), torch.tensor([[4.0, 8.0, 1.0], [6.0, 1.0, 1.0]]))",
    ),
    "replace_input_with": _DOUBLED_NODE
    + (
        "{owner}.replace_input_with(add, relu, doubled)",
        "gm.recompile()",
        "self.assertEqual(add.args[0], doubled)",
        "torch.testing.assert_close(gm(x.to({device})).cpu(), torch.tensor([[4.0, 8.0, 1.0], [6.0, 1.0, 1.0]]))",
    ),
    "python_code": (
        'code = {owner}.python_code(gm.graph, root_module="self").src',
        'self.assertIn("torch.relu(linear)", code)',
    ),
    "print_readable": (
        "code = {owner}.print_readable(gm, print_output=False)",
        'self.assertIn("torch.relu(linear)", code)',
    ),
    "Tracer.to_bool": (
        "# a proxy's __bool__, __iter__ and keys() ask the tracer (the documented hooks)",
        "probe = torch.fx.Tracer()",
        "probe.graph = torch.fx.Graph()",
        'value = probe.create_proxy("placeholder", "value", (), {{}})',
        "",
        "def branchy(v):",
        "    if v.sum() > 0:",
        "        return v + 1.0",
        "    return v - 1.0",
        "",
        'with self.assertRaisesRegex(torch.fx.proxy.TraceError, "inputs to control flow"):',
        "    torch.fx.Tracer().trace(branchy)",
        'with self.assertRaisesRegex(torch.fx.proxy.TraceError, "inputs to control flow"):',
        "    {owner}.to_bool(probe, value)",
    ),
    "Tracer.iter": (
        "# a proxy's __bool__, __iter__ and keys() ask the tracer (the documented hooks)",
        "probe = torch.fx.Tracer()",
        "probe.graph = torch.fx.Graph()",
        'value = probe.create_proxy("placeholder", "value", (), {{}})',
        "",
        "def looped(v):",
        "    total = v[0]",
        "    for row in v:",
        "        total = total + row",
        "    return total",
        "",
        'with self.assertRaisesRegex(torch.fx.proxy.TraceError, "Proxy object cannot be iterated"):',
        "    torch.fx.Tracer().trace(looped)",
        'with self.assertRaisesRegex(torch.fx.proxy.TraceError, "Proxy object cannot be iterated"):',
        "    {owner}.iter(probe, value)",
        "unpacked = torch.fx.symbolic_trace(lambda v: v[0] + v[1])",
        "torch.testing.assert_close(unpacked(x.to({device})).cpu(), torch.tensor([2.0, -1.0]))",
    ),
    "Tracer.keys": (
        "# a proxy's __bool__, __iter__ and keys() ask the tracer (the documented hooks)",
        "probe = torch.fx.Tracer()",
        "probe.graph = torch.fx.Graph()",
        'value = probe.create_proxy("placeholder", "value", (), {{}})',
        "keys = {owner}.keys(probe, value)",
        "self.assertIsInstance(keys, torch.fx.Proxy)",
        "self.assertEqual((keys.node.op, keys.node.target, keys.node.args),",
        '                 ("call_method", "keys", (value.node,)))',
        "",
        "def keyed(d):",
        "    return d.keys()",
        "",
        "keyed_graph = torch.fx.Tracer().trace(keyed)",
        "self.assertEqual([(n.op, n.target) for n in keyed_graph.nodes],",
        '                 [("placeholder", "d"), ("call_method", "keys"), ("output", "output")])',
        "keyed_gm = torch.fx.GraphModule(torch.nn.Module(), keyed_graph)",
        'self.assertEqual(list(keyed_gm({{"a": x.to({device}), "b": 2}})), ["a", "b"])',
    ),
    "Tracer.getattr": (
        "",
        "class Scaled(torch.nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        "        self.scale = torch.nn.Parameter(torch.tensor([2.0, 3.0]))",
        "",
        "    def forward(self, v):",
        "        return v * self.scale",
        "",
        "scaled = Scaled().to({device})",
        "scaled_graph = {owner}().trace(scaled)",
        "self.assertEqual([n.op for n in scaled_graph.nodes],",
        '                 ["placeholder", "get_attr", "call_function", "output"])',
        'self.assertEqual([n.target for n in scaled_graph.nodes][1], "scale")',
        "scaled_gm = torch.fx.GraphModule(scaled, scaled_graph)",
        "out = scaled_gm(torch.tensor([1.0, -1.0], device={device}))",
        "self.assertEqual(out.device.type, {device}.type)",
        "torch.testing.assert_close(out.cpu(), torch.tensor([2.0, -3.0]))",
    ),
    "Tracer.create_arg": (
        "self.assertEqual({owner}.create_arg(tracer, (1, [2.0], {{'k': None}})), (1, [2.0], {{\"k\": None}}))",
    ),
    "Tracer.path_of_module": (
        'self.assertEqual({owner}.path_of_module(tracer, net.linear), "linear")',
    ),
    "Tracer.is_leaf_module": (
        'self.assertTrue({owner}.is_leaf_module(tracer, net.linear, "linear"))',
    ),
    "Tracer.call_module": ('self.assertEqual([n.op for n in graph.nodes][1], "call_module")',),
    "Tracer.create_proxy": ('self.assertEqual([n.op for n in graph.nodes][1], "call_module")',),
    "GraphModule.add_submodule": (
        'self.assertTrue({owner}.add_submodule(gm, "extra.inner", torch.nn.ReLU()))',
        'self.assertIsInstance(gm.get_submodule("extra.inner"), torch.nn.ReLU)',
        'self.assertEqual([n for n, _ in gm.named_modules()], ["", "linear", "extra", "extra.inner"])',
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "GraphModule.delete_submodule": (
        'self.assertTrue(gm.add_submodule("extra.inner", torch.nn.ReLU()))',
        'self.assertIsInstance(gm.get_submodule("extra.inner"), torch.nn.ReLU)',
        'self.assertEqual([n for n, _ in gm.named_modules()], ["", "linear", "extra", "extra.inner"])',
        'self.assertTrue({owner}.delete_submodule(gm, "extra.inner"))',
        'self.assertFalse({owner}.delete_submodule(gm, "missing"))',
        'self.assertEqual([n for n, _ in gm.named_modules()], ["", "linear", "extra"])',
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
    "GraphModule.delete_all_unused_submodules": (
        'self.assertTrue(gm.add_submodule("extra.inner", torch.nn.ReLU()))',
        'self.assertIsInstance(gm.get_submodule("extra.inner"), torch.nn.ReLU)',
        'self.assertEqual([n for n, _ in gm.named_modules()], ["", "linear", "extra", "extra.inner"])',
        "{owner}.delete_all_unused_submodules(gm)",
        "# only what the graph calls stays",
        'self.assertEqual([n for n, _ in gm.named_modules()], ["", "linear"])',
        "torch.testing.assert_close(gm(x.to({device})).cpu(), expected)",
    ),
}
#: torch.fx's helpers (in ``FX_MODULE``), each tested on the nodes of a small graph (``x``, ``y``:
#: relu of x, ``z``: y + 1.0 with alpha 2.0); ``{C}``: the helper as spelled
FX_HELPERS: dict[str, tuple[str, ...]] = {
    "map_arg": (
        'mapped = {C}((x, [y, 3], {{"k": z}}), lambda n: n.name)',
        'self.assertEqual(mapped, ("x", ["relu", 3], {{"k": "add"}}))',
        'self.assertEqual({C}(z.args, lambda n: n.op), ("call_function", 1.0))',
    ),
    "map_aggregate": (
        'mapped = {C}((1, [2, (3,)], {{"k": 4}}), lambda v: v * 10)',
        'self.assertEqual(mapped, (10, [20, (30,)], {{"k": 40}}))',
    ),
    "has_side_effect": (
        "def effect(value):",
        "    return value",
        "",
        "self.assertIs({C}(effect), effect)",
        "self.assertIn(effect, torch.fx.node._side_effectful_functions)",
        "torch.fx.node._side_effectful_functions.discard(effect)",
    ),
    "_get_qualified_name": (
        'self.assertEqual({C}(torch.relu), "torch.relu")',
        'self.assertEqual({C}(torch.nn.functional.relu), "torch.nn.functional.relu")',
        'self.assertEqual({C}(y.target), "torch.relu")',
    ),
    "_type_repr": (
        'self.assertEqual({C}(torch.Tensor), "torch.Tensor")',
        'self.assertEqual({C}(int), "int")',
        'self.assertEqual({C}(None), "None")',
    ),
}
