"""Swept volumes of rigid meshes (brickwork.geometry.swept_volume_*): the signed distance against exact box and
capsule distances, the grid choices, the bounds, the sign modes, the GPU mapping, and every user error."""

import math

import numpy as np
import pytest

import brickwork as wp
import brickwork.geometry as geo
from brickwork import config

Mode = geo.SweptVolumeSignMode


def box_mesh(half=0.5, open_top=False, winding=True):
    """An axis-aligned cube of half-edge ``half`` about the origin, faces wound outward; ``open_top`` leaves out
    the +z face (an open shell)."""
    h = half
    pts = np.array([[-h, -h, -h], [h, -h, -h], [h, h, -h], [-h, h, -h],
                    [-h, -h, h], [h, -h, h], [h, h, h], [-h, h, h]], np.float32)
    faces = [[0, 3, 2], [0, 2, 1], [0, 1, 5], [0, 5, 4], [2, 3, 7], [2, 7, 6], [1, 2, 6], [1, 6, 5],
             [3, 0, 4], [3, 4, 7]] + ([] if open_top else [[4, 5, 6], [4, 6, 7]])
    return wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(np.array(faces, np.int32).ravel(), dtype=wp.int32),
                   support_winding_number=winding)


def sphere_points(levels, radius):
    """Vertices and faces of an icosahedron refined ``levels`` times onto a sphere (outward winding)."""
    g = (1.0 + math.sqrt(5.0)) / 2.0
    pts = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g), (0, 1, -g),
           (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    pts = [np.array(p, float) / np.linalg.norm(p) for p in pts]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
            (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
            (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mid, refined = {}, []

        def between(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = pts[a] + pts[b]
                pts.append(p / np.linalg.norm(p))
                mid[key] = len(pts) - 1
            return mid[key]

        for a, b, c in tris:
            ab, bc, ca = between(a, b), between(b, c), between(c, a)
            refined += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = refined
    return (radius * np.array(pts)).astype(np.float32), np.array(tris, np.int32).ravel()


def sphere_mesh(levels=2, radius=0.5, winding=False):
    pts, tris = sphere_points(levels, radius)
    return wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris, dtype=wp.int32), support_winding_number=winding)


def translations(offsets):
    """Poses ``(meshes, samples, 7)`` that only translate, by ``offsets`` of shape ``(meshes, samples, 3)``."""
    offsets = np.asarray(offsets, np.float32)
    poses = np.zeros((*offsets.shape[:-1], 7), np.float32)
    poses[..., :3] = offsets
    poses[..., 6] = 1.0
    return poses


def along_x(a, b, samples):
    return translations([[[x, 0.0, 0.0] for x in np.linspace(a, b, samples)]])


def box_sdf(points, center, half):
    """Exact signed distance of ``points`` to the axis-aligned box ``center +- half``."""
    q = np.abs(points - center) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=1)
    return outside + np.minimum(q.max(axis=1), 0.0)


def capsule_sdf(points, a, b, radius):
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = np.clip((points - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return np.linalg.norm(points - a - t[:, None] * (b - a), axis=1) - radius


def nodes(field, lower, upper):
    """World positions of the nodes of ``field`` (flattened as ``field.numpy().ravel()``)."""
    lo, hi = np.array(lower, float), np.array(upper, float)
    shape = np.array(field.shape)
    idx = np.stack(np.meshgrid(*[np.arange(n) for n in shape], indexing="ij"), -1).reshape(-1, 3)
    return lo + idx * (hi - lo) / (shape - 1)


@wp.kernel
def sdf_at(ids: wp.array(dtype=wp.uint64), poses: wp.array2d(dtype=wp.transform), points: wp.array(dtype=wp.vec3),
           max_dist: float, mode: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = geo.swept_volume_sdf(points[i], ids, poses, max_dist, mode)


def sdf_points(meshes, poses, points, mode, max_dist=100.0):
    out = wp.zeros(len(points), dtype=float)
    wp.launch(sdf_at, len(points), [wp.array([m.id for m in meshes], dtype=wp.uint64),
                                    wp.array(poses, dtype=wp.transform), wp.array(points, dtype=wp.vec3),
                                    max_dist, int(mode), out])
    return out.numpy()


@pytest.mark.parametrize("mode", [Mode.NORMAL, Mode.WINDING_NUMBER, Mode.PARITY])
def test_a_translated_box_is_the_union_of_its_poses_and_outside_the_exact_long_box(mode):
    poses = along_x(-1.0, 1.0, 9)  # steps of 0.25 < the edge 1: the union is the box [-1.5, 1.5] x [-.5, .5]^2
    field, lower, upper = geo.swept_volume_field([box_mesh()], poses, voxel_size=0.1, sign_mode=mode)
    p = nodes(field, lower, upper)
    got = field.numpy().ravel()
    per_pose = np.min([box_sdf(p, poses[0, s, :3], 0.5) for s in range(9)], axis=0)
    np.testing.assert_allclose(got, per_pose, atol=2e-5)
    exact = box_sdf(p, np.zeros(3), np.array([1.5, 0.5, 0.5]))
    outside = exact > 0
    np.testing.assert_allclose(got[outside], exact[outside], atol=2e-5)
    # inside, the union of the poses is shallower than the long box by at most half a step
    assert np.all(got[~outside] <= 1e-6) and np.all(got[~outside] - exact[~outside] <= 0.125 + 1e-5)
    assert got.min() == pytest.approx(-0.5, abs=1e-5)


def test_a_translated_sphere_sweeps_a_capsule():
    radius = 0.5
    poses = along_x(-1.0, 1.0, 21)
    field, lower, upper = geo.swept_volume_field([sphere_mesh(2, radius)], poses, voxel_size=0.1,
                                                 sign_mode=Mode.NORMAL)
    p = nodes(field, lower, upper)
    exact = capsule_sdf(p, (-1, 0, 0), (1, 0, 0), radius)
    got = field.numpy().ravel()
    band = np.abs(exact) < 0.3  # farther inside, the union of spheres is shallower than the capsule
    np.testing.assert_allclose(got[band], exact[band], atol=0.02)  # the polygon's sag and the sample steps
    assert np.all(np.sign(got[np.abs(exact) > 0.03]) == np.sign(exact[np.abs(exact) > 0.03]))


def test_the_field_equals_the_kernel_function_at_its_nodes_and_two_meshes_unite():
    meshes = [box_mesh(0.3), sphere_mesh(1, 0.4)]
    poses = translations([[[-1.0, 0.0, 0.0], [-0.8, 0.2, 0.0]], [[1.0, 0.0, 0.1], [1.2, 0.0, 0.0]]])
    field, lower, upper = geo.swept_volume_field(meshes, poses, resolution=(12, 7, 6), sign_mode=Mode.PARITY)
    assert field.shape == (12, 7, 6) and field.dtype == wp.float32
    p = nodes(field, lower, upper).astype(np.float32)
    np.testing.assert_allclose(field.numpy().ravel(), sdf_points(meshes, poses, p, Mode.PARITY), atol=1e-6)
    # the union is the least of the single meshes' fields
    alone = [sdf_points([m], poses[i:i + 1], p, Mode.PARITY) for i, m in enumerate(meshes)]
    np.testing.assert_allclose(field.numpy().ravel(), np.minimum(*alone), atol=1e-6)
    np.testing.assert_allclose(alone[0], np.min([box_sdf(p, c, 0.3) for c in poses[0, :, :3]], axis=0), atol=2e-5)


def test_a_point_no_surface_reaches_gets_max_dist():
    far = np.array([[10.0, 0.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    got = sdf_points([box_mesh()], translations([[[0.0, 0.0, 0.0]]]), far, Mode.NORMAL, max_dist=2.0)
    np.testing.assert_allclose(got, [2.0, -0.5], atol=1e-6)


def test_a_voxel_size_is_the_exact_spacing_of_a_grid_centred_on_the_padded_bounds():
    poses = along_x(-1.0, 1.0, 5)
    field, lower, upper = geo.swept_volume_field([box_mesh()], poses, voxel_size=0.07, sign_mode=Mode.NORMAL)
    lo, hi, shape = np.array(lower), np.array(upper), np.array(field.shape)
    np.testing.assert_allclose((hi - lo) / (shape - 1), 0.07, rtol=1e-5)
    # Warp's choice: the bounds (3 x 1 x 1) padded by two cells each side, rounded up to whole cells
    assert tuple(shape) == tuple(math.ceil((e + 4 * 0.07) / 0.07) + 1 for e in (3.0, 1.0, 1.0))
    np.testing.assert_allclose(0.5 * (lo + hi), 0.0, atol=1e-6)
    assert np.all(lo <= np.array([-1.5, -0.5, -0.5]) - 0.14 + 1e-6)


def test_a_resolution_pads_by_two_cells_and_a_given_domain_is_used_as_given():
    poses = along_x(0.0, 1.0, 3)
    field, lower, upper = geo.swept_volume_field([box_mesh()], poses, resolution=(9, 5, 6), sign_mode=Mode.NORMAL)
    assert field.shape == (9, 5, 6)
    extent = np.array([2.0, 1.0, 1.0])
    pad = 2.0 * extent / (np.array([9, 5, 6]) - 1)
    np.testing.assert_allclose(lower, np.array([-0.5, -0.5, -0.5]) - pad, atol=1e-6)
    np.testing.assert_allclose(upper, np.array([1.5, 0.5, 0.5]) + pad, atol=1e-6)
    field, lower, upper = geo.swept_volume_field([box_mesh()], poses, resolution=(4, 4, 4), lower=(-0.2, -0.2, -0.2),
                                                 upper=wp.vec3(0.1, 0.2, 0.3), sign_mode=Mode.NORMAL)
    np.testing.assert_allclose(lower, [-0.2] * 3, atol=1e-7)
    np.testing.assert_allclose(upper, [0.1, 0.2, 0.3], atol=1e-7)
    p = nodes(field, lower, upper)
    ref = np.min([box_sdf(p, c, 0.5) for c in poses[0, :, :3]], axis=0)
    np.testing.assert_allclose(field.numpy().ravel(), ref, atol=2e-5)


def test_a_domain_deep_inside_the_solid_keeps_its_sign():
    # every node lies ~5 inside: the search bound spans the geometry, not only the domain
    field, _, _ = geo.swept_volume_field([box_mesh(5.0)], translations([[[0.0, 0.0, 0.0]]]), resolution=(3, 3, 3),
                                         lower=(-1.0, -1.0, -1.0), upper=(1.0, 1.0, 1.0), sign_mode=Mode.NORMAL)
    f = field.numpy()
    assert f.max() < 0 and f[1, 1, 1] == pytest.approx(-5.0, abs=1e-5)


def test_the_bounds_are_the_moved_rest_boxes_plus_the_padding_and_hold_every_posed_vertex():
    mesh = box_mesh(0.5)
    poses = np.zeros((1, 3, 7), np.float32)
    poses[0, :, :3] = [[0.0, 0.0, 0.0], [2.0, 1.0, 0.0], [0.0, -1.0, 3.0]]
    poses[0, :, 6] = 1.0
    angle = math.pi / 4  # the last pose also turns 45 degrees about z: its box grows to half-width sqrt(2) / 2
    poses[0, 2, 5], poses[0, 2, 6] = math.sin(angle / 2), math.cos(angle / 2)
    lower, upper = geo.swept_volume_bounds([mesh], poses, padding=0.25)
    r = math.sqrt(0.5)
    np.testing.assert_allclose(lower, np.array([-r, -1.0 - r, -0.5]) - 0.25, atol=1e-5)
    np.testing.assert_allclose(upper, np.array([2.5, 1.5, 3.5]) + 0.25, atol=1e-5)
    lower, upper = geo.swept_volume_bounds([mesh, sphere_mesh(1, 0.5)],
                                           wp.array(np.concatenate([poses, poses + [[[5, 0, 0, 0, 0, 0, 0]]]]),
                                                    dtype=wp.transform))
    np.testing.assert_allclose(upper, [7.5, 1.5, 3.5], atol=1e-5)
    np.testing.assert_allclose(lower, [-r, -1.0 - r, -0.5], atol=1e-5)


def test_a_rotation_sweeps_an_arc():
    # a box centred at x = 1, turned about z by 0 to 90 degrees in seven poses
    rest = box_mesh(0.3)
    mesh = wp.Mesh(wp.array(rest.points.numpy() + [1.0, 0.0, 0.0], dtype=wp.vec3),
                   wp.array(rest.indices.numpy(), dtype=wp.int32))
    angles = np.linspace(0.0, math.pi / 2, 7)
    poses = np.zeros((1, 7, 7), np.float32)
    poses[0, :, 5], poses[0, :, 6] = np.sin(angles / 2), np.cos(angles / 2)
    probes = np.random.default_rng(3).uniform(-1.6, 1.6, (200, 3)).astype(np.float32)
    got = sdf_points([mesh], poses, probes, Mode.NORMAL)
    # each pose: the probe turned back by its angle, against the box at rest
    ref = []
    for a in angles:
        c, s = math.cos(a), math.sin(a)
        back = probes @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        ref.append(box_sdf(back, np.array([1.0, 0.0, 0.0]), 0.3))
    np.testing.assert_allclose(got, np.min(ref, axis=0), atol=2e-5)
    centres = np.array([[0.0, 1.0, 0.0], [math.sqrt(0.5), math.sqrt(0.5), 0.0]], np.float32)
    np.testing.assert_allclose(sdf_points([mesh], poses, centres, Mode.NORMAL), -0.3, atol=1e-5)


def test_the_sign_modes_differ_on_an_open_shell_as_warp_classifies_it():
    mesh = box_mesh(open_top=True)  # an open box: no +z face
    poses = translations([[[0.0, 0.0, 0.0]]])
    probes = np.array([[0.0, 0.0, -0.3], [0.2, 0.1, 0.3], [0.0, 0.0, 0.7], [0.7, 0.0, 0.0]], np.float32)
    depth = np.array([0.2, 0.3, math.sqrt(0.29), 0.2])
    expect = {Mode.NORMAL: [-1, -1, -1, 1], Mode.WINDING_NUMBER: [-1, -1, 1, 1], Mode.PARITY: [-1, 1, 1, 1],
              Mode.NO_SIGN: [1, 1, 1, 1]}
    for mode, signs in expect.items():
        np.testing.assert_allclose(sdf_points([mesh], poses, probes, mode), np.array(signs) * depth, atol=1e-5,
                                   err_msg=mode.name)
    # the field takes plain integers as well as the enum's members
    field, lower, upper = geo.swept_volume_field([mesh], poses, resolution=(5, 5, 5), sign_mode=3)
    assert field.numpy().min() >= 0.0


@pytest.mark.compiles_for_cuda
def test_the_field_and_bounds_on_the_emulation_target_equal_the_cpu_ones():
    meshes, poses = [box_mesh()], along_x(-0.5, 0.5, 3)
    cpu = geo.swept_volume_field(meshes, poses, resolution=(6, 5, 4), sign_mode=Mode.WINDING_NUMBER)
    cpu_bounds = geo.swept_volume_bounds(meshes, poses, padding=0.1)
    with config.override(target="cuda-emulation"):
        emulated = geo.swept_volume_field(meshes, poses, resolution=(6, 5, 4), sign_mode=Mode.WINDING_NUMBER)
        emulated_bounds = geo.swept_volume_bounds(meshes, poses, padding=0.1)
        points = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]], np.float32)
        on_points = sdf_points(meshes, poses, points, Mode.NORMAL)
    np.testing.assert_array_equal(cpu[0].numpy(), emulated[0].numpy())
    np.testing.assert_allclose(np.array(cpu_bounds), np.array(emulated_bounds))
    np.testing.assert_allclose(on_points, [-0.5, 1.0], atol=1e-6)


def test_every_user_error_is_refused_by_name_and_changes_nothing():
    mesh = box_mesh()
    poses = translations([[[0.0, 0.0, 0.0]]])
    kept_points, kept_poses = mesh.points.numpy().copy(), poses.copy()
    two_rows = translations([[[0.0] * 3], [[0.0] * 3]])
    field_cases = [
        (([], poses), {"voxel_size": 0.1}, ValueError, "at least one mesh"),
        ((mesh, poses), {"voxel_size": 0.1}, TypeError, "sequence of wp.Mesh"),
        (([mesh.id], poses), {"voxel_size": 0.1}, TypeError, "'meshes[0]' must be a wp.Mesh"),
        (([mesh], poses), {}, ValueError, "either 'voxel_size' or 'resolution'"),
        (([mesh], poses), {"voxel_size": 0.1, "resolution": (4, 4, 4)}, ValueError, "not both"),
        (([mesh], two_rows), {"voxel_size": 0.1}, ValueError, "2 rows"),
        (([mesh], np.zeros((1, 0, 7), np.float32)), {"voxel_size": 0.1}, ValueError, "at least one pose"),
        (([mesh], np.zeros((1, 2, 6), np.float32)), {"voxel_size": 0.1}, ValueError, "(num_meshes, num_samples, 7)"),
        (([mesh], [["a"] * 7]), {"voxel_size": 0.1}, TypeError, "'transforms'"),
        (([mesh], wp.zeros((1, 1), dtype=wp.vec3)), {"voxel_size": 0.1}, TypeError, "dtype wp.transform"),
        (([mesh], wp.zeros((1, 1), dtype=wp.transformd)), {"voxel_size": 0.1}, TypeError, "dtype wp.transform"),
        (([mesh], wp.zeros(1, dtype=wp.transform)), {"voxel_size": 0.1}, ValueError, "2D array"),
        (([mesh], poses), {"voxel_size": 0.0}, ValueError, "'voxel_size' must be a positive"),
        (([mesh], poses), {"voxel_size": -0.05}, ValueError, "'voxel_size' must be a positive"),
        (([mesh], poses), {"voxel_size": float("nan")}, ValueError, "'voxel_size'"),
        (([mesh], poses), {"voxel_size": "0.1"}, TypeError, "'voxel_size' must be a number"),
        (([mesh], poses), {"resolution": (4, 4)}, ValueError, "exactly 3"),
        (([mesh], poses), {"resolution": (4, 4, 1)}, ValueError, "at least 2"),
        (([mesh], poses), {"resolution": (4, 4, 4.5)}, TypeError, "integers"),
        (([mesh], poses), {"resolution": 4}, TypeError, "'resolution'"),
        (([mesh], poses), {"voxel_size": 0.1, "lower": (-1, -1, -1), "upper": (1, 1, 1)}, ValueError, "'resolution'"),
        (([mesh], poses), {"resolution": (4, 4, 4), "lower": (-1, -1, -1)}, ValueError, "both 'lower' and 'upper'"),
        (([mesh], poses), {"resolution": (4, 4, 4), "lower": (-1, -1, -1), "upper": (1, -1, 1)}, ValueError,
         "must exceed"),
        (([mesh], poses), {"resolution": (4, 4, 4), "lower": (-1, -1), "upper": (1, 1, 1)}, TypeError, "'lower'"),
        (([mesh], poses), {"voxel_size": 0.1, "sign_mode": 7}, ValueError, "'sign_mode'"),
        (([box_mesh(winding=False)], poses), {"voxel_size": 0.1}, ValueError, "support_winding_number=True"),
    ]
    for args, kwargs, error, words in field_cases:
        with pytest.raises(error) as info:
            geo.swept_volume_field(*args, **kwargs)
        assert words in str(info.value), (args, kwargs, str(info.value))
        if args[0] == [mesh]:
            with pytest.raises(error):  # the mesh refuses them as the field does (before its extraction)
                geo.swept_volume_mesh(*args, **kwargs)
    with pytest.raises(ValueError, match="2 rows"):
        geo.swept_volume_bounds([mesh], two_rows)
    with pytest.raises(TypeError, match="'padding'"):
        geo.swept_volume_bounds([mesh], poses, padding=None)
    with pytest.raises(ValueError, match="'threshold' must be positive"):
        geo.swept_volume_mesh([mesh], poses, voxel_size=0.1, sign_mode=Mode.NO_SIGN)
    with pytest.raises(TypeError, match="'threshold'"):
        geo.swept_volume_mesh([mesh], poses, voxel_size=0.1, threshold="0")
    flat = wp.Mesh(wp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))
    with pytest.raises(ValueError, match="flat along z"):
        geo.swept_volume_field([flat], poses, resolution=(4, 4, 4), sign_mode=Mode.NO_SIGN)
    assert geo.swept_volume_field([flat], poses, voxel_size=0.5, sign_mode=Mode.NO_SIGN)[0].shape == (7, 7, 5)
    empty = wp.Mesh(wp.zeros(0, dtype=wp.vec3), wp.zeros(0, dtype=wp.int32))
    with pytest.raises(ValueError, match="every mesh is empty"):
        geo.swept_volume_bounds([empty], poses)
    np.testing.assert_array_equal(mesh.points.numpy(), kept_points)
    np.testing.assert_array_equal(poses, kept_poses)


def mesh_volume(verts, indices):
    """The enclosed volume of a closed triangle mesh (divergence theorem), and its bounds."""
    v = verts.numpy().astype(np.float64)
    t = v[indices.numpy().reshape(-1, 3)]
    return np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0, v.min(axis=0), v.max(axis=0)


def hull_area(points):
    """The area of the convex hull of 2-D ``points`` (monotone chain, then the shoelace formula)."""
    pts = sorted(map(tuple, points))

    def half(seq):
        chain = []
        for p in seq:
            while len(chain) > 1 and ((chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                                      - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])) <= 0:
                chain.pop()
            chain.append(p)
        return chain[:-1]

    hull = np.array(half(pts) + half(pts[::-1]))
    x, y = hull[:, 0], hull[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def test_the_swept_mesh_of_a_sphere_is_a_capsule_of_the_right_volume_and_bounds():
    radius = 0.5
    mesh = sphere_mesh(2, radius)
    pts = mesh.points.numpy()
    sphere_volume = mesh_volume(mesh.points, mesh.indices)[0]  # the polygon's, a little below 4/3 pi r^3
    verts, indices = geo.swept_volume_mesh([mesh], along_x(-1.0, 1.0, 21), voxel_size=0.05, sign_mode=Mode.NORMAL)
    assert verts.dtype == wp.vec3 and indices.dtype == wp.int32 and indices.shape[0] % 3 == 0
    volume, lo, hi = mesh_volume(verts, indices)
    # a convex solid moved along a segment sweeps its volume plus its shadow across the segment times its length
    capsule = hull_area(pts[:, 1:].astype(np.float64)) * 2.0 + sphere_volume
    assert volume == pytest.approx(capsule, rel=0.015)  # marching cubes cuts chords of the curve
    np.testing.assert_allclose(lo, [-1.0 - radius, pts[:, 1].min(), pts[:, 2].min()], atol=0.03)
    np.testing.assert_allclose(hi, [1.0 + radius, pts[:, 1].max(), pts[:, 2].max()], atol=0.03)


def test_a_positive_threshold_encloses_every_posed_vertex_and_dilates_the_surface():
    mesh = box_mesh(0.4)
    poses = translations([[[x, 0.5 * x, 0.0] for x in np.linspace(0.0, 1.0, 6)]])
    voxel = 0.05
    level = 0.5 * math.sqrt(3.0) * voxel  # half a cell's diagonal: the sampled surface holds every pose
    verts, indices = geo.swept_volume_mesh([mesh], poses, voxel_size=voxel, threshold=level)
    posed = (mesh.points.numpy()[None] + poses[0, :, None, :3]).reshape(-1, 3)
    # each posed vertex lies inside the extracted surface: a signed query of that surface says so
    surface = wp.Mesh(verts, indices, support_winding_number=True)
    inside = sdf_points([surface], translations([[[0.0, 0.0, 0.0]]]), posed.astype(np.float32), Mode.WINDING_NUMBER)
    assert inside.max() < 0.0
    _, lo, hi = mesh_volume(verts, indices)
    np.testing.assert_allclose(lo, posed.min(axis=0) - level, atol=0.02)
    np.testing.assert_allclose(hi, posed.max(axis=0) + level, atol=0.02)


def test_an_unsigned_field_gives_the_outer_and_inner_offset_surfaces():
    radius, level = 0.5, 0.2
    verts, _ = geo.swept_volume_mesh([sphere_mesh(2, radius)], translations([[[0.0, 0.0, 0.0]]]), voxel_size=0.05,
                                     threshold=level, sign_mode=Mode.NO_SIGN)
    r = np.linalg.norm(verts.numpy(), axis=1)
    assert np.all((np.abs(r - (radius + level)) < 0.04) | (np.abs(r - (radius - level)) < 0.04))
    assert (np.abs(r - (radius - level)) < 0.04).any() and (np.abs(r - (radius + level)) < 0.04).any()


def test_a_given_domain_bounds_the_extracted_mesh():
    mesh = box_mesh(0.5)
    verts, indices = geo.swept_volume_mesh([mesh], along_x(0.0, 1.0, 5), resolution=(12, 8, 8),
                                           lower=(-0.8, -0.8, -0.2), upper=(1.8, 0.8, 0.8), sign_mode=Mode.PARITY)
    _, lo, hi = mesh_volume(verts, indices)
    np.testing.assert_allclose(lo, [-0.5, -0.5, -0.2], atol=1e-5)  # the box is cut at the domain's z = -0.2
    np.testing.assert_allclose(hi, [1.5, 0.5, 0.5], atol=0.05)


def test_poses_as_lists_of_transforms_and_meshes_as_a_tuple_on_a_named_device():
    poses = [[wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat_identity()),
              wp.transform(wp.vec3(1.0, 0.0, 0.0), wp.quat_identity())]]
    lower, upper = geo.swept_volume_bounds((box_mesh(),), poses, device="cpu")
    np.testing.assert_allclose(lower, [-0.5] * 3) and np.testing.assert_allclose(upper, [1.5, 0.5, 0.5])
    field, lo, hi = geo.swept_volume_field((box_mesh(),), poses, resolution=(np.int64(4), 4, 4), device="cpu",
                                           sign_mode=Mode.PARITY)
    assert field.shape == (4, 4, 4) and field.device == wp.get_device("cpu")
    p = nodes(field, lo, hi)
    np.testing.assert_allclose(field.numpy().ravel(), np.minimum(box_sdf(p, np.zeros(3), 0.5),
                                                                 box_sdf(p, np.array([1.0, 0, 0]), 0.5)), atol=2e-5)


def test_the_kernel_function_differentiates_to_the_point_and_the_poses_in_a_user_kernel():
    # as in Warp, a user kernel calling swept_volume_sdf has an adjoint: the distance's gradient through the closest
    # point of the nearest pose (the array-level field runs forward only)
    poses = along_x(0.0, 1.0, 3)
    rng = np.random.default_rng(5)
    points = rng.uniform(-1.5, 2.5, (40, 3)).astype(np.float32)
    q = np.abs(points - [0.5, 0.0, 0.0]) - [1.0, 0.5, 0.5]
    points = points[np.all(q > 0.05, axis=1) | (np.linalg.norm(np.maximum(q, 0), axis=1) > 0.1)]  # outside, clear of the surface
    p = wp.array(points, dtype=wp.vec3, requires_grad=True)
    t = wp.array(poses, dtype=wp.transform, requires_grad=True)
    out = wp.zeros(len(points), dtype=float, requires_grad=True)
    mesh = box_mesh()  # kept alive while its id is in use
    tape = wp.Tape()
    with tape:
        wp.launch(sdf_at, len(points), [wp.array([mesh.id], dtype=wp.uint64), t, p, 100.0, int(Mode.NORMAL), out])
    tape.backward(grads={out: wp.ones(len(points), dtype=float)})
    ref = lambda x: np.min([box_sdf(x, c, 0.5) for c in poses[0, :, :3]], axis=0)  # noqa: E731
    eps = 1e-4
    numeric = np.stack([(ref(points + eps * e) - ref(points - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(p.grad.numpy(), numeric, atol=2e-3)
    # moving a pose by dx moves its part of the union by dx: the translations' gradients sum to minus the points'
    np.testing.assert_allclose(t.grad.numpy()[0, :, :3].sum(axis=0), -p.grad.numpy().sum(axis=0), atol=1e-3)
