"""The calls torch's own code makes of its operators and private builtins, recorded once per agent process.

Every OpInfo entry's first samples with values (forward, and backward where it has one) and a few public
scenarios beyond OpInfo (``_scenarios``) are run under a ``TorchFunctionMode`` (which sees the
torch-level builtins: ``torch._pad_packed_sequence``, ``torch._C._nn.gelu``) and a
``TorchDispatchMode`` (which sees the ATen overloads below autograd); the arguments of the first small
calls of each are kept in ``_CALLS``, cloned before the call (so an in-place operator's input is the one
it was given); an operator with no call under ``MAX_ARGS`` elements keeps its smallest one up to
``MAX_LARGE_ARGS``. The ``recorded`` family's facts (``recorded.py``) read them.

Stdlib only apart from torch; Python 3.8.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Tuple

from ..protocol import TorchModule
from .literal import error_text
from .recipes.layout import BUILTIN_MODULES

#: the most tensor elements a recorded call's arguments may have
MAX_ARGS = 400
#: ... where an operator has no call that small (a 3-d pooling's backward): its smallest call up to this
MAX_LARGE_ARGS = 1500
#: recorded calls kept per operator
KEEP = 6
#: samples of each OpInfo entry run
SAMPLES = 2

#: a recorded call's key: ("function", id) or ("aten", qualified name, overload name)
Key = Tuple[Any, ...]
#: a recorded call: (the function, its arguments, its keyword arguments), cloned
Call = Tuple[Any, Tuple[Any, ...], Dict[str, Any]]

#: key -> the calls recorded; ``_DONE``: [""] once recorded, [why not] where recording failed
_CALLS: Dict[Key, List[Call]] = {}
_DONE: List[str] = []
#: key -> (its size, the smallest call over ``MAX_ARGS``), taken where the key has no smaller call
_LARGE: Dict[Key, Tuple[int, Call]] = {}


def _numel(torch: TorchModule, value: Any) -> int:
    from torch.utils._pytree import tree_flatten

    return sum(t.numel() for t in tree_flatten(value)[0] if isinstance(t, torch.Tensor))


def _plain(torch: TorchModule, value: Any) -> bool:
    """Whether every tensor in ``value`` is a plain strided tensor the test can write out."""
    from torch.utils._pytree import tree_flatten

    for t in tree_flatten(value)[0]:
        if isinstance(t, torch.Tensor):
            if type(t) is not torch.Tensor and type(t) is not torch.nn.Parameter:
                return False
            if (
                t.layout not in (torch.strided, torch.sparse_coo)
                or t.is_complex()
                or t.is_quantized
            ):
                return False
            if t.device.type != "cpu":
                return False
    return True


def _cloned(torch: TorchModule, value: Any) -> Any:
    from torch.utils._pytree import tree_map

    return tree_map(lambda t: t.detach().clone() if isinstance(t, torch.Tensor) else t, value)


def _keep(torch: TorchModule, key: Key, func: Any, args: Any, kwargs: Any) -> None:
    calls = _CALLS.setdefault(key, [])
    if len(calls) >= KEEP:
        return
    try:
        size = _numel(torch, (args, kwargs))
        if size > MAX_LARGE_ARGS or not _plain(torch, (args, kwargs)):
            return
        large = size > MAX_ARGS
        if large and (calls or key in _LARGE and _LARGE[key][0] <= size):
            return  # a small call, or a smaller large one, is kept already
        call = (func, _cloned(torch, tuple(args)), _cloned(torch, dict(kwargs or {})))
        if large:
            _LARGE[key] = (size, call)  # used only if no small call comes
        else:
            calls.append(call)
    except Exception:
        return


def _modes(torch: TorchModule) -> Tuple[Any, Any]:
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Functions(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            builtin = type(func).__name__ == "builtin_function_or_method"
            if builtin or getattr(func, "__module__", "") in BUILTIN_MODULES:
                _keep(torch, ("function", id(func)), func, args, kwargs)
            return func(*args, **kwargs)

    class Dispatch(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            schema = getattr(func, "_schema", None)
            if schema is not None:
                _keep(
                    torch,
                    ("aten", schema.name, schema.overload_name or "default"),
                    func,
                    args,
                    kwargs,
                )
            return func(*args, **kwargs)

    return Functions, Dispatch


def _empty(torch: TorchModule, value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.numel() == 0


def _record(torch: TorchModule) -> None:
    """Run every OpInfo entry's first samples (forward, and backward where it has one) under both modes."""
    if _DONE:
        return
    try:
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.utils._pytree import tree_flatten

        Functions, Dispatch = _modes(torch)
    except Exception as exc:  # said on every later API, not taken for "nothing calls it"
        _DONE.append("recording the calls torch makes failed: %s" % error_text(exc))
        return
    _DONE.append("")
    for op in op_db:
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            dtypes = (
                [torch.float32]
                if torch.float32 in op.supported_dtypes("cpu")
                else sorted(op.supported_dtypes("cpu"), key=str)[:1]
            )
            for dtype in dtypes:
                for grad in (
                    (False, True) if op.supports_autograd and dtype.is_floating_point else (False,)
                ):
                    try:
                        samples = op.sample_inputs("cpu", dtype, requires_grad=grad)
                        # the first samples with values: an empty one shows only shapes and dtypes
                        taken = (s for s in samples if not _empty(torch, s.input))
                        for n, sample in enumerate(taken):
                            if n >= SAMPLES:
                                break
                            with Functions(), Dispatch():
                                out = op.op(sample.input, *sample.args, **sample.kwargs)
                                outs = [
                                    o
                                    for o in tree_flatten(out)[0]
                                    if isinstance(o, torch.Tensor) and o.requires_grad
                                ]
                                if outs:
                                    torch.autograd.backward(
                                        outs, [torch.ones_like(o) for o in outs]
                                    )
                    except Exception:
                        continue
    for n, scenario in enumerate(_scenarios(torch)):
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            try:
                with Functions(), Dispatch():
                    scenario()
                if n < 3:  # the nn fast paths are taken only where no torch function mode is on
                    with Dispatch():
                        scenario()
            except Exception:
                continue

    for key, (_, call) in _LARGE.items():  # an operator with no small call: its smallest large one
        if not _CALLS.get(key):
            _CALLS[key] = [call]
    _LARGE.clear()


