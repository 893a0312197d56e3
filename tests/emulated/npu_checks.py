"""What the emulated NPU must do, as a unittest file run with the emulated torch_npu on the path.

tests/emulated/test_backend.py runs it in a fresh interpreter (PYTHONPATH = the emulation's folder)
and asserts every test passed; run it by hand the same way to see one check fail.
"""

import os

import torch
import torch_npu
from torch.utils._python_dispatch import TorchDispatchMode
from torch_npu.testing.common_distributed import skipIfUnsupportMultiNPU
from torch_npu.testing.common_utils import SupportedDevices, create_common_tensor
from torch_npu.testing.decorator import Dtypes, instantiate_tests
from torch_npu.testing.testcase import TestCase, run_tests


class _Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


class TestRegistration(TestCase):
    def test_module_names(self):
        self.assertIs(torch.npu, torch_npu.npu)
        self.assertEqual(torch._C._get_privateuse1_backend_name(), "npu")
        self.assertEqual(torch_npu.__version__, "0.0.0+emulated")
        self.assertEqual(torch_npu.__emulated__, "cpu")
        self.assertIn("Emulated", torch.npu.get_device_name(0))

    def test_device_count_default_and_available(self):
        if (
            "ASCEND_RT_VISIBLE_DEVICES" in os.environ
            or "TORCH_NPU_EMULATED_DEVICE_COUNT" in os.environ
        ):
            self.skipTest("device visibility set from outside")
        self.assertTrue(torch.npu.is_available())
        self.assertEqual(torch.npu.device_count(), 2)
        self.assertEqual(torch.accelerator.current_accelerator().type, "npu")


