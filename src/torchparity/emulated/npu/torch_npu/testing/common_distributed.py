"""Multi-device skips of the backend's tests."""

import functools
import unittest

from .. import npu

__all__ = ["skipIfUnsupportMultiNPU"]


def skipIfUnsupportMultiNPU(count):
    """Skip unless at least ``count`` NPUs are visible."""

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if npu.device_count() < count:
                raise unittest.SkipTest("needs %d NPUs; %d visible" % (count, npu.device_count()))
            return fn(*args, **kwargs)

        return wrapper

    return decorator
