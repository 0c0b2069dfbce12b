"""wp.is_conditional_graph_supported(), which Warp programs ask before they capture capture_while/capture_if
(newuser round 9: it was an AttributeError): True, and such a graph then runs as the question promised."""

import brickwork as wp


@wp.kernel
def halve(x: wp.array(dtype=float), going: wp.array(dtype=wp.int32)):
    x[0] = x[0] * 0.5
    going[0] = wp.where(x[0] > 1.0, 1, 0)


def test_a_while_loop_captured_after_asking():
    x, going = wp.full(1, 20.0, dtype=float), wp.ones(1, dtype=wp.int32)
    assert wp.is_conditional_graph_supported() is True
    with wp.ScopedCapture() as capture:
        wp.capture_while(going, lambda: wp.launch(halve, dim=1, inputs=[x, going]))
    assert x.numpy().tolist() == [20.0]  # recorded, not run
    wp.capture_launch(capture.graph)
    assert x.numpy().tolist() == [0.625] and going.numpy().tolist() == [0]
