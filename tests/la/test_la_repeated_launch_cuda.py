"""``la.outer`` launched again over the same space on a CUDA device takes ``cuda_launch.launch_repeated``
(the entry and extents found without ``wp.launch``'s steps before it): each launch must still pack what
``wp.launch`` packs, on the current stream, and leave a tape, a graph capture and a changed mode to
``wp.launch``. Checked through the fake driver (tests/runtime/cuda_fake.py), which records launches."""

import importlib

import brickwork as wp
from brickwork import la
from brickwork.runtime.launch import launch

la_outer_module = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name


def _scaled(out, scale):
    def body(rng, b):
        for k, j, i in la.inner(rng):
            out[b, k, j, i] = scale * wp.float64(k + j + i)

    return body


def _launched_twice(fake, nblocks=2):
    space = la.IndexSpace.box(la.bvoi, la.logical_coords, nblocks, 2, 2, 2, 1)
    out = wp.zeros((nblocks, 4, 4, 4), dtype=wp.float64)
    body = _scaled(out, wp.float64(2.0))
    la.outer(space, body)
    la.outer(space, body)
    return space, body


def _through_launch(space, body):
    """The same launch made by ``wp.launch``'s whole path."""
    kernel, dims, geometry, _ = la_outer_module._prepared(space, body, "outer", False)
    launch(kernel, dims, inputs=kernel.captured() + geometry)


def test_a_repeated_launch_packs_what_a_launch_packs(fake_cuda):
    space, body = _launched_twice(fake_cuda)
    _through_launch(space, body)
    repeated, whole = fake_cuda.launches[-2], fake_cuda.launches[-1]
    assert repeated == whole and len(fake_cuda.launches) == 3
    assert repeated[2] == 2  # one team per block


def test_a_repeated_launch_sees_the_space_and_a_rebound_scale(fake_cuda):
    space, body = _launched_twice(fake_cuda, nblocks=2)
    bigger, out = la.IndexSpace.box(la.bvoi, la.logical_coords, 3, 2, 2, 2, 1), wp.zeros((3, 4, 4, 4),
                                                                                        dtype=wp.float64)
    other = _scaled(out, wp.float64(5.0))
    la.outer(bigger, other)
    la.outer(bigger, other)
    assert fake_cuda.launches[-1][2] == 3 and fake_cuda.launches[-1][4] != fake_cuda.launches[1][4]
    _through_launch(bigger, other)
    assert fake_cuda.launches[-1] == fake_cuda.launches[-2]


def test_a_repeated_launch_runs_on_the_current_stream(fake_cuda):
    space, body = _launched_twice(fake_cuda)
    s = wp.Stream("cuda:0")
    with wp.ScopedStream(s, sync_enter=False):
        la.outer(space, body)
    assert fake_cuda.stream_log[-1] == ("launch", s.cuda_stream)
    la.outer(space, body)
    assert fake_cuda.stream_log[-1] == ("launch", 0)


def test_a_repeated_launch_under_a_tape_is_recorded(fake_cuda):
    space, body = _launched_twice(fake_cuda)
    with wp.Tape() as tape:
        la.outer(space, body)
    assert len(tape.launches) == 1 and len(fake_cuda.launches) == 3


def test_a_repeated_launch_during_a_capture_is_a_node_of_the_graph(fake_cuda):
    space, body = _launched_twice(fake_cuda)
    with wp.ScopedCapture() as capture:
        la.outer(space, body)
    assert len(fake_cuda.launches) == 2  # recorded, not run
    wp.capture_launch(capture.graph)  # one CUDA graph of one node, launched on the default stream
    assert fake_cuda.graph_log[-1][0] == "launch" and fake_cuda.graph_log[-1][2] == 0
    assert len(fake_cuda.launches) == 3 and fake_cuda.launches[-1] == fake_cuda.launches[-2]


def test_a_changed_mode_is_seen_by_the_next_repeated_launch(fake_cuda):
    space, body = _launched_twice(fake_cuda)
    table = la_outer_module._prepared(space, body, "outer", False)[0].launch_table
    with wp.config.override(mode="debug"):
        la.outer(space, body)
        assert [inst.mode for inst, _ in table.values()] == ["debug"]
    la.outer(space, body)
    assert [inst.mode for inst, _ in table.values()] == [wp.config.mode]
