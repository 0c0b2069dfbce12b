"""Atomic updates under many OpenMP threads, and results that do not depend on the thread count."""

import numpy as np

import brickwork as wp

N = 100_000  # above config.parallel_threshold: the launch runs on several threads


@wp.kernel
def counting(ci: wp.array(dtype=int), cf: wp.array(dtype=float), cd: wp.array(dtype=wp.float64),
             ch: wp.array(dtype=wp.float16), cu: wp.array(dtype=wp.uint64), hist: wp.array2d(dtype=int)):
    i = wp.tid()
    ci[0] += 1  # augmented assignment on an array element is an atomic add
    ci[1] -= 2
    cf[0] += 1.0
    cd[0] += wp.float64(0.5)
    ch[0] += wp.float16(1.0)
    cu[0] += wp.uint64(3)
    hist[i % 3, i % 2] += 1
    wp.atomic_add(ci, 2, i % 5)
    wp.atomic_sub(cf, 1, 2.0)


@wp.kernel
def extremes(values: wp.array(dtype=float), ivalues: wp.array(dtype=int), lo: wp.array(dtype=float),
             hi: wp.array(dtype=float), ilo: wp.array(dtype=int), ihi: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_min(lo, 0, values[i])
    wp.atomic_max(hi, 0, values[i])
    wp.atomic_min(ilo, i % 2, ivalues[i])
    wp.atomic_max(ihi, i % 2, ivalues[i])


@wp.kernel
def claim_slots(counter: wp.array(dtype=int), slots: wp.array(dtype=int)):
    i = wp.tid()
    old = wp.atomic_add(counter, 0, 1)  # atomics return the previous value
    slots[old] = i


@wp.kernel
def composite_atomics(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), q: wp.array(dtype=wp.quat)):
    i = wp.tid()
    x = float(i % 100)
    v[0] += wp.vec3(1.0, 2.0, -1.0)
    wp.atomic_min(v, 1, wp.vec3(x, -x, 3.0))
    wp.atomic_max(v, 2, wp.vec3(x, -x, 3.0))
    m[0] += wp.mat22(1.0, 2.0, 3.0, 4.0)
    wp.atomic_sub(m, 1, wp.mat22(1.0, 0.0, 0.0, 1.0))
    q[0] += wp.quat(0.0, 0.0, 0.0, 1.0)


def test_atomic_counts_are_exact():
    ci = wp.zeros(3, dtype=wp.int32)
    cf = wp.zeros(2, dtype=wp.float32)
    cd = wp.zeros(1, dtype=wp.float64)
    ch = wp.zeros(1, dtype=wp.float16)
    cu = wp.zeros(1, dtype=wp.uint64)
    hist = wp.zeros((3, 2), dtype=wp.int32)
    wp.launch(counting, dim=N, inputs=[ci, cf, cd, ch, cu, hist])
    i = np.arange(N)
    assert ci.numpy().tolist() == [N, -2 * N, int(np.sum(i % 5))]
    assert cf.numpy().tolist() == [N, -2.0 * N]
    assert cd.numpy().tolist() == [0.5 * N]
    assert ch.numpy().tolist() == [2048.0]  # float16 saturates at 2048 + 1 == 2048, as numpy would
    assert cu.numpy().tolist() == [3 * N]
    expected = np.zeros((3, 2), dtype=np.int64)
    np.add.at(expected, (i % 3, i % 2), 1)
    assert hist.numpy().tolist() == expected.tolist()


def test_atomic_min_max():
    rng = np.random.default_rng(4)
    values = rng.standard_normal(N).astype(np.float32)
    ivalues = rng.integers(-10**6, 10**6, N).astype(np.int32)
    lo, hi = wp.full(1, np.inf, dtype=wp.float32), wp.full(1, -np.inf, dtype=wp.float32)
    ilo, ihi = wp.full(2, 2**31 - 1, dtype=wp.int32), wp.full(2, -2**31, dtype=wp.int32)
    wp.launch(extremes, dim=N, inputs=[wp.array(values), wp.array(ivalues), lo, hi, ilo, ihi])
    assert lo.numpy()[0] == values.min() and hi.numpy()[0] == values.max()
    assert ilo.numpy().tolist() == [ivalues[0::2].min(), ivalues[1::2].min()]
    assert ihi.numpy().tolist() == [ivalues[0::2].max(), ivalues[1::2].max()]


