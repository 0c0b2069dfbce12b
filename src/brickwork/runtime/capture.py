"""Graph capture: ``capture_begin`` ... ``capture_end`` record launches into a ``Graph`` that
``capture_launch`` replays, with the conditional nodes ``capture_if`` / ``capture_while``.

The graph being captured is ``launch._capture``: the launch fast path reads it on every launch, so it
stays a global of that module (one global lookup); this module sets and reads it there.
"""

from __future__ import annotations

import enum

import numpy as np

from .. import timing_state as _timing
from ..errors import CaptureError
from ..lang.instance import _pending, build_instances
from ..lang.kernel import Kernel
from ..types import recording
from ..types.arrays import array
from ..types.generic import describe_value
from ..types.held_arrays import arrays_in
from ..types.scalars import is_scalar_type
from ..types.structs import StructBase
from . import launch as _launch
from . import live_ids, streams
from .packing import PARALLEL_FLAG, field_id, on_one_thread

_replay_stream = None  # the stream given to the capture_launch running now (its CUDA launches go there)


class CaptureMode(enum.IntEnum):
    """Warp's CUDA stream-capture modes (``cudaStreamCaptureMode``), taken by ``capture_begin`` and
    ``ScopedCapture``. brickwork records launches itself, on every device, and opens no CUDA stream capture, so
    every mode records the same (as on Warp's CPU, which ignores it)."""

    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class Graph:
    """Launches recorded between ``capture_begin`` and ``capture_end``, replayed by ``capture_launch``."""

    def __init__(self):
        self.calls: list = []  # (instance, packed arguments)
        self._keep_alive: list = []
        # nodes a CUDA graph can hold: CUDA launches (runtime/cuda_launch.py), memsets and copies on a device
        # (runtime/cuda_memory_nodes.py)
        self.cuda_nodes = 0
        self._cuda_graph = None  # their CUDA graph (runtime/cuda_graph.py), made at the first replay; False: none
        self._on_one_thread = None  # the calls with every CPU launch on one thread (made at the first starved replay)

    def record(self, inst, buf, args):
        self.calls.append((inst, buf))
        self._keep_alive.append(tuple(a for a in args if isinstance(a, (array, StructBase))))
        # and the arrays in struct arguments' fields as they are now: the packed struct points at them, and a
        # field assigned another array after the capture freed the first, which the replay then wrote
        self._keep_alive += [field for a in args if isinstance(a, StructBase) for _, field in arrays_in(a)]
        # the meshes, BVHs, hash grids and volumes whose ids it passes to their queries (checked live by the
        # packer): a replay follows the ids, so the graph holds the objects (a replay after `del grid` read the
        # freed grid and crashed)
        for i, kind, *rest in inst.tid_bounds:
            if kind in live_ids.LIVE and i < len(args):
                if len(rest) > 2:  # a uint64 array whose elements are ids: the objects of those it holds now
                    values = live_ids.ids_in(args[i]).tolist()
                else:
                    values = [field_id(args[i], rest[1]) if len(rest) > 1 else getattr(args[i], "value", args[i])]
                held = [live_ids.holder(kind, int(v)) for v in values]
                self._keep_alive += [h for h in held if h is not None]

    def __len__(self):
        return len(self.calls)

    def calls_on_one_thread(self) -> list:
        """For each of ``calls``, a CPU launch on several threads: its packed arguments with the parallel flag
        cleared; anything else: None. A replay runs a launch so while the process is starved of CPU time
        (runtime/starvation.py), as a launch made then would run."""
        if self._on_one_thread is None or len(self._on_one_thread) != len(self.calls):
            self._on_one_thread = [None if inst is None or not buf[PARALLEL_FLAG] else on_one_thread(buf)
                                   for inst, buf in self.calls]
        return self._on_one_thread


class _HostCall:
    """A graph node: an array write from the host (``fill_``, ``zero_``, ``assign``, ``wp.copy``, item
    assignment) made during the capture, run at each replay (types/recording.py); one within a CUDA device is
    a ``cuda_memory_nodes.MemoryNode`` instead."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def run(self) -> None:
        self.fn(*self.args)


class _Replay:
    """A graph node: a captured graph launched during the capture of another (replayed with it)."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def run(self) -> None:
        capture_launch(self.graph)


