"""Warp's device queries: ``get_devices``, ``is_device_available`` and the memory-pool and peer-access queries
(brickwork uses neither CUDA memory pools nor peer access, so they answer False for every device they know)."""

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
