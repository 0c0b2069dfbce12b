"""Surface nets (``brickwork.geometry.IsoSurfaceNets``): the case tables, the extraction against Warp 1.19's
outputs (tests/geometry/data) and against a sphere's geometry, gradients, the GPU mapping and the user's
errors."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
import brickwork.geometry  # noqa: F401 - wp.geometry, as Warp's code spells it
from brickwork import config as bw_config
from brickwork.geometry import surface_nets_tables as snt

Nets = wp.geometry.IsoSurfaceNets
EXPECTED = np.load(Path(__file__).parent / "data" / "surface_nets_warp.npz")
CASES = sorted({name.split("/")[0] for name in EXPECTED.files})


def field_array(values, requires_grad=False):
    return wp.array(np.asarray(values, dtype=np.float32), dtype=wp.float32, requires_grad=requires_grad)


def sphere_sdf(n, center, radius):
    g = np.indices((n, n, n)).astype(np.float64)
    return (np.sqrt(((g - np.reshape(center, (3, 1, 1, 1))) ** 2).sum(0)) - radius).astype(np.float32)


def undirected_edge_counts(faces):
    counts = Counter()
    for face in faces:
        for a, b in zip(face, np.roll(face, -1)):
            counts[(min(a, b), max(a, b))] += 1
    return counts


def signed_volume(verts, tris):
    p0, p1, p2 = (verts[tris[:, c]] for c in range(3))
    return np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0


# -- the case tables ----------------------------------------------------------------------------------------------


def test_the_tables_are_openvdbs_as_warp_holds_them():
    # Warp's own test pins its transcription by these digests, of its layout (count then twelve groups per
    # configuration, flat)
    flat = [v for config in range(256) for v in (snt.group_count(config), *map(int, snt.EDGE_GROUPS[config]))]
    assert hashlib.sha256(bytes(flat)).hexdigest() == \
        "044e3bb54ae7a917f24d5967734ecde53fd1e573499a2afa413be4d3e5e97c14"
    faces = bytes(snt.AMBIGUOUS_FACES.get(config, 0) for config in range(256))
    assert hashlib.sha256(faces).hexdigest() == "421d86c3f5ba48d62d136f26a9e02770417a1fa1d8828f027b61609ff3b7cb12"
    assert hashlib.sha256(bytes(v for c in snt.CORNER_OFFSETS for v in c)).hexdigest() == \
        "955f8e1e43d15a74bec6e717db9f59c0ba0dbd021c28efae775ba72852436ce9"
    assert hashlib.sha256(bytes(v for e in snt.EDGE_CORNERS for v in e)).hexdigest() == \
        "9af052076ec7e872cc042a267a76063332ffc061aa3167e1e30187e9bbb3f750"


def test_each_configuration_groups_exactly_its_crossed_edges():
    for config, digits in enumerate(snt.EDGE_GROUPS):
        crossed = [((config >> a) & 1) != ((config >> b) & 1) for a, b in snt.EDGE_CORNERS]
        assert [d != "0" for d in digits] == crossed, config
        assert {int(d) for d in digits if d != "0"} == set(range(1, snt.group_count(config) + 1)) if any(crossed) \
            else snt.group_count(config) == 0
        assert snt.AMBIGUOUS_FACES.get(config, 0) in range(7)


def test_the_packed_rows_hold_count_and_sheets():
    rows = snt.packed_rows()
    for config, digits in enumerate(snt.EDGE_GROUPS):
        row = int(rows[config])
        assert row >> 24 == snt.group_count(config)
        assert [(row >> (2 * e)) & 3 for e in range(12)] == [max(int(d) - 1, 0) for d in digits]


def test_the_kernels_corner_and_edge_encodings_match_the_tables():
    from brickwork.geometry import surface_nets as sn

    for c, offset in enumerate(snt.CORNER_OFFSETS):
        assert ((sn.CORNER_X >> c) & 1, (sn.CORNER_Y >> c) & 1, (sn.CORNER_Z >> c) & 1) == offset
    for e, (a, b) in enumerate(snt.EDGE_CORNERS):
        ring = e & 3
        frm = e - 8 if e >= 8 else ((sn.RING_FROM >> (4 * ring)) & 15) + (e & 4)
        to = e - 4 if e >= 8 else ((sn.RING_TO >> (4 * ring)) & 15) + (e & 4)
        assert (frm, to) == (a, b)
        axis = 1 if e >= 8 else 2 * (e & 1)
        step = np.subtract(snt.CORNER_OFFSETS[b], snt.CORNER_OFFSETS[a])
        assert step.tolist() == np.eye(3, dtype=int)[axis].tolist()


# -- against Warp's outputs ---------------------------------------------------------------------------------------


def _case(name):
    lower, upper = EXPECTED[f"{name}/lower"], EXPECTED[f"{name}/upper"]
    return dict(field=EXPECTED[f"{name}/field"], threshold=float(EXPECTED[f"{name}/threshold"]),
                lower=None if np.isnan(lower).all() else tuple(lower.tolist()),
                upper=None if np.isnan(upper).all() else tuple(upper.tolist()),
                topology=str(EXPECTED[f"{name}/topology"]))


@pytest.mark.parametrize("name", CASES)
def test_the_extraction_is_warps(name):
    case = _case(name)
    verts, indices = Nets.extract(field_array(case["field"]), case["threshold"], lower=case["lower"],
                                  upper=case["upper"], topology=case["topology"])
    assert verts.dtype is wp.vec3 and indices.dtype is wp.int32
    np.testing.assert_allclose(verts.numpy(), EXPECTED[f"{name}/verts"], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(indices.numpy(), EXPECTED[f"{name}/indices"])  # order and winding too


def test_the_ambiguous_case_flips_configurations():
    # the quantised field has cells whose configuration is ambiguous across a face shared with a cell
    # ambiguous across it too: those take the complement (and the vertex count proves the tables were used)
    field = EXPECTED["ambiguous_quad/field"]
    inside = field < 0.0
    flips = 0
    for i, j, k in np.ndindex(*(n - 1 for n in field.shape)):
        config = sum(1 << c for c, (dx, dy, dz) in enumerate(snt.CORNER_OFFSETS) if inside[i + dx, j + dy, k + dz])
        flips += snt.AMBIGUOUS_FACES.get(config, 0) != 0
    assert flips > 0
    quads = EXPECTED["ambiguous_quad/indices"].reshape(-1, 4)
    assert max(undirected_edge_counts(quads).values()) <= 2  # open at the grid's boundary, manifold inside


def test_a_single_inside_node_gives_a_small_cube():
    field = np.ones((3, 3, 3), np.float32)
    field[1, 1, 1] = -1.0
    verts, quads = Nets.extract(field_array(field), topology="quad")
    v = verts.numpy()
    # one vertex per cell, at the mean of its three crossings, halfway along the centre node's edges
    expected = {tuple(1.0 + (2 * np.array(signs) - 1) / 6.0) for signs in np.ndindex(2, 2, 2)}
    assert len(v) == 8
    for vertex in v:
        assert min(np.abs(np.array(e) - vertex).max() for e in expected) < 1e-6
    q = quads.numpy().reshape(-1, 4)
    assert q.shape == (6, 4) and set(undirected_edge_counts(q).values()) == {2}
    verts_t, tris = Nets.extract(field_array(field))
    assert signed_volume(verts_t.numpy(), tris.numpy().reshape(-1, 3)) == pytest.approx(1 / 27, rel=1e-5)


def test_a_cell_with_two_sheets_puts_two_vertices():
    field = np.ones((4, 4, 4), np.float32)
    field[1, 1, 1] = field[2, 2, 2] = -1.0  # the cell between them: corners 0 and 6 inside, two sheets
    verts, quads = Nets.extract(field_array(field), topology="quad")
    q = quads.numpy().reshape(-1, 4)
    assert verts.shape == (16,) and q.shape == (12, 4)
    assert set(undirected_edge_counts(q).values()) == {2}
    # two separate cubes: their vertex sets do not meet
    parent = list(range(16))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for quad in q:
        for other in quad[1:]:
            parent[root(int(other))] = root(int(quad[0]))
    assert len({root(a) for a in range(16)}) == 2


def test_no_crossing_gives_empty_arrays():
    for values in (np.ones((4, 5, 3)), -np.ones((4, 5, 3)), np.array([[[-1, 1], [1, 1]], [[1, 1], [1, 1]]])):
        verts, indices = Nets.extract(field_array(values))  # the single cell's sheet touches only the boundary
        assert verts.shape == (0,) and indices.shape == (0,)
        assert verts.dtype is wp.vec3 and indices.dtype is wp.int32


# -- a sphere -----------------------------------------------------------------------------------------------------


def test_a_sphere_is_a_closed_outward_manifold_near_the_exact_sphere():
    n, center, radius = 24, np.array([11.3, 11.6, 12.1]), 7.0
    verts, indices = Nets.extract(field_array(sphere_sdf(n, center, radius)))
    v, tris = verts.numpy().astype(np.float64), indices.numpy().reshape(-1, 3)
    assert set(undirected_edge_counts(tris).values()) == {2}  # closed 2-manifold
    assert np.unique(tris).tolist() == list(range(len(v)))  # every vertex is in a face
    assert np.abs(np.linalg.norm(v - center, axis=1) - radius).max() < 0.1
    volume = signed_volume(v - center, tris)
    assert volume == pytest.approx(4 / 3 * np.pi * radius**3, rel=0.04)  # positive: outward faces
    p0, p1, p2 = (v[tris[:, c]] for c in range(3))
    normals = np.cross(p1 - p0, p2 - p0)
    assert np.linalg.norm(normals, axis=1).sum() / 2 == pytest.approx(4 * np.pi * radius**2, rel=0.05)
    assert (np.einsum("ij,ij->i", normals, (p0 + p1 + p2) / 3 - center) > 0).all()


def test_triangles_are_the_quads_split_along_their_first_diagonal():
    field = field_array(sphere_sdf(12, (5.4, 5.9, 6.2), 3.7))
    verts_q, quads = Nets.extract(field, topology="quad")
    verts_t, tris = Nets.extract(field)
    np.testing.assert_array_equal(verts_q.numpy(), verts_t.numpy())
    q = quads.numpy().reshape(-1, 4)
    np.testing.assert_array_equal(tris.numpy().reshape(-1, 6), q[:, [0, 1, 2, 0, 2, 3]])


def test_lower_and_upper_map_the_grid_per_axis():
    field_np = sphere_sdf(9, (4.2, 3.9, 4.4), 2.6)[:, :8, :]
    field = field_array(field_np)
    base, base_indices = Nets.extract(field)
    lower, upper = np.array([-1.0, 0.5, 2.0]), np.array([3.0, 1.5, 9.0])
    spacing = (upper - lower) / (np.array(field_np.shape) - 1)
    for low, up in ((tuple(lower), tuple(upper)), (wp.vec3(*lower), list(upper))):
        verts, indices = Nets.extract(field, lower=low, upper=up)
        np.testing.assert_allclose(verts.numpy(), lower + base.numpy() * spacing, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(indices.numpy(), base_indices.numpy())
    last = np.array(field_np.shape) - 1.0  # the default upper: the last node's indices
    only_lower, _ = Nets.extract(field, lower=(1.0, 2.0, 3.0))
    np.testing.assert_allclose(only_lower.numpy(), [1.0, 2.0, 3.0] + base.numpy() * (last - [1, 2, 3]) / last,
                               atol=1e-6)
    only_upper, _ = Nets.extract(field, upper=(4.0, 3.5, 2.0))
    np.testing.assert_allclose(only_upper.numpy(), base.numpy() * np.array([4.0, 3.5, 2.0]) / [8, 7, 8], atol=1e-6)


def test_an_instance_extracts_again_after_resize():
    iso = Nets(10, 10, 10, topology="quad", lower=(0, 0, 0), upper=(1, 1, 1))
    assert (iso.nx, iso.ny, iso.nz, iso.topology, iso.verts, iso.indices) == (10, 10, 10, "quad", None, None)
    first = field_array(sphere_sdf(10, (4.5, 4.4, 4.6), 3.0))
    iso.surface(first, 0.0)
    verts1, indices1 = iso.verts, iso.indices
    ref = Nets.extract(first, lower=(0, 0, 0), upper=(1, 1, 1), topology="quad")
    np.testing.assert_array_equal(verts1.numpy(), ref[0].numpy())
    np.testing.assert_array_equal(indices1.numpy(), ref[1].numpy())
    iso.resize(12, 9, 11)
    second_np = sphere_sdf(12, (5.5, 4.1, 5.2), 3.4)[:, :9, :11]
    iso.surface(field_array(second_np), 0.5)
    ref = Nets.extract(field_array(second_np), 0.5, lower=(0, 0, 0), upper=(1, 1, 1), topology="quad")
    np.testing.assert_array_equal(iso.verts.numpy(), ref[0].numpy())
    np.testing.assert_array_equal(iso.indices.numpy(), ref[1].numpy())
    assert iso.verts is not verts1 and iso.verts.shape != verts1.shape
    assert np.all(iso.verts.numpy() <= 1.0 + 1e-6) and np.all(iso.verts.numpy() >= -1e-6)


# -- gradients ----------------------------------------------------------------------------------------------------


@wp.kernel
def _weighted_sum(verts: wp.array(dtype=wp.vec3), weights: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    wp.atomic_add(out, 0, wp.dot(verts[t], weights[t]))


def _gradient_and_finite_differences(field_np, lower=None, upper=None):
    field = field_array(field_np, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = Nets.extract(field, lower=lower, upper=upper)
        weights = np.random.default_rng(3).normal(size=(verts.shape[0], 3)).astype(np.float32)
        wp.launch(_weighted_sum, dim=verts.shape[0], inputs=[verts, wp.array(weights, dtype=wp.vec3)], outputs=[out])
    assert verts.requires_grad
    tape.backward(loss=out)

    def loss(values):
        v, _ = Nets.extract(field_array(values), lower=lower, upper=upper)
        assert v.shape == verts.shape  # the steps keep the topology
        return float((v.numpy().astype(np.float64) * weights).sum())

    eps, fd = 1e-3, np.zeros(field_np.shape)
    for node in np.ndindex(*field_np.shape):
        plus, minus = field_np.copy(), field_np.copy()
        plus[node] += eps
        minus[node] -= eps
        fd[node] = (loss(plus) - loss(minus)) / (2 * eps)
    return field.grad.numpy(), fd


def test_vertex_gradients_match_finite_differences():
    field_np = sphere_sdf(6, (2.6, 2.4, 2.7), 1.7)
    grad, fd = _gradient_and_finite_differences(field_np, lower=(-1.0, 0.0, 0.0), upper=(1.5, 2.0, 7.0))
    assert np.abs(grad).max() > 1.0 and np.count_nonzero(grad) > 20
    np.testing.assert_allclose(grad, fd, rtol=1e-2, atol=2e-2)


# -- the GPU mapping ----------------------------------------------------------------------------------------------


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("name", ["ambiguous_quad", "ellipsoid_bounds_triangle"])
def test_the_extraction_on_the_emulation_target(name):
    case = _case(name)
    with bw_config.override(target="cuda-emulation"):
        verts, indices = Nets.extract(field_array(case["field"]), case["threshold"], lower=case["lower"],
                                      upper=case["upper"], topology=case["topology"])
    np.testing.assert_allclose(verts.numpy(), EXPECTED[f"{name}/verts"], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(indices.numpy(), EXPECTED[f"{name}/indices"])


@pytest.mark.compiles_for_cuda
def test_gradients_on_the_emulation_target():
    field_np = sphere_sdf(5, (2.1, 1.9, 2.2), 1.3)
    with bw_config.override(target="cuda-emulation"):
        grad, fd = _gradient_and_finite_differences(field_np)
    np.testing.assert_allclose(grad, fd, rtol=1e-2, atol=2e-2)


# -- the user's errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topology", ["tri", "quads", None, "Triangle"])
def test_an_unknown_topology_is_refused(topology):
    with pytest.raises(ValueError, match=r"Expected 'topology' to be one of \('triangle', 'quad'\), but got"):
        Nets(4, 4, 4, topology=topology)
    with pytest.raises(ValueError, match=r"'topology' .* but got " + repr(topology).replace("'", ".")):
        Nets.extract(field_array(np.ones((4, 4, 4))), topology=topology)


@pytest.mark.parametrize("values, error, text", [
    (np.ones((4, 4), np.float32), ValueError, r"Expected a 3D array for 'field', but got an array with shape \(4, 4\)"),
    (np.ones((2, 2, 2, 2), np.float32), ValueError, r"Expected a 3D array for 'field'"),
    (np.ones((4, 1, 4), np.float32), ValueError, r"at least 2 nodes on each axis, but got an array with shape \(4, 1"),
    (np.ones((0, 4, 4), np.float32), ValueError, r"at least 2 nodes on each axis"),
    (np.ones((4, 4, 4), np.float64), TypeError, r"Expected a dtype of wp.float32 for 'field', but got .*float64"),
    (np.ones((4, 4, 4), np.int32), TypeError, r"Expected a dtype of wp.float32 for 'field', but got .*int32"),
])
def test_a_bad_field_is_refused_and_nothing_changes(values, error, text):
    iso = Nets(4, 4, 4)
    good = field_array(sphere_sdf(4, (1.5, 1.5, 1.5), 1.1))
    iso.surface(good, 0.0)
    before = iso.verts, iso.indices, iso.verts.numpy().copy(), iso.indices.numpy().copy()
    bad = wp.array(values)
    with pytest.raises(error, match=text):
        Nets.extract(bad)
    if values.shape == (4, 4, 4):
        with pytest.raises(error, match=text):
            iso.surface(bad, 0.0)
    assert iso.verts is before[0] and iso.indices is before[1]
    np.testing.assert_array_equal(iso.verts.numpy(), before[2])
    np.testing.assert_array_equal(iso.indices.numpy(), before[3])


def test_a_field_of_another_shape_is_refused_and_nothing_changes():
    iso = Nets(5, 5, 5, topology="quad")
    iso.surface(field_array(sphere_sdf(5, (2.1, 2.0, 1.9), 1.4)), 0.0)
    verts, indices = iso.verts, iso.indices
    snapshot = verts.numpy().copy(), indices.numpy().copy()
    for shape in ((5, 5, 6), (6, 5, 5), (5, 5)):
        with pytest.raises(ValueError, match=r"Field shape \(.*\) does not match context grid dimensions \(5, 5, 5\)"):
            iso.surface(field_array(np.ones(shape)), 0.0)
    assert iso.verts is verts and iso.indices is indices
    np.testing.assert_array_equal(verts.numpy(), snapshot[0])
    np.testing.assert_array_equal(indices.numpy(), snapshot[1])


def test_a_numpy_field_and_bad_bounds_are_refused():
    with pytest.raises(TypeError, match=r"Expected a float32 array for 'field', but got ndarray"):
        Nets.extract(np.ones((4, 4, 4), np.float32))
    iso = Nets(4, 4, 4)
    with pytest.raises(TypeError, match=r"Expected a float32 array for 'field', but got ndarray"):
        iso.surface(np.ones((4, 4, 4), np.float32), 0.0)
    assert iso.verts is None and iso.indices is None
    field = field_array(np.ones((4, 4, 4)))
    for bound in ((1.0, 2.0), (1.0, 2.0, 3.0, 4.0), "abc", 3.0):
        with pytest.raises(ValueError, match=r"Expected 'lower' to be a vec3 or a sequence of 3 numbers"):
            Nets.extract(field, lower=bound)
        with pytest.raises(ValueError, match=r"Expected 'upper' to be a vec3 or a sequence of 3 numbers"):
            Nets(4, 4, 4, upper=bound)
