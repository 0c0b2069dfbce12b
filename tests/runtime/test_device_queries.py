"""Warp's device queries: ``get_devices``, ``is_device_available``, the memory-pool and peer-access queries
and switches (brickwork uses neither CUDA memory pools nor peer access, so the queries answer False for every
device they know, turning either off is a no-op and turning it on an error)."""

import pytest

import brickwork as wp

QUERIES_OF_ONE = (wp.is_mempool_supported, wp.is_mempool_enabled)
QUERIES_OF_TWO = (wp.is_mempool_access_supported, wp.is_mempool_access_enabled, wp.is_peer_access_supported,
                  wp.is_peer_access_enabled)


def test_get_devices_lists_the_cpu_then_cuda_devices():
    devices = wp.get_devices()
    assert devices[0] == wp.get_device("cpu")
    assert devices[1:] == wp.get_cuda_devices()
    assert all(isinstance(d, wp.Device) for d in devices)


def test_is_device_available():
    assert wp.is_device_available("cpu") and wp.is_device_available(wp.get_device("cpu"))
    assert not wp.is_device_available("tpu")
    assert not wp.is_device_available(3)
    assert wp.is_device_available(f"cuda:{wp.get_cuda_device_count()}") is False


def test_pool_and_peer_queries_answer_false():
    for query in QUERIES_OF_ONE:
        assert query("cpu") is False
    for query in QUERIES_OF_TWO:
        assert query("cpu", wp.get_device("cpu")) is False


def test_queries_refuse_unknown_devices():
    missing = f"cuda:{wp.get_cuda_device_count()}"
    for bad in ("tpu", missing):
        for query in QUERIES_OF_ONE:
            with pytest.raises(ValueError, match=f"Invalid device identifier: {bad}"):
                query(bad)
        for query in QUERIES_OF_TWO:
            with pytest.raises(ValueError, match=f"Invalid device identifier: {bad}"):
                query("cpu", bad)


# -- the pool and peer-access switches: off is what holds (a no-op), on is an error that says why -------------
def test_turning_pools_and_peer_access_off_is_a_no_op():
    assert wp.set_mempool_enabled("cpu", False) is None
    assert wp.set_peer_access_enabled("cpu", "cpu", False) is None
    assert wp.set_mempool_access_enabled("cpu", "cpu", False) is None
    with wp.ScopedMempool("cpu", False), wp.ScopedPeerAccess("cpu", "cpu", False), \
            wp.ScopedMempoolAccess("cpu", "cpu", False):
        assert wp.is_mempool_enabled("cpu") is False and wp.is_peer_access_enabled("cpu", "cpu") is False
    assert wp.is_mempool_enabled("cpu") is False


@pytest.mark.parametrize("call", [
    lambda: wp.set_mempool_enabled("cpu", True), lambda: wp.get_mempool_release_threshold("cpu"),
    lambda: wp.set_mempool_release_threshold("cpu", 1 << 20), lambda: wp.get_mempool_used_mem_current("cpu"),
    lambda: wp.get_mempool_used_mem_high("cpu"), lambda: wp.ScopedMempool("cpu", True).__enter__()])
def test_memory_pools_on_the_cpu_are_refused_as_warp_refuses_them(call):
    with pytest.raises(ValueError, match="Memory pools are only supported on CUDA devices"):
        call()


@pytest.mark.parametrize("call, what", [
    (lambda: wp.set_peer_access_enabled("cpu", "cpu", True), "Peer access"),
    (lambda: wp.ScopedPeerAccess("cpu", "cpu", True).__enter__(), "Peer access"),
    (lambda: wp.set_mempool_access_enabled("cpu", "cpu", True), "Memory pool access"),
    (lambda: wp.ScopedMempoolAccess("cpu", "cpu", True).__enter__(), "Memory pool access")])
def test_peer_access_on_the_cpu_is_refused_as_warp_refuses_it(call, what):
    with pytest.raises(ValueError, match=f"{what} is only supported between CUDA devices"):
        call()


def test_on_a_cuda_device_the_error_says_brickwork_keeps_no_pool_and_no_peer_access():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from cuda_fake import FakeDriver, installed

    with installed(FakeDriver(devices=2)):
        with pytest.raises(ValueError, match=r"cuMemAlloc and keeps no memory pool .*is_mempool_supported\('cuda:0'\)"):
            wp.set_mempool_enabled("cuda:0", True)
        with pytest.raises(ValueError, match="release threshold on cuda:1: brickwork allocates"):
            wp.get_mempool_release_threshold("cuda:1")
        wp.set_mempool_enabled("cuda:0", False)
        wp.set_peer_access_enabled("cuda:0", "cuda:1", False)
        with pytest.raises(ValueError, match="peer access from cuda:1 to cuda:0: brickwork does not enable"):
            wp.set_peer_access_enabled("cuda:0", "cuda:1", True)


def test_the_switches_refuse_unknown_devices():
    missing = f"cuda:{wp.get_cuda_device_count()}"
    for call in (lambda d: wp.set_mempool_enabled(d, False), lambda d: wp.set_mempool_enabled(d, True),
                 lambda d: wp.get_mempool_release_threshold(d), lambda d: wp.set_peer_access_enabled("cpu", d, False)):
        with pytest.raises(ValueError, match=f"Invalid device identifier: {missing}"):
            call(missing)


def test_a_device_named_again_is_the_same_and_is_synchronized_once():
    """``get_device("cuda:N")`` finds a device named before in one lookup (the launch path's): the same object
    each time, ``"cuda"`` the current CUDA device, names of no device still refused; ``wp.synchronize()``
    waits for each device once, and a fresh driver gets fresh devices."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from cuda_fake import FakeDriver, installed

    with installed(FakeDriver(devices=2)) as fake:
        first, second = wp.get_device("cuda:0"), wp.get_device("cuda:1")
        assert wp.get_device("cuda:0") is first and wp.get_device("cuda:1") is second
        assert (first.ordinal, second.ordinal, first.alias) == (0, 1, "cuda:0")
        with wp.ScopedDevice("cuda:1"):
            assert wp.get_device("cuda") is second
        for bad in ("cuda:2", "cuda:01x", "cuda:-1"):
            assert not wp.is_device_available(bad)
        wp.synchronize()
        assert fake.synchronized == [0, 1]
    with installed(FakeDriver(devices=1)):
        assert wp.get_device("cuda:0") is not first and wp.get_device("cuda:0").ordinal == 0
        assert not wp.is_device_available("cuda:1")
