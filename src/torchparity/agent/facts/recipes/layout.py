"""Recipe data: where torch keeps things and how it names them, as the facts read them."""

from __future__ import annotations

#: torch's own namespace (a function's module, a class an annotation names)
TORCH = "torch"
#: the ``out=`` parameter of an ATen operator's out variant, and the end of its overload's name
OUT = "out"
#: how ATen names a backward kernel (``max_pool2d_with_indices_backward``, ``_backward_data``)
BACKWARD_SUFFIX = "_backward"
BACKWARD_INFIX = "_backward_"
#: the wrapper an OpInfo puts around an operator that draws random values under its own seed
SEEDED_WRAPPER = "wrapper_set_seed"
#: the member of torch's context managers that returns a fresh copy of one
CLONE_MEMBER = "clone"
#: the modules of torch's builtins whose functions are ATen operators (``torch._C._nn.gelu``)
BUILTIN_MODULES = (
    "torch",
    "torch._C._nn",
    "torch._C._linalg",
    "torch._C._special",
    "torch._C._fft",
)
#: the device module an API of one backend is documented under (``torch.cuda.<name>``)
DOCUMENTED_MODULES = ("torch.cuda",)
#: the members an nn module's call goes through
CALL_MEMBERS = ("forward", "__call__")
#: exceptions a checker raises for a wrong kind of argument, not as its verdict on a value
NOT_REFUSALS = ("TypeError", "AttributeError")
#: the placeholder a probe's call text names the API by (``_API_(x)``), bound to the API where it runs
API = "_API_"
#: the names a probe's call binds itself: an argument's variable takes none of them
ARGUMENT_RESERVED = ("self", "cls", "torch", "os", "result", "tmp")
#: the names a tensor-kind call binds itself (its tensor is ``x``): a variable takes none of them
KIND_RESERVED = ("self", "cls", "input", "torch", "result")
#: the first parameter a call through a receiver or a class fills itself
RECEIVER_PARAMS = ("self", "cls", "input")
#: an FX graph node's kind for a call of a function (an ATen operator in an exported program)
FX_CALL = "call_function"
