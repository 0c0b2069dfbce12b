"""The hooked branch of a launch: what runs when ``config.print_launches`` is true, the one check the launch paths
make. It holds the user's setting, or, while ``wp.timing_begin`` is open, timing's ``HooksOn`` (runtime/timing.py).
A hooked launch prints its line (print_launches) and then runs as a plain launch, timed where a range wants it: on
the CPU around the native call, on a CUDA device by the timed ``CudaEntry.launch`` (events on its stream)."""

from __future__ import annotations

from .. import config
from .. import device as _devices
from .. import timing_state as _state
from . import launch as _launch
from . import tape as _tape
from .launch_printing import print_launch
from .timing import HooksOn, kernel_activity, time_host, wanted


def printing(hooks) -> bool:
    """Whether launches print their line: ``config.print_launches`` as the user set it."""
    return bool(hooks.printing if type(hooks) is HooksOn else hooks)


class _TimedCall:
    """Stands in for the graph being captured (``launch._capture``) during one hooked CPU launch: the launch hands
    it the packed call, which it runs, timed, instead of recording it."""

    __slots__ = ("rng", "name", "flag", "inst", "args")

    def __init__(self, rng, name: str, flag: int):
        self.rng, self.name, self.flag = rng, name, flag
        self.inst = self.args = None

    def record(self, inst, buf, args) -> None:
        self.inst, self.args = inst, args
        time_host(self.rng, self.name, self.flag, _call, inst, buf)


def _call(inst, buf) -> None:
    if inst.fn(buf):  # declined: an array with a non-unit innermost stride (as launch)
        inst.run_with_general_strides(buf)


def _on_cuda(device) -> bool:
    if device is None:
        return _devices._current is not _devices.CPU
    return device != "cpu" and _devices.get_device(device).is_cuda


def _run(call, kernel, device, backward: bool):
    """``call()`` (a launch without hooks), timed when the innermost range wants its activity. Returns the
    ``_TimedCall`` of a timed CPU launch that ran (its instance and arguments), else None."""
    hooks = config.print_launches
    config.print_launches = False  # the launch below takes the plain path
    try:
        name, flag = kernel_activity(kernel, backward)
        rng = wanted(flag)
        if rng is None or _launch._capture is not None:  # launches recorded into a graph are not timed (Warp's)
            call()
            return None
        if _on_cuda(device):
            _state.pending = (name, flag)
            try:
                call()
            finally:
                _state.pending = None
            return None
        timed = _TimedCall(rng, name, flag)
        _launch._capture = timed
        try:
            call()
        finally:
            _launch._capture = None
        return timed if timed.inst is not None else None
    finally:
        config.print_launches = hooks


def hooked_launch(kernel, dim, inputs, outputs, device, stream, record_tape, max_blocks, block_dim) -> None:
    """``launch`` with its hooks: the print_launches line, then the launch, timed where a range wants it."""
    if stream is not None and not hasattr(stream, "cuda_stream"):
        raise _launch.not_a_stream(kernel, stream)  # before its line is printed
    where = device if device is not None or stream is None else stream.device
    if printing(config.print_launches):
        print_launch(kernel, dim, inputs, outputs, where)
    timed = _run(lambda: _launch.launch(kernel, dim, inputs, outputs, device=device, stream=stream,
                                        record_tape=record_tape, max_blocks=max_blocks, block_dim=block_dim),
                 kernel, where, False)
    if timed is not None:  # what launch does after the call, which the timed call returned before
        args = timed.args
        if _tape.recording and record_tape and config.verify_autograd_array_access:
            from .array_access import after_launch

            after_launch(kernel, timed.inst, args)
        if config.verify_fp:
            from .verify_fp import check_launch

            check_launch(kernel, timed.inst, args)


def hooked_adjoint(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device) -> None:
    """``tape.launch_adjoint`` with its hooks (a 'kernel backward' line, a 'backward kernel' activity)."""
    if printing(config.print_launches):
        print_launch(kernel, dim, inputs, outputs, device, backward=True)
    _run(lambda: _tape.launch_adjoint(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device),
         kernel, "cpu" if device is None else device, True)  # launch_adjoint's None: the CPU
