"""wp.dtype_from_torch / wp.dtype_to_torch on every type, and which brickwork types may view a tensor's memory
(from_torch's dtype=), checked against Warp 1.19's tables and words."""

import pytest

import brickwork as wp
from brickwork.types.scalars import is_scalar_type

torch = pytest.importorskip("torch")

# torch dtype -> brickwork scalar, each way (Warp's pairs)
PAIRS = [(torch.float16, wp.float16), (torch.bfloat16, wp.bfloat16), (torch.float32, wp.float32),
         (torch.float64, wp.float64), (torch.int8, wp.int8), (torch.int16, wp.int16), (torch.int32, wp.int32),
         (torch.int64, wp.int64), (torch.uint8, wp.uint8), (torch.bool, wp.bool)]


@pytest.mark.parametrize("torch_dtype, ours", PAIRS, ids=lambda x: str(x))
def test_scalar_types_map_both_ways(torch_dtype, ours):
    assert wp.dtype_from_torch(torch_dtype) is ours
    assert wp.dtype_to_torch(ours) is torch_dtype


@pytest.mark.parametrize("bits", [16, 32, 64])
def test_wide_unsigned_types_come_from_torch_and_go_back_signed_as_in_warp(bits):
    ours = getattr(wp, f"uint{bits}")
    assert wp.dtype_to_torch(ours) is getattr(torch, f"int{bits}")  # Warp's table: torch has few uint ops
    assert wp.dtype_from_torch(getattr(torch, f"uint{bits}")) is ours  # torch >= 2.3 has the type itself


def test_python_types_stand_for_their_kernel_types():
    assert wp.dtype_to_torch(float) is torch.float32
    assert wp.dtype_to_torch(int) is torch.int32
    assert wp.dtype_to_torch(bool) is torch.bool


@pytest.mark.parametrize("torch_dtype", [torch.complex64, torch.complex128, torch.float8_e4m3fn, torch.qint8,
                                         "float32", None])
def test_types_brickwork_lacks_are_a_type_error_naming_them(torch_dtype):
    with pytest.raises(TypeError, match=f"Cannot convert {torch_dtype} to a Warp type"):
        wp.dtype_from_torch(torch_dtype)


def test_vector_matrix_and_struct_types_have_no_torch_type():
    with pytest.raises(TypeError, match=r"Cannot convert vec3f to a Torch type \(a vec3f array becomes a tensor "
                                        r"of float32 with trailing dimensions \(3,\)\)"):
        wp.dtype_to_torch(wp.vec3)
    with pytest.raises(TypeError, match=r"mat22d.*trailing dimensions \(2, 2\)"):
        wp.dtype_to_torch(wp.mat22d)

    @wp.struct
    class S:
        x: float

    with pytest.raises(TypeError, match="Cannot convert S to a Torch type$"):
        wp.dtype_to_torch(S)
    with pytest.raises(TypeError, match="Cannot convert str to a Torch type"):
        wp.dtype_to_torch(str)


# (tensor dtype, brickwork dtypes that view it): same-size integers of either sign, bool with 8-bit integers
VIEWS = [(torch.int64, [wp.int64, wp.uint64]), (torch.int32, [wp.int32, wp.uint32]),
         (torch.int16, [wp.int16, wp.uint16]), (torch.int8, [wp.int8, wp.uint8]),
         (torch.uint8, [wp.uint8, wp.int8]), (torch.bool, [wp.bool, wp.uint8, wp.int8]),
         (torch.uint32, [wp.uint32, wp.int32]), (torch.float16, [wp.float16]), (torch.bfloat16, [wp.bfloat16]),
         (torch.float32, [wp.float32, float]), (torch.float64, [wp.float64])]


@pytest.mark.parametrize("torch_dtype, allowed", VIEWS, ids=lambda x: str(x))
def test_from_torch_views_only_compatible_types(torch_dtype, allowed):
    t = torch.zeros(4, dtype=torch_dtype)
    for ours in allowed:
        a = wp.from_torch(t, dtype=ours)
        assert a.dtype is wp.types.scalars.python_annotation_type(ours) and a.ptr == t.data_ptr()
    others = [wp.float16, wp.float32, wp.float64, wp.int8, wp.int16, wp.int32, wp.int64, wp.uint8, wp.bool]
    for ours in others:
        if ours in allowed:
            continue
        with pytest.raises(RuntimeError, match=f"Cannot convert Torch type {torch_dtype} to Warp type "
                                               f"{ours.__name__}"):
            wp.from_torch(t, dtype=ours)


def test_vector_types_view_tensors_of_their_scalar_only():
    assert wp.from_torch(torch.zeros((2, 3), dtype=torch.float64), dtype=wp.vec3d).dtype is wp.vec3d
    assert wp.from_torch(torch.zeros((2, 3), dtype=torch.int32), dtype=wp.vec3ui).dtype is wp.vec3ui
    with pytest.raises(RuntimeError, match="Cannot convert Torch type torch.float64 to Warp type vec3f"):
        wp.from_torch(torch.zeros((2, 3), dtype=torch.float64), dtype=wp.vec3)


def test_every_torch_dtype_maps_or_is_refused():
    dtypes = {getattr(torch, n) for n in dir(torch) if isinstance(getattr(torch, n, None), torch.dtype)}
    mapped = {t: wp.dtype_from_torch(t) for t in dtypes if t in dict(PAIRS) or t in (torch.uint16, torch.uint32,
                                                                                       torch.uint64)}
    assert len(mapped) == 13
    for t in dtypes - set(mapped):
        with pytest.raises(TypeError, match="to a Warp type"):
            wp.dtype_from_torch(t)
    for t, ours in mapped.items():  # back to the same size (the unsigned ones as signed)
        assert wp.dtype_to_torch(ours).itemsize == t.itemsize


def test_every_public_brickwork_type_maps_or_is_refused():
    scalars = {v for v in vars(wp).values() if is_scalar_type(v)}
    assert len(scalars) == 14  # bool, int8-64, uint8-64, float16, bfloat16, float32, float64; handle (a uint64)
    assert wp.dtype_to_torch(wp.handle) is torch.int64
    scalars.discard(wp.handle)
    composites = [getattr(wp, n) for n in ("vec2", "vec3h", "vec4d", "mat22", "mat33d", "quat", "transform",
                                            "spatial_vector", "spatial_matrix")]
    for t in scalars:
        assert wp.dtype_from_torch(wp.dtype_to_torch(t)) in (t, getattr(wp, f"int{t._size * 8}", None))
    for t in composites:
        with pytest.raises(TypeError, match="trailing dimensions"):
            wp.dtype_to_torch(t)