def test_atomic_add_returns_the_old_value():
    counter = wp.zeros(1, dtype=wp.int32)
    slots = wp.full(N, -1, dtype=wp.int32)
    wp.launch(claim_slots, dim=N, inputs=[counter, slots])
    assert counter.numpy()[0] == N
    assert np.array_equal(np.sort(slots.numpy()), np.arange(N))  # every slot claimed exactly once


def test_vector_matrix_quaternion_atomics_are_componentwise():
    v = wp.zeros(3, dtype=wp.vec3)
    m = wp.zeros(2, dtype=wp.mat22)
    q = wp.zeros(1, dtype=wp.quat)
    wp.launch(composite_atomics, dim=N, inputs=[v, m, q])
    assert v.numpy().tolist() == [[N, 2.0 * N, -N], [0.0, -99.0, 0.0], [99.0, 0.0, 3.0]]
    assert m.numpy().tolist() == [[[N, 2.0 * N], [3.0 * N, 4.0 * N]], [[-N, 0.0], [0.0, -N]]]
    assert q.numpy().tolist() == [[0.0, 0.0, 0.0, N]]


# -- results do not depend on the number of threads --------------------------------------------------


@wp.kernel
def busy(x: wp.array(dtype=float), y: wp.array2d(dtype=wp.float64), out: wp.array(dtype=float),
         out2: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    s = 0.0
    for k in range(i % 17):
        s += wp.sin(x[i] * float(k)) / (1.0 + float(k))
    out[i] = s * x[i] + wp.sqrt(wp.abs(x[i]))
    for j in range(y.shape[1]):
        out2[i, j] = wp.exp(y[i, j] * wp.float64(0.25)) - y[i, j] * y[i, j]


@wp.kernel
def busy2d(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = wp.tanh(x[i, j]) * float(i - j) + x[i, j] / (float(j) + 1.0)


def _run_busy(threads):
    rng = np.random.default_rng(9)
    x = wp.array(rng.standard_normal(N).astype(np.float32))
    y = wp.array(rng.standard_normal((N, 3)))
    out, out2 = wp.zeros(N), wp.zeros((N, 3), dtype=wp.float64)
    x2 = wp.array(rng.standard_normal((300, 301)).astype(np.float32))
    out3 = wp.zeros((300, 301))
    with wp.config.override(num_threads=threads):
        wp.launch(busy, dim=N, inputs=[x, y, out, out2])
        wp.launch(busy2d, dim=(300, 301), inputs=[x2, out3])
    return out.numpy().copy(), out2.numpy().copy(), out3.numpy().copy()


def test_results_independent_of_thread_count():
    one = _run_busy(1)
    two = _run_busy(2)
    four = _run_busy(4)
    for a, b, c in zip(one, two, four):
        assert a.tobytes() == b.tobytes() == c.tobytes()
    assert np.count_nonzero(one[0]) > N // 2  # the kernel did write


def test_serial_and_parallel_paths_agree():
    """Small launches run on one thread; forcing either path gives the same bits."""
    x = wp.array(np.linspace(-3, 3, 1000, dtype=np.float32).reshape(10, 100))
    results = []
    for threshold in (1, 10**9):
        out = wp.zeros((10, 100))
        with wp.config.override(parallel_threshold=threshold, num_threads=2):
            wp.launch(busy2d, dim=(10, 100), inputs=[x, out])
        results.append(out.numpy())
    assert results[0].tobytes() == results[1].tobytes()
    xn = x.numpy()
    i, j = np.meshgrid(np.arange(10), np.arange(100), indexing="ij")
    expected = np.tanh(xn) * (i - j).astype(np.float32) + xn / (j.astype(np.float32) + np.float32(1))
    np.testing.assert_allclose(results[0], expected, rtol=2e-6, atol=1e-6)