def _record_host_call(fn, args) -> None:
    """Record a host write: a memset or a copy within one CUDA device as a node a CUDA graph can hold
    (cuda_memory_nodes.py), any other as a host call."""
    from .cuda_memory_nodes import memory_node

    graph = _launch._capture
    node = memory_node(fn, args)
    if node is None:
        graph.calls.append((None, _HostCall(fn, args)))
    else:
        graph.calls.append((None, node))
        graph.cuda_nodes += 1


def replay_stream_handle(device) -> int:
    """The handle of the stream a CUDA node on ``device`` runs on in a node-by-node replay: the stream given to
    ``capture_launch`` where it is one of ``device``, else the device's current stream (0: the legacy one)."""
    stream = _replay_stream
    if stream is None or stream.device != device:
        stream = streams._current.get(device.ordinal)
    return 0 if stream is None else stream.cuda_stream


def capture_begin(device=None, stream=None, force_module_load=None, external=False, apic=False,
                  capture_mode=CaptureMode.THREAD_LOCAL):
    """Start recording launches (they are recorded, not run, until ``capture_end``). ``apic`` (Warp's permission
    for ``capture_save``, which brickwork has not) and ``capture_mode`` (a ``CaptureMode``) change nothing here."""
    try:
        CaptureMode(capture_mode)
    except ValueError:
        raise ValueError(f"capture_mode must be a wp.CaptureMode (GLOBAL, THREAD_LOCAL or RELAXED), got "
                         f"{capture_mode!r}") from None
    if _launch._capture is not None:
        raise CaptureError("capture_begin() while a capture is already active")
    if _pending:  # build declared instances now: nothing compiles while recording
        build_instances(list(_pending))
    _launch._capture = Graph()
    recording.recorder = _record_host_call


def capture_end(device=None, stream=None) -> Graph:
    """Stop recording and return the graph."""
    graph = _launch._capture
    if graph is None:
        raise CaptureError("capture_end() without capture_begin()")
    _launch._capture = None
    recording.recorder = None
    return graph


def capture_launch(graph: Graph, stream=None) -> None:
    """Replay every launch of ``graph`` in order with its recorded arguments (and its ``capture_if`` /
    ``capture_while`` nodes, which read their condition now, and its array writes from the host). Its CUDA
    launches go to ``stream`` where it is a stream of their device, else to the device's current stream; a
    graph of CUDA launches on one device and nothing else runs as one CUDA graph (made at its first replay).
    Launched while another graph is captured, it is recorded into that one instead: a graph of CUDA launches
    only as its launches (they replay the same, and the outer graph may then be a CUDA graph too), any other as
    one node."""
    capturing = _launch._capture
    if capturing is not None:
        if graph.cuda_nodes and graph.cuda_nodes == len(graph.calls):
            capturing.calls.extend(graph.calls)
            capturing.cuda_nodes += graph.cuda_nodes
            capturing._keep_alive.append((graph,))
        else:
            capturing.calls.append((None, _Replay(graph)))
        return
    if graph.cuda_nodes and graph.cuda_nodes == len(graph.calls):
        cuda = graph._cuda_graph
        if cuda is None:
            from .cuda_graph import instantiate

            cuda = instantiate(graph)
            graph._cuda_graph = False if cuda is None else cuda
        if cuda:
            cuda.launch(stream if stream is not None else _replay_stream)
            return
    if _timing.ranges and not _timing.replaying:  # wp.timing_begin: the replay is one "graph" activity
        return _timing.graph_activity(_replay, graph, stream)
    _replay(graph, stream)


def _replay(graph: Graph, stream) -> None:
    """``capture_launch``'s replay of ``graph`` by the host, launch by launch."""
    global _replay_stream
    outer, _replay_stream = _replay_stream, stream if stream is not None else _replay_stream
    try:
        # each parallel launch asks the guard, as a launch made now would: a long replay can span many windows
        for (inst, buf), alone in zip(graph.calls, graph.calls_on_one_thread()):
            if inst is None:  # a conditional node, a host call, a graph or a CUDA launch
                buf.run()
                continue
            if alone is not None and _launch.starved():
                buf = alone
            if inst.fn(buf):  # declined: see launch
                inst.run_with_general_strides(buf)
    finally:
        _replay_stream = outer


