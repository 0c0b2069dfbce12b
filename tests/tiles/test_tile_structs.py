"""Tiles of structs: ``+``, ``-``, ``+=``, ``-=``, ``tile_sum``, ``tile_scatter_add`` and ``tile_atomic_add``
field by field (fields of 32/64-bit numbers and floats add up, the others come from the left operand or stay
in the array), as Warp 1.19 does on the CPU; their gradients; and the operations Warp refuses on them. On
the CPU and on the GPU mapping (whose kernels NVRTC also compiles)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import KernelTypeError
from brickwork.types.scalars import bfloat16_values

pytestmark = pytest.mark.compiles_for_cuda


@pytest.fixture(autouse=True, params=["cpu", "cuda-emulation"])
def target(request):
    """Each test on the CPU and on the GPU mapping run on the CPU (whose instances also compile for CUDA)."""
    with config.override(target=request.param):
        yield request.param


N = 4


@wp.struct
class Inner:
    a: wp.float32
    flag: wp.bool


@wp.struct
class Rec:
    x: wp.float32
    v: wp.vec3
    n: wp.int32
    small: wp.int8
    tag: wp.uint16
    on: wp.bool
    inner: Inner


def _records(seed: int, count: int = N) -> np.ndarray:
    """Host records with distinct values in every field (as a structured numpy array)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(count, dtype=wp.array([Rec()] * 1, dtype=Rec).numpy().dtype)
    out["x"] = rng.integers(-8, 9, count)
    out["v"] = rng.integers(-8, 9, (count, 3))
    out["n"] = rng.integers(-50, 50, count)
    out["small"] = rng.integers(-9, 9, count)
    out["tag"] = rng.integers(0, 500, count)
    out["on"] = rng.integers(0, 2, count).astype(bool)
    out["inner"]["a"] = rng.integers(-8, 9, count)
    out["inner"]["flag"] = rng.integers(0, 2, count).astype(bool)
    return out


def _to_array(records: np.ndarray, requires_grad: bool = False):
    values = []
    for r in records:
        s = Rec()
        s.x, s.v, s.n = float(r["x"]), wp.vec3(*map(float, r["v"])), int(r["n"])
        s.small, s.tag, s.on = int(r["small"]), int(r["tag"]), bool(r["on"])
        inner = Inner()
        inner.a, inner.flag = float(r["inner"]["a"]), bool(r["inner"]["flag"])
        s.inner = inner
        values.append(s)
    return wp.array(values, dtype=Rec, requires_grad=requires_grad)


def _combined(a: np.ndarray, b: np.ndarray, sign: float) -> np.ndarray:
    """``a + sign * b`` field by field as Warp: x, v, n and inner.a combine; the others are a's."""
    out = a.copy()
    for path in (("x",), ("v",), ("n",), ("inner", "a")):
        dst, src_a, src_b = out, a, b
        for p in path[:-1]:
            dst, src_a, src_b = dst[p], src_a[p], src_b[p]
        dst[path[-1]] = src_a[path[-1]] + (sign * src_b[path[-1]]).astype(src_a[path[-1]].dtype)
    return out


def _assert_records(got: np.ndarray, expected: np.ndarray):
    for name in ("x", "v", "n", "small", "tag", "on"):
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    for name in ("a", "flag"):
        np.testing.assert_array_equal(got["inner"][name], expected["inner"][name], err_msg=f"inner.{name}")


# -- arithmetic ------------------------------------------------------------------------------------


@wp.kernel(enable_backward=False)
def arithmetic_kernel(a: wp.array(dtype=Rec), b: wp.array(dtype=Rec), added: wp.array(dtype=Rec),
                      subtracted: wp.array(dtype=Rec), in_place: wp.array(dtype=Rec), elements: wp.array(dtype=Rec)):
    t = wp.tile_load(a, shape=N)
    u = wp.tile_load(b, shape=N)
    wp.tile_store(added, t + u)
    wp.tile_store(subtracted, t - u)
    w = t + u
    w -= u
    w += u
    wp.tile_store(in_place, w)
    e = wp.tile_load(a, shape=N)
    e[1] += b[0]
    e[2] -= b[3]
    wp.tile_store(elements, e)