def _scenarios(torch: TorchModule) -> List[Callable[[], None]]:
    """Public code beyond OpInfo that reaches private builtins (fast paths of nn modules, packed sequences,
    the math attention kernel, the gradient scaler, foreach optimizers)."""
    nn, F = torch.nn, torch.nn.functional

    def attention() -> None:
        m = nn.MultiheadAttention(4, 2, batch_first=True).eval()
        x = torch.randn(1, 3, 4)
        with torch.no_grad():
            m(x, x, x, need_weights=False)

    def encoder() -> None:
        m = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True).eval()
        with torch.no_grad():
            m(torch.randn(1, 3, 4))

    def packed() -> None:
        p = nn.utils.rnn.pack_padded_sequence(torch.randn(3, 2, 2), [3, 2])
        nn.utils.rnn.pad_packed_sequence(p)

    def math_attention() -> None:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        q = torch.randn(1, 2, 3, 4)
        with sdpa_kernel(SDPBackend.MATH):
            F.scaled_dot_product_attention(q, q * 0.5, q + 1)

    def scaler() -> None:
        w = nn.Parameter(torch.tensor([1.0, -2.0]))
        opt = torch.optim.SGD([w], lr=0.1)
        s = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
        s.scale((w * w).sum()).backward()
        s.step(opt)
        s.update()

    def optimizers() -> None:
        for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
            w = nn.Parameter(torch.tensor([1.0, -2.0]))
            v = nn.Parameter(torch.tensor([0.5]))
            kw = {"momentum": 0.9} if cls is torch.optim.SGD else {}
            opt = cls([w, v], lr=0.1, foreach=True, **kw)
            for _ in range(2):
                opt.zero_grad()
                ((w * w).sum() + (v * 3).sum()).backward()
                opt.step()

    def fake_quant() -> None:
        m = torch.ao.quantization.FusedMovingAvgObsFakeQuantize()
        for _ in range(2):
            m(torch.randn(6))

    def sparse() -> None:
        s = torch.tensor([[0.0, 1.5, 0.0], [2.5, 0.0, -1.0]]).to_sparse()
        s.indices(), s.values(), s._indices(), s._values(), s.to_dense()
        torch.zeros(2, 3).to_sparse().copy_(s * 2)
        torch.sspaddmm(
            torch.zeros(2, 2).to_sparse(), s, torch.ones(3, 2), out=torch.zeros(2, 2).to_sparse()
        )
        torch.sparse_coo_tensor(s.indices(), s.values(), (2, 3), check_invariants=True)
        torch.sparse.spdiags(
            torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), torch.tensor([0, 1]), (3, 3)
        )
        torch.tensor([[0.0, 2.0]]).to_sparse().sum(0)

    def nested() -> None:
        torch.nested.nested_tensor([torch.randn(2, 4), torch.randn(3, 4)])
        m = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True),
            1,
            enable_nested_tensor=True,
        ).eval()
        with torch.no_grad():
            m(
                torch.randn(2, 3, 4),
                src_key_padding_mask=torch.tensor([[False, False, True], [False, False, False]]),
            )

    return [
        attention,
        encoder,
        nested,
        packed,
        math_attention,
        scaler,
        optimizers,
        fake_quant,
        sparse,
    ]
