"""Gradients shared with PyTorch: an array from a tensor that requires grad has a ``grad`` viewing ``t.grad``
(allocated when missing), so a wp.Tape backward writes into ``t.grad``; a ``torch.autograd.Function`` wrapping a
brickwork kernel, as in Warp's documentation, gives torch autograd's own gradient."""

import numpy as np
import pytest

import brickwork as wp

torch = pytest.importorskip("torch")


@wp.kernel
def _f(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i] * x[i]


@wp.kernel
def _f64(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i] * x[i]


@wp.kernel
def _norms(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(v[i])


def test_missing_grad_is_allocated_and_shared():
    t = torch.zeros(4, requires_grad=True)
    a = wp.from_torch(t)
    assert a.requires_grad and t.grad is not None
    assert a.grad.ptr == t.grad.data_ptr() and t.grad.tolist() == [0.0] * 4
    a.grad.fill_(3.0)
    assert t.grad.tolist() == [3.0] * 4


def test_existing_grad_is_viewed():
    t = torch.zeros(3, 2, requires_grad=True)
    t.grad = torch.ones(3, 2)
    a = wp.from_torch(t, dtype=wp.vec2)
    assert a.grad.ptr == t.grad.data_ptr() and a.grad.dtype is wp.vec2


def test_requires_grad_false_leaves_the_tensor_alone():
    t = torch.zeros(3, requires_grad=True)
    a = wp.from_torch(t, requires_grad=False)
    assert not a.requires_grad and a.grad is None and t.grad is None
    u = torch.zeros(3)
    b = wp.from_torch(u, requires_grad=True)  # asked for: allocated even though u does not require grad
    assert b.grad.ptr == u.grad.data_ptr()


def test_grad_of_a_strided_view_has_the_view_strides():
    base = torch.zeros(4, 6)
    t = base[:, ::2]
    a = wp.from_torch(t, requires_grad=True)
    assert a.grad.strides == a.strides == (24, 8)
    assert t.grad.stride() == t.stride()


def test_given_grad_tensor_or_array():
    t = torch.zeros(3)
    g = torch.full((3,), 2.0)
    a = wp.from_torch(t, grad=g)
    assert a.requires_grad and a.grad.ptr == g.data_ptr()
    h = wp.ones(3)
    assert wp.from_torch(t, grad=h).grad is h


def test_given_grad_that_does_not_fit_is_refused():
    t = torch.zeros(3)
    with pytest.raises(ValueError, match=r"grad must be an array of shape \(3,\)"):
        wp.from_torch(t, grad=wp.zeros(4))
    with pytest.raises(ValueError, match="dtype float32"):
        wp.from_torch(t, grad=wp.zeros(3, dtype=wp.float64))
    with pytest.raises(RuntimeError, match="Cannot convert Torch type torch.float64 to Warp type float32"):
        wp.from_torch(t, grad=torch.zeros(3, dtype=torch.float64))
    with pytest.raises(TypeError, match="grad must be a brickwork array or a torch.Tensor, got str"):
        wp.from_torch(t, grad="x")


def test_retain_grad():
    t = torch.zeros(3, requires_grad=True)
    assert wp.from_torch(t, retain_grad=True).retain_grad
    assert not wp.from_torch(t).retain_grad


def test_to_torch_links_the_gradient():
    a = wp.zeros(3, requires_grad=True)
    t = wp.to_torch(a)
    assert t.requires_grad and t.grad.data_ptr() == a.grad.ptr
    u = wp.to_torch(a, requires_grad=False)
    assert not u.requires_grad and u.grad is None
    with pytest.raises(RuntimeError, match="floating point"):  # torch's own refusal
        wp.to_torch(wp.zeros(3, dtype=int), requires_grad=True)


def test_tape_backward_writes_into_the_tensor_grad():
    x = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
    y = torch.zeros(3, requires_grad=True)
    xa, ya = wp.from_torch(x), wp.from_torch(y)
    tape = wp.Tape()
    with tape:
        wp.launch(_f, dim=3, inputs=[xa], outputs=[ya])
    tape.backward(grads={ya: wp.ones(3)})
    xs = x.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xs) * xs**2 + 2 * xs * np.sin(xs), rtol=1e-6)
    np.testing.assert_allclose(y.detach().numpy(), np.sin(xs) * xs**2, rtol=1e-6)


def test_tape_backward_of_vector_elements():
    v = torch.tensor([[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]], requires_grad=True)
    out = wp.zeros(2, requires_grad=True)
    va = wp.from_torch(v, dtype=wp.vec3)
    tape = wp.Tape()
    with tape:
        wp.launch(_norms, dim=2, inputs=[va], outputs=[out])
    tape.backward(grads={out: wp.ones(2)})
    expected = v.detach().numpy() / np.linalg.norm(v.detach().numpy(), axis=1, keepdims=True)
    np.testing.assert_allclose(v.grad.numpy(), expected, rtol=1e-6)


class _Sin(torch.autograd.Function):
    """y = sin(x) x^2 by a brickwork kernel, its gradient by the kernel's adjoint (Warp's documented pattern)."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x.detach()
        y = torch.empty_like(x)
        kernel = _f64 if x.dtype is torch.float64 else _f
        ctx.kernel = kernel
        ctx.y = y.detach()
        wp.launch(kernel, dim=len(x), inputs=[wp.from_torch(ctx.x, requires_grad=False)],
                  outputs=[wp.from_torch(ctx.y, requires_grad=False)])
        return y

    @staticmethod
    def backward(ctx, adj_y):
        adj_x = torch.zeros_like(ctx.x)
        wp.launch(ctx.kernel, dim=len(ctx.x), inputs=[wp.from_torch(ctx.x, requires_grad=False)],
                  outputs=[wp.from_torch(ctx.y, requires_grad=False)],
                  adj_inputs=[wp.from_torch(adj_x, requires_grad=False)],
                  adj_outputs=[wp.from_torch(adj_y.contiguous(), requires_grad=False)], adjoint=True)
        return adj_x


def test_autograd_function_matches_torch_autograd():
    x = torch.linspace(-2.0, 2.0, 9, requires_grad=True)
    weights = torch.arange(9, dtype=torch.float32)
    (_Sin.apply(x) * weights).sum().backward()
    ours = x.grad.clone()
    x.grad = None
    (torch.sin(x) * x * x * weights).sum().backward()
    torch.testing.assert_close(ours, x.grad)


def test_autograd_function_passes_gradcheck():
    x = torch.tensor([0.3, -1.2, 2.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(_Sin.apply, (x,), eps=1e-6, atol=1e-6)


def test_a_refused_tensor_keeps_its_grad():
    t = torch.zeros(2, 2, 2, 2, 2, requires_grad=True)
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        wp.from_torch(t)
    assert t.grad is None
    u = torch.zeros(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="inner shape"):
        wp.from_torch(u, dtype=wp.vec3)
    assert u.grad is None
