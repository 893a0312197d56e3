"""``@instantiate_tests`` with ``@Dtypes(...)`` (and ``@Formats(...)``): one test per dtype (and format).

A method ``test_x(self, dtype, device="npu")`` decorated ``@Dtypes(torch.half, torch.float)`` in a
class decorated ``@instantiate_tests`` becomes ``test_x_float16`` and ``test_x_float32``, each
called with its dtype (and ``npu_format=`` for ``@Formats``).
"""

import functools
import inspect

__all__ = ["Dtypes", "Formats", "instantiate_tests"]


def Dtypes(*dtypes):
    def decorator(fn):
        fn.dtypes = tuple(dtypes)
        return fn

    return decorator


def Formats(*formats):
    def decorator(fn):
        fn.formats = tuple(formats)
        return fn

    return decorator


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _variant(fn, params, dtype, npu_format):
    @functools.wraps(fn)
    def test(self):
        kwargs = {}
        if dtype is not None:
            kwargs["dtype"] = dtype
        if npu_format is not None:
            kwargs["npu_format"] = npu_format
        if "device" in params and params["device"].default is inspect.Parameter.empty:
            kwargs["device"] = "npu"
        return fn(self, **kwargs)

    return test


def instantiate_tests(cls):
    for name, fn in list(vars(cls).items()):
        if not (name.startswith("test") and callable(fn)):
            continue
        dtypes = getattr(fn, "dtypes", None)
        formats = getattr(fn, "formats", None)
        if dtypes is None and formats is None:
            continue
        params = inspect.signature(fn).parameters
        delattr(cls, name)
        for dtype in dtypes or (None,):
            for npu_format in formats or (None,):
                parts = [name] + ([_dtype_name(dtype)] if dtype is not None else [])
                parts += ["format%s" % npu_format] if npu_format is not None else []
                variant = _variant(fn, params, dtype, npu_format)
                variant.__name__ = "_".join(parts)
                setattr(cls, variant.__name__, variant)
    return cls
