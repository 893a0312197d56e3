"""The thread's dispatch-key state, saved before an API's facts and put back after.

Stdlib only (runs inside the environment under test; torch is passed in).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..protocol import TorchModule


def dispatch_tls(torch: TorchModule) -> Dict[str, Tuple[Any, Any]]:
    """The thread-local dispatch keys included and excluded now ({} where this torch cannot tell)."""
    keys = getattr(torch._C, "DispatchKey", None)
    inc: Any = getattr(torch._C, "_dispatch_tls_is_dispatch_key_included", None)
    exc: Any = getattr(torch._C, "_dispatch_tls_is_dispatch_key_excluded", None)
    out: Dict[str, Tuple[Any, Any]] = {}
    for name, key in (getattr(keys, "__members__", None) or {}).items():
        try:
            out[name] = (inc(key), exc(key))
        except Exception:
            continue
    return out


def restore_dispatch_tls(torch: TorchModule, saved: Dict[str, Tuple[Any, Any]]) -> List[str]:
    """Put back the dispatch keys an API's facts left included or excluded (a call of
    ``_enable_functionalization`` leaves ``Functionalize`` included); the names of those put back."""
    changed = []
    keys = getattr(torch._C, "DispatchKey", None)
    for name, value in dispatch_tls(torch).items():
        if name not in saved or saved[name] == value:
            continue
        key = getattr(keys, name)
        try:
            torch._C._dispatch_tls_set_dispatch_key_included(key, saved[name][0])
            torch._C._dispatch_tls_set_dispatch_key_excluded(key, saved[name][1])
            changed.append(name)
        except Exception:
            continue
    return changed


def mode_stacks(torch: TorchModule) -> Tuple[int, int]:
    """How many Python modes are entered now: (torch dispatch modes, torch function modes)."""
    c = torch._C
    return (
        c._len_torch_dispatch_stack() if hasattr(c, "_len_torch_dispatch_stack") else 0,
        c._len_torch_function_stack() if hasattr(c, "_len_torch_function_stack") else 0,
    )


def restore_mode_stacks(torch: TorchModule, saved: Tuple[int, int]) -> List[str]:
    """Leave the modes an API's facts entered and never left (``enable_cuda_sanitizer`` enters a
    dispatch mode for good, and every later CPU call then asks for CUDA); the names of those left.
    Each is left by its ``__exit__`` (which also resets the flags its ``__enter__`` set), else popped."""
    changed: List[str] = []
    c = torch._C
    get_mode: Optional[Callable[[], Any]]
    pop_mode: Optional[Callable[[], Any]]
    try:
        from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode

        get_mode, pop_mode = _get_current_dispatch_mode, _pop_mode
    except ImportError:
        get_mode = pop_mode = None
    stacks = (
        (lambda: mode_stacks(torch)[0], saved[0], get_mode, pop_mode),
        (
            lambda: mode_stacks(torch)[1],
            saved[1],
            lambda: c._get_function_stack_at(c._len_torch_function_stack() - 1),
            getattr(c, "_pop_torch_function_stack", None),
        ),
    )
    for depth, wanted, top, pop in stacks:
        while top is not None and pop is not None and depth() > wanted:
            before = depth()
            try:
                mode: Any = top()
                changed.append(type(mode).__name__)
                mode.__exit__(None, None, None)
            except Exception:
                pass
            if depth() >= before:  # its __exit__ did not leave it: taken off the stack
                try:
                    pop()
                except Exception:
                    break
    return changed
