"""Recipe data of the ``jitgraph`` family (``scaffold/jitgraph.py``): the TorchScript bindings,
IR classes and torch.jit / torch.fx helpers the agent has a scenario of."""

from __future__ import annotations

#: the prefix of TorchScript's C bindings
PREFIX = "torch._C._jit_"
#: TorchScript's IR classes the agent has a scenario of
CLASSES = (
    "torch._C.Graph",
    "torch._C.Node",
    "torch._C.ScriptModule",
    "torch._C._te.TensorExprKernel",
)
#: helpers of torch.jit and torch.fx the agent has a scenario of (no other family writes their test)
HELPERS = (
    "torch.jit._state.enable",
    "torch.jit._wait",
    "torch.jit.export_opnames",
    "torch.jit.isinstance",
    "torch.jit.last_executed_optimized_graph",
    "torch.jit.run_frozen_optimizations",
    "torch.jit.optimize_for_inference",
    "torch.jit.frontend.get_jit_def",
    "torch.fx.passes.split_module.split_module",
    "torch.fx.proxy.Proxy",
    "torch.fx.Proxy",
    "torch.fx._symbolic_trace.ProxyableClassMeta",
    "torch.fx.ProxyableClassMeta",
    "torch.jit.Final",
    "torch.jit.interface",
    "torch.jit._overload",
    "torch.jit._overload_method",
    "torch.jit.frontend.FrontendError",
    "torch.jit.frontend.NotSupportedError",
    "torch.jit.TracingCheckError",
    "torch.jit._trace.TracingCheckError",
    "torch.jit._script.interface",
    "torch._jit_internal._overload",
    "torch._jit_internal._overload_method",
    "torch._jit_internal.Final",
)