def test_add_and_subtract_combine_the_accumulating_fields_and_keep_the_left_operands_others():
    a, b = _records(1), _records(2)
    out = [wp.zeros(N, dtype=Rec) for _ in range(4)]
    wp.launch_tiled(arithmetic_kernel, dim=1, inputs=[_to_array(a), _to_array(b), *out], block_dim=8)
    added, subtracted, in_place, elements = (o.numpy() for o in out)
    _assert_records(added, _combined(a, b, 1.0))
    _assert_records(subtracted, _combined(a, b, -1.0))
    _assert_records(in_place, _combined(a, b, 1.0))
    expected = a.copy()
    expected[1] = _combined(a[1:2], b[0:1], 1.0)[0]
    expected[2] = _combined(a[2:3], b[3:4], -1.0)[0]
    _assert_records(elements, expected)


@wp.kernel(enable_backward=False)
def sum_kernel(a: wp.array(dtype=Rec), total: wp.array(dtype=Rec), columns: wp.array(dtype=Rec),
               scattered: wp.array(dtype=Rec)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(total, wp.tile_sum(t))
    wp.tile_store(columns, wp.tile_sum(wp.tile_reshape(t, shape=(2, 2)), axis=0))
    s = wp.tile_zeros(shape=1, dtype=Rec)
    for i in range(N):
        wp.tile_scatter_add(s, 0, a[i], i != 1)
    wp.tile_store(scattered, s)


def _fold(records: np.ndarray) -> np.ndarray:
    out = records[0:1].copy()
    for r in records[1:]:
        out = _combined(out, r[None], 1.0)
    return out


def test_tile_sum_and_scatter_add_fold_from_the_first_element():
    a = _records(3)
    total, columns, scattered = wp.zeros(1, dtype=Rec), wp.zeros(2, dtype=Rec), wp.zeros(1, dtype=Rec)
    wp.launch_tiled(sum_kernel, dim=1, inputs=[_to_array(a), total, columns, scattered], block_dim=8)
    _assert_records(total.numpy(), _fold(a))
    grid = a.reshape(2, 2)
    _assert_records(columns.numpy(), np.concatenate([_fold(grid[:, 0]), _fold(grid[:, 1])]))
    # into a zero struct: the zero's bools and narrow integers stay
    zero = np.zeros(1, dtype=a.dtype)
    _assert_records(scattered.numpy(), _combined(_combined(_combined(zero, a[0:1], 1.0), a[2:3], 1.0),
                                                 a[3:4], 1.0))


@wp.kernel(enable_backward=False)
def atomic_kernel(a: wp.array(dtype=Rec), into: wp.array(dtype=Rec), old: wp.array(dtype=Rec),
                  indices: wp.array(dtype=int), gathered: wp.array(dtype=Rec)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(old, wp.tile_atomic_add(into, t))
    wp.tile_atomic_add_indexed(gathered, indices=wp.tile_load(indices, shape=N), t=t, axis=0)


def test_atomic_add_adds_the_accumulating_fields_and_leaves_the_arrays_others():
    a, before = _records(4), _records(5)
    into, old, gathered = _to_array(before), wp.zeros(N, dtype=Rec), _to_array(before[:2])
    indices = np.array([1, 0, 1, 1], dtype=np.int32)
    wp.launch_tiled(atomic_kernel, dim=1, inputs=[_to_array(a), into, old, wp.array(indices), gathered],
                    block_dim=8)
    _assert_records(into.numpy(), _combined(before, a, 1.0))
    _assert_records(old.numpy(), before)  # what the elements held
    want = before[:2].copy()
    for k, i in enumerate(indices):
        want[i:i + 1] = _combined(want[i:i + 1], a[k:k + 1], 1.0)
    _assert_records(gathered.numpy(), want)


@wp.func
def add(a: Rec, b: Rec) -> Rec:  # a user operator: `+` of Rec values, not of their tiles' elements (as Warp)
    r = a
    r.x = a.x * 10.0 + b.x
    return r


@wp.kernel(enable_backward=False)
def user_operator_kernel(a: wp.array(dtype=Rec), values: wp.array(dtype=Rec), tiles: wp.array(dtype=Rec)):
    values[0] = a[0] + a[1]
    t = wp.tile_load(a, shape=N)
    wp.tile_store(tiles, t + t)


def test_a_user_add_serves_struct_values_and_tiles_add_field_by_field():
    a = _records(6)
    values, tiles = wp.zeros(1, dtype=Rec), wp.zeros(N, dtype=Rec)
    wp.launch_tiled(user_operator_kernel, dim=1, inputs=[_to_array(a), values, tiles], block_dim=8)
    assert values.numpy()["x"][0] == a["x"][0] * 10 + a["x"][1]
    _assert_records(tiles.numpy(), _combined(a, a, 1.0))


# -- gradients -------------------------------------------------------------------------------------


@wp.struct
class Pair:
    x: wp.float32
    v: wp.vec3


@wp.func
def weigh(s: Pair, w: float) -> float:
    return w * (s.x + 2.0 * s.v[0] + 3.0 * s.v[1] + 4.0 * s.v[2])


@wp.kernel
def gradient_kernel(a: wp.array(dtype=Pair), b: wp.array(dtype=Pair), w: wp.array(dtype=float),
                    loss: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=N)
    u = wp.tile_load(b, shape=N)
    d = (t + u) - u - u  # a - b
    d += t  # 2a - b
    total = wp.tile_sum(d)
    ws = wp.tile_load(w, shape=N)
    wp.tile_store(loss, wp.tile_sum(wp.tile_map(weigh, d, ws)))
    wp.tile_store(loss, wp.tile_map(weigh, total, 1.0), offset=1)


def _pairs(seed: int):
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(N):
        p = Pair()
        p.x, p.v = float(rng.normal()), wp.vec3(*rng.normal(size=3))
        values.append(p)
    return wp.array(values, dtype=Pair, requires_grad=True)


def test_gradients_flow_through_struct_tile_arithmetic_and_sums():
    a, b = _pairs(7), _pairs(8)
    w = wp.array(np.arange(1.0, N + 1.0, dtype=np.float32), requires_grad=True)
    loss = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(gradient_kernel, dim=1, inputs=[a, b, w, loss], block_dim=8)
    an, bn = a.numpy(), b.numpy()
    coef = np.array([2.0, 3.0, 4.0])
    d_x, d_v = 2 * an["x"] - bn["x"], 2 * an["v"] - bn["v"]
    np.testing.assert_allclose(loss.numpy(), [np.sum(w.numpy() * (d_x + d_v @ coef)),
                                              np.sum(d_x) + np.sum(d_v, axis=0) @ coef], rtol=1e-5)
    tape.backward(grads={loss: wp.array([1.0, 0.5], dtype=float)})
    per_element = w.numpy() + 0.5  # weights of the first loss, plus the second's
    ga, gb = a.grad.numpy(), b.grad.numpy()
    np.testing.assert_allclose(ga["x"], 2 * per_element, rtol=1e-6)
    np.testing.assert_allclose(ga["v"], 2 * per_element[:, None] * coef, rtol=1e-6)
    np.testing.assert_allclose(gb["x"], -per_element, rtol=1e-6)
    np.testing.assert_allclose(gb["v"], -per_element[:, None] * coef, rtol=1e-6)


@wp.kernel
def element_gradient_kernel(a: wp.array(dtype=Pair), b: wp.array(dtype=Pair), loss: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=N)
    t[1] += b[0]
    t[2] -= b[1]
    t[3] += t[1]  # a3 + a1 + b0
    wp.tile_store(loss, wp.tile_sum(wp.tile_map(weigh, t, 1.0)))


def test_gradients_flow_through_element_updates_of_a_struct_tile():
    a, b = _pairs(12), _pairs(13)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(element_gradient_kernel, dim=1, inputs=[a, b, loss], block_dim=8)
    uses_a, uses_b = np.array([1.0, 2.0, 1.0, 1.0]), np.array([2.0, -1.0, 0.0, 0.0])  # times each is counted
    coef = np.array([2.0, 3.0, 4.0])
    an, bn = a.numpy(), b.numpy()
    expected = sum(u @ (r["x"] + r["v"] @ coef) for u, r in ((uses_a, an), (uses_b, bn)))
    np.testing.assert_allclose(loss.numpy(), [expected], rtol=1e-5)
    tape.backward(loss)
    for u, g in ((uses_a, a.grad.numpy()), (uses_b, b.grad.numpy())):
        np.testing.assert_array_equal(g["x"], u.astype(np.float32))
        np.testing.assert_array_equal(g["v"], (u[:, None] * coef).astype(np.float32))


@wp.kernel
def atomic_gradient_kernel(a: wp.array(dtype=Pair), into: wp.array(dtype=Pair)):
    wp.tile_atomic_add(into, wp.tile_load(a, shape=N))


@wp.kernel
def weighed_kernel(into: wp.array(dtype=Pair), loss: wp.array(dtype=float)):
    wp.tile_store(loss, wp.tile_sum(wp.tile_map(weigh, wp.tile_load(into, shape=N), 1.0)))


def test_atomic_add_of_a_struct_tile_passes_the_arrays_gradient_back():
    a, into = _pairs(9), wp.zeros(N, dtype=Pair, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(atomic_gradient_kernel, dim=1, inputs=[a, into], block_dim=8)
        wp.launch_tiled(weighed_kernel, dim=1, inputs=[into, loss], block_dim=8)
    tape.backward(loss)
    np.testing.assert_array_equal(a.grad.numpy()["x"], np.ones(N, dtype=np.float32))
    np.testing.assert_array_equal(a.grad.numpy()["v"], np.tile([2.0, 3.0, 4.0], (N, 1)).astype(np.float32))


# -- what Warp refuses -----------------------------------------------------------------------------


@wp.func
def first_x(a: Pair, b: Pair) -> float:
    return a.x


@wp.kernel(enable_backward=False)
def refuse_ones(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, wp.tile_ones(N, dtype=Pair))


@wp.kernel(enable_backward=False)
def refuse_full_of_a_number(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, wp.tile_full(N, 2.0, dtype=Pair))


@wp.kernel(enable_backward=False)
def refuse_min(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, wp.tile_min(t))


@wp.kernel(enable_backward=False)
def refuse_argmax(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_argmax(t)


@wp.kernel(enable_backward=False)
def refuse_reduce_by_a_builtin(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, wp.tile_reduce(wp.min, t))


@wp.kernel(enable_backward=False)
def refuse_reduce_to_a_float(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, wp.tile_reduce(first_x, t))


@wp.kernel(enable_backward=False)
def refuse_bitwise_in_place(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    t &= t
    wp.tile_store(out, t)


@wp.kernel(enable_backward=False)
def refuse_bitwise_on_an_element(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    t[0] |= a[0]
    wp.tile_store(out, t)


@wp.kernel(enable_backward=False)
def refuse_negation(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, -t)


@wp.kernel(enable_backward=False)
def refuse_scaling(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, t * 2.0)


@wp.kernel(enable_backward=False)
def refuse_adding_a_value(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(out, t + a[0])


@pytest.mark.parametrize("kernel, message", [
    (refuse_ones,
     r"tile_ones\(\): a tile of the Warp struct Pair cannot be filled with the number 1 .*use tile_full\(\)"),
    (refuse_full_of_a_number,
     r"tile_full\(\): a tile of the Warp struct Pair cannot be filled with the number 2.0"),
    (refuse_min,
     r"tile_min\(\): 'a' must be a tile of a numeric scalar type: it does not support Warp struct tile elements"),
    (refuse_argmax, r"tile_argmax\(\): .*does not support Warp struct tile elements \(Pair\)"),
    (refuse_reduce_by_a_builtin,
     r"tile_reduce\(\): 'op' min has no overload accepting the Warp struct tile element type Pair"),
    (refuse_reduce_to_a_float,
     r"tile_reduce\(\): 'op' must return the tile element type Pair, got float32"),
    (refuse_bitwise_in_place,
     r"'&=' of a tile of Pair: bitwise inplace operators do not support Warp struct tile elements"),
    (refuse_bitwise_on_an_element,
     r"'\|=' of a tile element of Pair: bitwise inplace operators do not support Warp struct tile elements"),
    (refuse_negation, r"'unary -' of a tile of Pair: unary operators do not support Warp struct"),
    (refuse_scaling,
     r"'\*' of a tile of Pair: Warp struct tile elements support only '\+' and '-' \(field by field"),
    (refuse_adding_a_value,
     r"'\+' of a tile of Pair and a Pair value: Warp struct tile elements combine only with tiles of the same"),
])
def test_what_warp_refuses_on_struct_tiles_is_refused_before_anything_runs(kernel, message):
    a, out = _pairs(10), _pairs(11)
    before = out.numpy().copy()
    with pytest.raises(KernelTypeError, match=message):
        wp.launch_tiled(kernel, dim=1, inputs=[a, out], block_dim=8)
    np.testing.assert_array_equal(out.numpy(), before)


@wp.struct
class Wide:
    h: wp.float16
    bf: wp.bfloat16
    d: wp.vec3d
    m: wp.mat22d
    q: wp.quat
    big: wp.int64
    count: wp.uint32
    mark: wp.int16


@wp.kernel(enable_backward=False)
def wide_kernel(a: wp.array(dtype=Wide), total: wp.array(dtype=Wide), into: wp.array(dtype=Wide)):
    t = wp.tile_load(a, shape=N)
    wp.tile_store(total, wp.tile_sum(t + t))
    wp.tile_atomic_add(into, t)


def test_fields_of_every_width_accumulate_and_16_bit_integers_ride_along():
    values = []
    for i in range(N):
        w = Wide()
        w.h, w.bf, w.d = 0.5 * i, 2.0 * i, wp.vec3d(i, -i, 0.25 * i)
        w.m, w.q = wp.mat22d(i, 1.0, 2.0, -i), wp.quat(i, 0.0, 1.0, 2.0)
        w.big, w.count, w.mark = 2**40 + i, 7 * i, 100 + i
        values.append(w)
    a = wp.array(values, dtype=Wide)
    total, into = wp.zeros(1, dtype=Wide), wp.array(values[::-1], dtype=Wide)
    wp.launch_tiled(wide_kernel, dim=1, inputs=[a, total, into], block_dim=8)
    src, got, added = a.numpy(), total.numpy(), into.numpy()
    for name in ("h", "d", "m", "q", "big", "count"):
        np.testing.assert_array_equal(got[name][0], 2 * src[name].sum(axis=0), err_msg=name)
        np.testing.assert_array_equal(added[name], src[name] + src[name][::-1], err_msg=name)
    np.testing.assert_array_equal(bfloat16_values(got["bf"]), [2 * 2.0 * sum(range(N))])
    assert got["mark"][0] == 100  # the first element's (its own, not added: a 16-bit integer)
    np.testing.assert_array_equal(added["mark"], src["mark"][::-1])  # the array's, unchanged
