"""The ``autograd`` family's scenarios: gradients on the device, by hand and against the CPU.

One method a call (``test_<leaf>``), as ``scaffold/snippets.py`` reads them: the gradients of
y = sum(x * x) are 2x, of sin cos; the checks run at a float64 point.
"""

import unittest

import torch

DEVICE = torch.device("cpu")


class Snippets(unittest.TestCase):
    def test_grad(self):
        """first and second derivatives and weighted outputs"""
        API = torch.autograd.grad

        def inputs(device):
            return torch.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)

        x = inputs(DEVICE)
        x_cpu = inputs("cpu")
        (grad,) = API((x * x).sum(), x)
        (grad_cpu,) = API((x_cpu * x_cpu).sum(), x_cpu)
        self.assertEqual(grad.device.type, DEVICE.type)
        torch.testing.assert_close(grad.cpu(), torch.tensor([2.0, -4.0, 6.0]))
        torch.testing.assert_close(grad.cpu(), grad_cpu)
        self.assertIsNone(x.grad)
        (first,) = API((x * x * x).sum(), x, create_graph=True)
        (second,) = API(first.sum(), x)
        torch.testing.assert_close(second.cpu(), torch.tensor([6.0, -12.0, 18.0]))
        (weighted,) = API(x * x, x, grad_outputs=torch.tensor([1.0, 0.0, 2.0], device=DEVICE))
        torch.testing.assert_close(weighted.cpu(), torch.tensor([2.0, 0.0, 12.0]))

    def test_backward(self):
        """gradients accumulated into .grad"""
        API = torch.autograd.backward

        def inputs(device):
            return torch.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)

        x = inputs(DEVICE)
        x_cpu = inputs("cpu")
        API((x * x).sum())
        API((x_cpu * x_cpu).sum())
        self.assertEqual(x.grad.device.type, DEVICE.type)
        torch.testing.assert_close(x.grad.cpu(), torch.tensor([2.0, -4.0, 6.0]))
        torch.testing.assert_close(x.grad.cpu(), x_cpu.grad)
        API(x * x, grad_tensors=torch.tensor([1.0, 0.0, 2.0], device=DEVICE))
        # gradients accumulate: 2x + (1, 0, 2) * 2x
        torch.testing.assert_close(x.grad.cpu(), torch.tensor([4.0, -4.0, 18.0]))

    def test_run_backward(self):
        """the engine's backward pass, into .grad and as returned gradients"""
        API = torch.autograd.Variable._execution_engine.run_backward

        def inputs(device):
            return torch.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)

        x = inputs(DEVICE)
        x_cpu = inputs("cpu")
        y = (x * x).sum()
        API((y,), (torch.ones_like(y),), False, False, (), True, True)
        self.assertEqual(x.grad.device.type, DEVICE.type)
        torch.testing.assert_close(x.grad.cpu(), torch.tensor([2.0, -4.0, 6.0]))
        y_cpu = (x_cpu * x_cpu).sum()
        (grad,) = API((y_cpu,), (torch.ones_like(y_cpu),), False, False, (x_cpu,), True, False)
        torch.testing.assert_close(grad, torch.tensor([2.0, -4.0, 6.0]))

    def test_queue_callback(self):
        """a callback queued from a hook runs after it, within backward"""
        API = torch.autograd.Variable._execution_engine.queue_callback

        def inputs(device):
            return torch.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)

        x = inputs(DEVICE)
        order = []

        def hook(grad):
            API(lambda: order.append("callback"))
            order.append("hook")
            return grad

        x.register_hook(hook)
        (x * x).sum().backward()
        self.assertEqual(order, ["hook", "callback"])
        torch.testing.assert_close(x.grad.cpu(), torch.tensor([2.0, -4.0, 6.0]))
        with self.assertRaises(RuntimeError):
            API(lambda: None)

    def test_gradcheck(self):
        """true for functions with correct gradients, false for a wrong backward"""
        API = torch.autograd.gradcheck
        point = torch.tensor(
            [0.5, -1.0, 2.0], dtype=torch.float64, device=DEVICE, requires_grad=True
        )
        self.assertIs(API(torch.sin, (point,)), True)
        self.assertIs(API(lambda t: (t * t).sum(), (point,)), True)

        class WrongGrad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * t

            @staticmethod
            def backward(ctx, grad):
                return grad

        self.assertIs(API(WrongGrad.apply, (point,), raise_exception=False), False)
        with self.assertRaises(RuntimeError):
            API(WrongGrad.apply, (point,))

    def test_gradgradcheck(self):
        """true for functions with correct gradients, false for a wrong backward"""
        API = torch.autograd.gradgradcheck
        point = torch.tensor(
            [0.5, -1.0, 2.0], dtype=torch.float64, device=DEVICE, requires_grad=True
        )
        self.assertIs(API(torch.sin, (point,)), True)
        self.assertIs(API(lambda t: (t * t).sum(), (point,)), True)

        class WrongGrad(torch.autograd.Function):  # right first derivative, no second one
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t)
                return t * t

            @staticmethod
            def backward(ctx, grad):
                (t,) = ctx.saved_tensors
                return grad * 2 * t.detach()

        self.assertIs(API(WrongGrad.apply, (point,), raise_exception=False), False)
