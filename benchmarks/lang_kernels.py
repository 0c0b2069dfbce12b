"""The benchmark kernels in the kernel language (Warp's spelling).

:func:`make_kernels` takes the kernel-language module (``brickwork`` or ``warp``) and defines the
kernels with it, so the same source runs under either; ``wp`` reaches the kernels as a closure
variable, the way a user's kernels defined inside a function would see it.
"""

from __future__ import annotations

from types import SimpleNamespace


def make_kernels(wp) -> SimpleNamespace:
    """Define and return the benchmark kernels written with the module ``wp``."""

    @wp.kernel
    def scale_f16(x: wp.array(dtype=wp.float16), s: wp.float16):
        i = wp.tid()
        x[i] = s * x[i]

    @wp.kernel
    def scale_f32(x: wp.array(dtype=wp.float32), s: wp.float32):
        i = wp.tid()
        x[i] = s * x[i]

    @wp.kernel
    def scale_f64(x: wp.array(dtype=wp.float64), s: wp.float64):
        i = wp.tid()
        x[i] = s * x[i]

    @wp.kernel
    def saxpy_f32(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    @wp.kernel
    def laplacian3d_f32(a: wp.array3d(dtype=wp.float32), out: wp.array3d(dtype=wp.float32)):
        k, j, i = wp.tid()
        if k < 1 or k > a.shape[0] - 2 or j < 1 or j > a.shape[1] - 2 or i < 1 or i > a.shape[2] - 2:
            return
        out[k, j, i] = (
            a[k - 1, j, i]
            + a[k + 1, j, i]
            + a[k, j - 1, i]
            + a[k, j + 1, i]
            + a[k, j, i - 1]
            + a[k, j, i + 1]
            - 6.0 * a[k, j, i]
        )

    @wp.kernel
    def touch_f32(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    return SimpleNamespace(
        scale_f16=scale_f16,
        scale_f32=scale_f32,
        scale_f64=scale_f64,
        saxpy_f32=saxpy_f32,
        laplacian3d_f32=laplacian3d_f32,
        touch_f32=touch_f32,
    )
