"""The inherited family's recipes: the classes and members it takes, and the lines that test each
``torch.nn.Module`` hook (and ``compile``) on a module with hand-set weights.

``HOOKS[leaf][script]`` holds the lines of the test of ``Module.<leaf>`` after ``net`` (the
template's ``Net``: a Linear(2, 3) ``linear`` and a buffer ``scale``) is made on the device, and
scripted where ``script``; ``{C}`` is the class as the test spells it, ``{leaf}`` the member,
``{device}`` the test's device; ``{{``/``}}`` are braces of the test's own code; an empty line is a
blank line.
"""

MODULE = "torch.nn.modules.module.Module"
SCRIPT_MODULES = ("torch.jit._script.ScriptModule", "torch.jit._script.RecursiveScriptModule")
#: the packages whose classes' Module members it takes, and torch.fx's
MODULE_PACKAGES = ("torch.nn.", "torch.jit.")
FX_PACKAGE = "torch.fx."
#: members with a test of their own on a ScriptModule only (a plain module's is the module family's)
SCRIPT_ONLY = ("add_module", "register_module")
SCRIPT_METHOD = ("torch.jit._script.script_method",)
INTERPRETER = "torch.fx.interpreter.Interpreter"
TRANSFORMER = "torch.fx.interpreter.Transformer"
TRACER = "torch.fx._symbolic_trace.Tracer"
#: the fx members it tests, each on the subclasses of its class
FX_MEMBERS = {"get_attr": INTERPRETER, "get_fresh_qualname": TRACER}
#: the imports a member's test needs
IMPORTS = {"compile": ("import torch._dynamo",)}