# -- conditional graph nodes (Warp's capture_if / capture_while) ----------------------------------------------
class _Conditional:
    """A graph node: ``body`` replayed when ``condition[0]`` is nonzero, else ``otherwise`` (``capture_if``),
    or ``body`` replayed as long as it is (``capture_while``)."""

    __slots__ = ("condition", "body", "otherwise", "loop")

    def __init__(self, condition, body, otherwise, loop: bool):
        self.condition, self.body, self.otherwise, self.loop = condition, body, otherwise, loop

    def run(self) -> None:
        if self.loop:
            while _condition_value(self.condition):
                capture_launch(self.body)
            return
        chosen = self.body if _condition_value(self.condition) else self.otherwise
        if chosen is not None:
            capture_launch(chosen)


def _condition_value(condition) -> bool:
    return bool(condition.numpy().flat[0])


def _check_branch(where: str, condition, bodies: dict) -> None:
    scalar = getattr(condition, "dtype", None)
    if (not isinstance(condition, array) or condition.size < 1 or not is_scalar_type(scalar)
            or not (scalar.is_int or scalar._np is np.bool_)):
        raise TypeError(f"{where}: condition must be a wp.array of integers (its first element is the condition), "
                        f"got {describe_value(condition)}")
    for name, body in bodies.items():
        if body is not None and (not callable(body) or isinstance(body, Kernel)) and not isinstance(body, Graph):
            raise TypeError(f"{where}: {name} must be a function or a captured Graph, got {type(body).__name__}")


def _recorded(body, kwargs):
    """A branch body as a graph: a Graph as it is, a function's launches recorded into a new one."""
    if body is None or isinstance(body, Graph):
        return body
    outer, _launch._capture = _launch._capture, Graph()
    try:
        body(**kwargs)
    finally:
        sub, _launch._capture = _launch._capture, outer
    return sub


def _run_now(body, kwargs) -> None:
    if isinstance(body, Graph):
        capture_launch(body)
    elif body is not None:
        body(**kwargs)


def _add_conditional(node: _Conditional) -> None:
    graph = _launch._capture
    graph.calls.append((None, node))
    graph._keep_alive.append((node.condition,))


def capture_if(condition, on_true=None, on_false=None, stream=None, **kwargs) -> None:
    """Run ``on_true`` when ``condition[0]`` is nonzero, else ``on_false`` (functions called with
    ``kwargs``, or captured Graphs). While capturing, both are recorded and the choice is made each
    time the graph is replayed, from the condition's value then."""
    _check_branch("capture_if", condition, {"on_true": on_true, "on_false": on_false})
    if _launch._capture is None:
        _run_now(on_true if _condition_value(condition) else on_false, kwargs)
        return
    _add_conditional(_Conditional(condition, _recorded(on_true, kwargs), _recorded(on_false, kwargs), loop=False))


def capture_while(condition, while_body, stream=None, **kwargs) -> None:
    """Run ``while_body`` (a function called with ``kwargs``, or a captured Graph) as long as
    ``condition[0]`` is nonzero; the body updates the condition. While capturing, the body is recorded
    once and the loop runs each time the graph is replayed."""
    if while_body is None:
        raise TypeError("capture_while: while_body must be a function or a captured Graph, got None")
    _check_branch("capture_while", condition, {"while_body": while_body})
    if _launch._capture is None:
        while _condition_value(condition):
            _run_now(while_body, kwargs)
        return
    _add_conditional(_Conditional(condition, _recorded(while_body, kwargs), None, loop=True))


class ScopedCapture:
    """``with wp.ScopedCapture() as capture:`` records the block's launches (``capture_begin``); at the
    end of the block ``capture.graph`` holds them for ``wp.capture_launch(capture.graph)``. An exception
    in the block ends the capture (``graph`` stays None) and propagates."""

    def __init__(self, device=None, stream=None, force_module_load=None, external=False, apic=False,
                 capture_mode=CaptureMode.THREAD_LOCAL):
        self.device, self.stream = device, stream
        self.force_module_load, self.external = force_module_load, external
        self.apic, self.capture_mode = apic, capture_mode
        self.graph: Graph | None = None

    def __enter__(self):
        capture_begin(self.device, self.stream, self.force_module_load, self.external, self.apic, self.capture_mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        graph = capture_end(self.device, self.stream)
        if exc_type is None:
            self.graph = graph
        return None


def is_conditional_graph_supported() -> bool:
    """Whether graphs can hold ``capture_if``/``capture_while`` nodes: always here (every device's graph reads
    its condition at replay); Warp's answer depends on the CUDA driver and toolkit (12.4 or later)."""
    return True


def is_capturing() -> bool:
    """Whether launches are being recorded into a graph (between ``capture_begin`` and ``capture_end``)."""
    return _launch._capture is not None