class TestTensors(TestCase):
    def test_a_tensor_is_a_privateuse1_tensor_on_npu0(self):
        x = torch.tensor([1.0, 2.0], device="npu:0")
        self.assertEqual(x.device, torch.device("npu", 0))
        self.assertIs(type(x), torch.Tensor)
        self.assertIn("PrivateUse1", str(torch._C._dispatch_keys(x)))
        self.assertTrue(x.is_npu)
        self.assertEqual(x.untyped_storage().device.type, "npu")
        self.assertNotEqual(x.data_ptr(), 0)
        self.assertEqual((x * 3).cpu().tolist(), [3.0, 6.0])
        self.assertIn("device='npu:0'", repr(x))

    def test_ops_reach_the_device_with_npu_arguments(self):
        x = torch.ones(3, device="npu")
        with _Ops() as mode:
            y = torch.add(x, x)
        self.assertEqual(y.device.type, "npu")
        self.assertIn("aten.add.Tensor", mode.seen)
        with _Ops() as mode:  # made with the Python key excluded while the mode is on the stack
            z = torch.tensor([1.0, 2.0], device="npu:0")
        self.assertEqual(z.device.type, "npu")
        self.assertIn("aten.lift_fresh.default", mode.seen)

    def test_a_composite_kernels_wrapped_scalar_reaches_the_cpu_kernel_as_a_tensor(self):
        # remainder.Scalar calls remainder.Tensor_out with its 1 wrapped as a 0-dim tensor, which the
        # Python fallback is handed as a number (the support check of a distribution: value % 1 == 0)
        x = torch.tensor([1.5, 2.0, -3.0], device="npu")
        self.assertEqual((x % 1).cpu(), torch.tensor([0.5, 0.0, 0.0]))
        counts = torch.tensor([1, 2, 3], device="npu", dtype=torch.int32)
        self.assertEqual((counts % 2).dtype, torch.int32)  # the scalar does not promote
        self.assertEqual((x.half() % 2).dtype, torch.float16)

    def test_convolutions_and_their_gradients_match_the_cpu(self):
        # a backend's convolution is convolution_overrideable, its backward convolution_backward_overrideable
        torch.manual_seed(0)
        for module, shape in (
            (torch.nn.Conv2d(2, 3, 3, padding=1), (1, 2, 5, 5)),
            (torch.nn.ConvTranspose2d(2, 4, 3, stride=2, groups=2), (1, 2, 4, 4)),
        ):
            x = torch.randn(*shape, requires_grad=True)
            module(x).square().sum().backward()
            copy = __import__("copy").deepcopy(module).to("npu")
            copy.zero_grad()
            xd = x.detach().to("npu").requires_grad_()
            y = copy(xd)
            self.assertEqual(y.device.type, "npu")
            y.square().sum().backward()
            self.assertEqual(y.cpu(), module(x).detach(), atol=1e-5, rtol=1e-5)
            self.assertEqual(xd.grad.cpu(), x.grad, atol=1e-5, rtol=1e-5)
            self.assertEqual(copy.weight.grad.cpu(), module.weight.grad, atol=1e-5, rtol=1e-5)
            self.assertEqual(copy.bias.grad.cpu(), module.bias.grad, atol=1e-5, rtol=1e-5)

    def test_views_share_the_storage_and_writes_reach_the_base(self):
        a = torch.zeros(3, 4, device="npu")
        t = a.t()
        self.assertEqual(t.stride(), (1, 4))
        self.assertFalse(t.is_contiguous())
        self.assertEqual(a.view(-1).untyped_storage().data_ptr(), a.untyped_storage().data_ptr())
        a[1, 2] = 5
        self.assertEqual(t[2, 1].item(), 5.0)
        t[0, 0] = 7
        self.assertEqual(a[0, 0].item(), 7.0)
        self.assertEqual(t.reshape(-1).shape, (12,))
        row = a[1]
        row.add_(1)
        self.assertEqual(a.sum().item(), 5 + 7 + 4)

    def test_in_place_out_and_resize(self):
        x = torch.arange(4.0, device="npu")
        self.assertIs(x.mul_(2), x)
        self.assertEqual(x.cpu().tolist(), [0.0, 2.0, 4.0, 6.0])
        out = torch.empty(0, device="npu")
        torch.add(x, 1, out=out)
        self.assertEqual(out.cpu().tolist(), [1.0, 3.0, 5.0, 7.0])
        self.assertEqual(out.device.type, "npu")
        y = torch.ones(2, device="npu")
        y.resize_(6)
        self.assertEqual(y.shape, (6,))
        self.assertEqual(y[:2].cpu().tolist(), [1.0, 1.0])

    def test_an_out_argument_that_is_a_view_writes_into_its_base(self):
        base = torch.zeros(3, 4, device="npu")
        column = base[:, 1]  # strides (4,): not a dense tensor of its own
        torch.add(torch.ones(3, device="npu"), 2, out=column)
        self.assertEqual(base.cpu()[:, 1].tolist(), [3.0, 3.0, 3.0])
        self.assertEqual(base.sum().item(), 9.0)
        # a composite kernel that writes its result through such views (bmm.out, add.out)
        torch.manual_seed(0)
        a, b, c = torch.randn(8, 3), torch.randn(5, 3, 4), torch.randn(8, 4)
        dims = ([1, 3], [0], [1, 2], [2, 3])
        on_npu = torch._trilinear(a.to("npu"), b.to("npu"), c.to("npu"), *dims)
        torch.testing.assert_close(on_npu.cpu(), torch._trilinear(a, b, c, *dims))
        # a kernel that restrides an out tensor of the right size does it on the device too
        x = torch.randn(1, 3, 4, 4).to(memory_format=torch.channels_last)
        out_cpu, out_npu = torch.empty(1, 3, 2, 2), torch.empty(1, 3, 2, 2, device="npu")
        torch._C._nn.adaptive_avg_pool2d(x, (2, 2), out=out_cpu)
        torch._C._nn.adaptive_avg_pool2d(x.to("npu"), (2, 2), out=out_npu)
        self.assertEqual(out_npu.stride(), out_cpu.stride())
        torch.testing.assert_close(out_npu.cpu(), out_cpu)

    def test_set_and_is_set_to_keep_the_storage(self):
        t1 = torch.empty(3, 4, device="npu")
        t3 = torch.tensor([], device="npu").set_(t1)
        self.assertTrue(t1.is_set_to(t3) and t3.is_set_to(t1))
        self.assertFalse(t1.is_set_to(torch.empty(3, 4, device="npu")))

    def test_resize_fills_new_memory_when_asked(self):
        torch.use_deterministic_algorithms(True)
        try:
            x = torch.zeros(2, device="npu")
            x.resize_(5)
            self.assertEqual(x[:2].cpu().tolist(), [0.0, 0.0])
            self.assertTrue(x[2:].isnan().all().item())
            n = torch.zeros(1, dtype=torch.int32, device="npu").resize_(3)
            self.assertEqual(n[1:].cpu().tolist(), [2**31 - 1] * 2)
        finally:
            torch.use_deterministic_algorithms(False)

    def test_autograd_on_the_device(self):
        x = torch.tensor([1.0, 2.0], device="npu:0", requires_grad=True)
        (x * x).sum().backward()
        self.assertEqual(x.grad.device, x.device)
        self.assertEqual(x.grad.cpu().tolist(), [2.0, 4.0])
        layer = torch.nn.Linear(3, 2).npu()
        layer(torch.ones(4, 3, device="npu")).sum().backward()
        self.assertEqual(layer.weight.grad.device.type, "npu")

    def test_copies_between_devices(self):
        x = torch.arange(3, device="npu:0")
        self.assertEqual(x.to("npu:1").device, torch.device("npu", 1))
        self.assertEqual(x.cpu().device.type, "cpu")
        self.assertEqual(torch.arange(3).npu().device, torch.device("npu", 0))
        self.assertEqual(x.to(torch.float16).dtype, torch.float16)

    def test_two_devices_in_one_op_are_refused(self):
        with self.assertRaisesRegex(RuntimeError, "same device.*npu:0 and npu:1"):
            torch.ones(2, device="npu:0") + torch.ones(2, device="npu:1")
        with self.assertRaisesRegex(RuntimeError, "same device.*npu:0 and cpu"):
            torch.ones(2, device="npu:0") + torch.ones(2)
        self.assertEqual((torch.ones(2, device="npu") + torch.tensor(1.0)).device.type, "npu")

    def test_storage_spellings(self):
        s = torch.UntypedStorage(8, device="npu")
        self.assertEqual((s.device.type, s.nbytes()), ("npu", 8))
        self.assertEqual(torch.ones(3, device="npu").untyped_storage().clone().device.type, "npu")
        self.assertEqual(torch.BoolStorage([True, False]).to(device="npu").device.type, "npu")
        f = torch_npu.npu.FloatStorage([1.0, 2.0])
        self.assertIsInstance(f, torch_npu.npu.FloatStorage)
        self.assertEqual(f.tolist(), [1.0, 2.0])
        self.assertIsInstance(torch.npu.FloatTensor(2, 3), torch.npu.FloatTensor)
        self.assertNotIsInstance(torch.ones(2), torch.npu.FloatTensor)

    def test_autocast_lowers_matmul(self):
        a = torch.ones(2, 2, device="npu")
        with torch.autocast("npu"):
            self.assertEqual((a @ a).dtype, torch.float16)
            self.assertEqual((a + a).dtype, torch.float32)
        with torch_npu.npu.amp.autocast():
            self.assertTrue(torch.npu.is_autocast_enabled())
            self.assertEqual((a @ a).dtype, torch.float16)
        scaler = torch_npu.npu.amp.GradScaler(init_scale=2.0)
        self.assertEqual(scaler.scale(torch.full((1,), 4.0, device="npu")).item(), 8.0)
        self.assertIsInstance(scaler._scale, torch.npu.FloatTensor)