_X = "x = torch.tensor([[2.0, 1.0]], device={device}, requires_grad=True)"
#: a backward hook on a ScriptModule: recorded, but a call with it registered raises
_SCRIPT_BACKWARD_HEAD = (
    "seen = []",
    _X,
    "",
    "def hook(module, *grads):",
    "    seen.append(module)",
    "",
    "handle = {C}.{leaf}(net, hook)",
)
_SCRIPT_BACKWARD_TAIL = (
    "self.assertIs(hooks[handle.id], hook)",
    "# a ScriptModule runs no Python backward hook: a call with one registered raises",
    'with self.assertRaisesRegex(RuntimeError, "not supported on ScriptModules"):',
    "    net(x)",
    "handle.remove()",
    "self.assertNotIn(handle.id, hooks)",
    "out = net(x)",
    "# relu(x @ W.T + b) * scale, worked out by hand",
    "torch.testing.assert_close(out.detach().cpu(), torch.tensor([[3.0, 7.0, 0.0]]))",
    "out.sum().backward()",
    "torch.testing.assert_close(x.grad.cpu(), torch.tensor([[6.0, -1.0]]))",
    "self.assertEqual(seen, [])",
)
_FULL_BACKWARD_HOOK = (
    "seen = []",
    _X,
    "",
    "def hook(module, grad_input, grad_output):",
    "    seen.append((module, grad_input[0].cpu(), grad_output[0].cpu()))",
    "    return (grad_input[0] * 0.5,)",
    "",
    "handle = {C}.register_full_backward_hook(net, hook)",
    "out = net(x)",
    "# relu(x @ W.T + b) * scale, worked out by hand",
    "torch.testing.assert_close(out.detach().cpu(), torch.tensor([[3.0, 7.0, 0.0]]))",
    "out.sum().backward()",
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    "# d sum(out) / dx = scale * (W[0] + W[1]) (the third unit is cut by the relu), by hand",
    "torch.testing.assert_close(seen[0][1], torch.tensor([[6.0, -1.0]]))",
    "torch.testing.assert_close(seen[0][2], torch.ones(1, 3))",
    "# the gradient the hook returns replaces the input's",
    "torch.testing.assert_close(x.grad.cpu(), torch.tensor([[3.0, -0.5]]))",
    "self.assertEqual(x.grad.device.type, {device}.type)",
    "handle.remove()",
    "x.grad = None",
    "net(x).sum().backward()",
    "self.assertEqual(len(seen), 1)",
    "torch.testing.assert_close(x.grad.cpu(), torch.tensor([[6.0, -1.0]]))",
)
_FULL_BACKWARD_PRE_HOOK = (
    "seen = []",
    _X,
    "",
    "def hook(module, grad_output):",
    "    seen.append((module, grad_output[0].cpu()))",
    "    return (grad_output[0] * 2.0,)",
    "",
    "handle = {C}.register_full_backward_pre_hook(net, hook)",
    "out = net(x)",
    "torch.testing.assert_close(out.detach().cpu(), torch.tensor([[3.0, 7.0, 0.0]]))",
    "out.sum().backward()",
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    "torch.testing.assert_close(seen[0][1], torch.ones(1, 3))",
    "# twice the output gradient flows back: 2 * scale * (W[0] + W[1]), by hand",
    "torch.testing.assert_close(x.grad.cpu(), torch.tensor([[12.0, -2.0]]))",
    "self.assertEqual(x.grad.device.type, {device}.type)",
    "handle.remove()",
    "x.grad = None",
    "net(x).sum().backward()",
    "self.assertEqual(len(seen), 1)",
    "torch.testing.assert_close(x.grad.cpu(), torch.tensor([[6.0, -1.0]]))",
)
_STATE_DICT_PRE_HOOK = (
    "seen = []",
    "",
    "def hook(module, prefix, keep_vars):",
    "    seen.append((module, prefix, keep_vars))",
    "    module.scale.fill_(4.0)",
    "",
    "handle = {C}.register_state_dict_pre_hook(net, hook)",
    'state = net.state_dict(prefix="model.")',
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    'self.assertEqual(seen[0][1:], ("model.", False))',
    'self.assertEqual(list(state), ["model.scale", "model.linear.weight", "model.linear.bias"])',
    "# the hook ran before the state was read",
    'torch.testing.assert_close(state["model.scale"].cpu(), torch.full((3,), 4.0))',
    'self.assertEqual(state["model.scale"].device.type, {device}.type)',
    "handle.remove()",
    "net.state_dict(keep_vars=True)",
    "self.assertEqual(len(seen), 1)",
)
_STATE_DICT_POST_HOOK = (
    "seen = []",
    "",
    "def hook(module, state_dict, prefix, local_metadata):",
    "    seen.append((module, prefix))",
    '    state_dict[prefix + "step"] = torch.tensor(3)',
    "",
    "handle = {C}.register_state_dict_post_hook(net, hook)",
    'state = net.state_dict(prefix="model.")',
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    'self.assertEqual(seen[0][1], "model.")',
    'self.assertEqual(list(state), ["model.scale", "model.linear.weight", "model.linear.bias", "model.step"])',
    'self.assertEqual(int(state["model.step"]), 3)',
    'torch.testing.assert_close(state["model.linear.bias"].cpu(), torch.tensor([0.5, -1.0, 0.0]))',
    "handle.remove()",
    'self.assertEqual(list(net.state_dict()), ["scale", "linear.weight", "linear.bias"])',
    "self.assertEqual(len(seen), 1)",
)
_LOAD_STATE_DICT_POST_HOOK = (
    "seen = []",
    "",
    "def hook(module, incompatible_keys):",
    "    seen.append((module, list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)))",
    "    incompatible_keys.missing_keys.clear()",
    "",
    "handle = {C}.register_load_state_dict_post_hook(net, hook)",
    'partial = {{"linear.weight": torch.ones(3, 2), "linear.bias": torch.zeros(3)}}',
    "# strict: the hook clears the missing key before the check",
    "keys = net.load_state_dict(partial)",
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    'self.assertEqual(seen[0][1:], (["scale"], []))',
    "self.assertEqual((keys.missing_keys, keys.unexpected_keys), ([], []))",
    "torch.testing.assert_close(net.linear.weight.detach().cpu(), torch.ones(3, 2))",
    "self.assertEqual(net.linear.weight.device.type, {device}.type)",
    "handle.remove()",
    "with self.assertRaises(RuntimeError):",
    "    net.load_state_dict(partial)",
    "self.assertEqual(len(seen), 1)",
)
_SCRIPT_LOAD_STATE_DICT_PRE_HOOK = (
    "seen = []",
    "",
    "def hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):",
    "    seen.append(module)",
    "",
    "# a ScriptModule refuses a load_state_dict pre hook",
    'with self.assertRaisesRegex(RuntimeError, "not supported on ScriptModules"):',
    "    {C}.register_load_state_dict_pre_hook(net, hook)",
    'partial = {{"linear.weight": torch.ones(3, 2), "linear.bias": torch.zeros(3)}}',
    'self.assertEqual(net.load_state_dict(partial, strict=False).missing_keys, ["scale"])',
    "self.assertEqual(seen, [])",
)
_LOAD_STATE_DICT_PRE_HOOK = (
    "seen = []",
    "",
    "def hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):",
    "    seen.append((module, prefix, strict))",
    '    state_dict[prefix + "scale"] = torch.full((3,), 4.0)',
    "",
    "handle = {C}.register_load_state_dict_pre_hook(net, hook)",
    'partial = {{"linear.weight": torch.ones(3, 2), "linear.bias": torch.zeros(3)}}',
    "# strict: the hook adds the missing entry before the keys are compared",
    "keys = net.load_state_dict(partial)",
    "self.assertEqual((keys.missing_keys, keys.unexpected_keys), ([], []))",
    "self.assertEqual(len(seen), 1)",
    "self.assertIs(seen[0][0], net)",
    'self.assertEqual(seen[0][1:], ("", True))',
    "torch.testing.assert_close(net.scale.cpu(), torch.full((3,), 4.0))",
    "self.assertEqual(net.scale.device.type, {device}.type)",
    "handle.remove()",
    "with self.assertRaises(RuntimeError):",
    "    net.load_state_dict(partial)",
    "self.assertEqual(len(seen), 1)",
)
_COMPILE = (
    _X,
    "graphs = []",
    "",
    "def backend(gm, example_inputs):",
    "    graphs.append(gm)",
    "    return gm.forward",
    "",
    "torch._dynamo.reset()",
    "self.assertIsNone(net._compiled_call_impl)",
    "self.assertIsNone({C}.compile(net, backend=backend))",
    "self.assertIsNotNone(net._compiled_call_impl)",
    "out = net(x)",
    "self.assertEqual(out.device.type, {device}.type)",
    "# relu(x @ W.T + b) * scale, worked out by hand",
    "torch.testing.assert_close(out.detach().cpu(), torch.tensor([[3.0, 7.0, 0.0]]))",
    'torch.testing.assert_close(net(x).detach().cpu(), make("cpu")(x.detach().cpu()).detach())',
)
_COMPILE_GRAPH = (
    "# one graph, from the module's own call: placeholders first, the output last, relu inside",
    "self.assertEqual(len(graphs), 1)",
    "nodes = list(graphs[0].graph.nodes)",
    'self.assertEqual((nodes[0].op, nodes[-1].op), ("placeholder", "output"))',
    "self.assertIn(torch.relu, [n.target for n in nodes])",
)

