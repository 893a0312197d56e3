"""Test helpers in the shape the backend's tests import them (``torch_npu.testing.testcase`` ...)."""