class TestDeviceModule(TestCase):
    def test_current_device_and_guard(self):
        self.assertEqual(torch.npu.current_device(), 0)
        with torch.npu.device(1):
            self.assertEqual(torch.npu.current_device(), 1)
            self.assertEqual(torch.ones(1, device="npu").device.index, 1)
        self.assertEqual(torch.npu.current_device(), 0)
        torch.npu.set_device("npu:1")
        try:
            self.assertEqual(torch.ones(1).npu().device.index, 1)
        finally:
            torch.npu.set_device(0)
        with self.assertRaisesRegex(RuntimeError, "Invalid device ordinal npu:5"):
            torch.npu.set_device(5)

    def test_seeds_are_per_device(self):
        torch.npu.manual_seed(7)
        a = torch.randn(4, device="npu")
        torch.npu.manual_seed(7)
        self.assertEqual(a, torch.randn(4, device="npu"))
        state = torch.npu.get_rng_state()
        b = torch.rand(3, device="npu")
        torch.npu.set_rng_state(state)
        self.assertEqual(b, torch.rand(3, device="npu"))
        torch.manual_seed(1)  # reaches the device module's manual_seed_all
        c = torch.randn(2, device="npu:1")
        torch.manual_seed(1)
        self.assertEqual(c, torch.randn(2, device="npu:1"))

    def test_streams_and_events(self):
        s = torch.npu.Stream()
        self.assertTrue(s.query())
        self.assertEqual(torch.npu.current_stream(), torch.npu.default_stream())
        with torch.npu.stream(s):
            self.assertEqual(torch.npu.current_stream(), s)
        self.assertNotEqual(torch.npu.current_stream(), s)
        start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
        start.record()
        end.record(s)
        end.synchronize()
        self.assertTrue(end.query())
        self.assertGreaterEqual(start.elapsed_time(end), 0.0)
        with self.assertRaisesRegex(RuntimeError, "enable_timing"):
            torch.npu.Event().elapsed_time(end)
        self.assertIs(s.record_event().query(), True)
        self.assertIsInstance(s, torch.Stream)
        self.assertIsInstance(start, torch.Event)
        torch.ones(2, device="npu").record_stream(s)
        self.assertEqual(torch.npu.Stream(device="npu:1").device, torch.device("npu", 1))
        torch.npu.synchronize()
        torch_npu.npu.synchronize(1)


@instantiate_tests
class TestDtypesDecorator(TestCase):
    @Dtypes(torch.float16, torch.int32)
    def test_each_dtype(self, dtype, device="npu"):
        self.assertEqual(torch.ones(2, dtype=dtype, device=device).dtype, dtype)

    def test_the_variants_exist(self):
        names = sorted(n for n in dir(type(self)) if n.startswith("test_each_dtype"))
        self.assertEqual(names, ["test_each_dtype_float16", "test_each_dtype_int32"])


class TestTestingHelpers(TestCase):
    def test_assert_rtol_equal(self):
        cpu, npu = create_common_tensor([__import__("numpy").float32, 0, (2, 3)], 1, 10)
        self.assertEqual(npu.device.type, "npu")
        self.assertRtolEqual(cpu, npu.cpu())
        with self.assertRaises(AssertionError):
            self.assertRtolEqual(cpu, cpu + 1)

    @SupportedDevices(["Ascend910B"])
    def test_supported_devices_skips_on_the_emulation(self):
        raise AssertionError("must be skipped: the emulated device is no Ascend910B")

    @skipIfUnsupportMultiNPU(2)
    def test_two_npus_are_there(self):
        self.assertEqual(torch.ones(1, device="npu:1").device.index, 1)


if __name__ == "__main__":
    run_tests()