#: the Module members it tests, on a plain module (False) and a scripted one (True)
HOOKS: dict[str, dict[bool, tuple[str, ...]]] = {
    "register_full_backward_hook": {
        False: _FULL_BACKWARD_HOOK,
        True: _SCRIPT_BACKWARD_HEAD + ("hooks = net._backward_hooks",) + _SCRIPT_BACKWARD_TAIL,
    },
    "register_full_backward_pre_hook": {
        False: _FULL_BACKWARD_PRE_HOOK,
        True: _SCRIPT_BACKWARD_HEAD + ("hooks = net._backward_pre_hooks",) + _SCRIPT_BACKWARD_TAIL,
    },
    "register_state_dict_pre_hook": {False: _STATE_DICT_PRE_HOOK, True: _STATE_DICT_PRE_HOOK},
    "register_state_dict_post_hook": {False: _STATE_DICT_POST_HOOK, True: _STATE_DICT_POST_HOOK},
    "register_load_state_dict_pre_hook": {
        False: _LOAD_STATE_DICT_PRE_HOOK,
        True: _SCRIPT_LOAD_STATE_DICT_PRE_HOOK,
    },
    "register_load_state_dict_post_hook": {
        False: _LOAD_STATE_DICT_POST_HOOK,
        True: _LOAD_STATE_DICT_POST_HOOK,
    },
    # the graph the backend gets is checked on a plain module only
    "compile": {
        False: _COMPILE + _COMPILE_GRAPH + ("torch._dynamo.reset()",),
        True: _COMPILE + ("torch._dynamo.reset()",),
    },
}
#: what each member's test checks
WHAT = {
    "register_full_backward_hook": "the gradients the hook sees, the input gradient it replaces, none after removal",
    "register_full_backward_pre_hook": "the output gradient the hook sees and replaces, none after removal",
    "register_state_dict_pre_hook": "the hook's arguments and a change it makes before the state is read",
    "register_state_dict_post_hook": "an entry the hook adds to the state, gone after removal",
    "register_load_state_dict_pre_hook": "an entry the hook adds to the state being loaded",
    "register_load_state_dict_post_hook": "the incompatible keys the hook sees and clears for a strict load",
    "compile": "the compiled call in place of the module's, its result against values worked out by hand",
}
