"""``from torch_npu.testing.testcase import TestCase, run_tests``: PyTorch's, plus ``assertRtolEqual``."""

import numpy as np
import torch
from torch.testing._internal.common_utils import TestCase as _TorchTestCase
from torch.testing._internal.common_utils import run_tests

__all__ = ["TestCase", "run_tests"]


def _array(value):
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:
            value = value.float()
        return value.numpy()
    return np.asarray(value)


class TestCase(_TorchTestCase):
    """PyTorch's TestCase with the backend's relative-error comparison."""

    def assertRtolEqual(
        self, expected, actual, prec=1.0e-4, prec16=1.0e-3, auto_trans_dtype=False, message=None
    ):
        """``expected`` and ``actual`` (arrays or tensors) agree within a relative error.

        The allowed error is ``prec`` (``prec16`` for float16/bfloat16) relative to the expected
        magnitude, and at least ``prec`` absolute for values near zero; NaNs must match."""
        a, b = _array(expected), _array(actual)
        if auto_trans_dtype and a.dtype != b.dtype:
            b = b.astype(a.dtype)
        self.assertEqual(
            a.shape, b.shape, msg=message or "shapes differ: %s vs %s" % (a.shape, b.shape)
        )
        if a.dtype == np.bool_ or b.dtype == np.bool_:
            self.assertTrue(np.array_equal(a, b), msg=message or "boolean arrays differ")
            return
        low = (
            a.dtype == np.float16
            or b.dtype == np.float16
            or (isinstance(expected, torch.Tensor) and expected.dtype == torch.bfloat16)
        )
        rtol = prec16 if low else prec
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        nan_a, nan_b = np.isnan(a64), np.isnan(b64)
        self.assertTrue(np.array_equal(nan_a, nan_b), msg=message or "NaN positions differ")
        ok = ~nan_a
        err = np.abs(a64[ok] - b64[ok])
        bound = rtol * np.maximum(np.abs(a64[ok]), 1.0)
        bad = err > bound
        if bad.any():
            worst = float(np.max(err - bound))
            self.fail(
                message
                or "%d of %d element(s) differ beyond rtol %g (worst excess %g)"
                % (int(bad.sum()), a64.size, rtol, worst)
            )
