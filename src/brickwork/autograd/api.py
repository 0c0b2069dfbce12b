"""The public functions of ``brickwork.autograd``: Jacobians, gradient checks of a launch and of a tape."""

from __future__ import annotations

from ..lang.modules import backward_enabled
from ..runtime.tape import Tape
from .check import compare, mismatch_message, summary_lines, verdict
from .jacobians import _limit, jacobian_ad, jacobian_finite_differences
from .metadata import components
from .target import Target


def _plot(jacobians: dict, meta, inputs, title: str | None = None):
    from .plot import jacobian_plot

    jacobian_plot(jacobians, meta, inputs=inputs, title=title)


def jacobian(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None, max_blocks=0,
             block_dim=None, max_outputs_per_var=-1, plot_jacobians=False, metadata=None,
             restore_inputs: bool = True) -> dict:
    """Jacobians by the backward pass: ``{(input index, output index): array}``.

    ``function`` is a kernel (launched over ``dim`` with ``inputs`` and ``outputs``) or a Python function
    called as ``function(*inputs)`` that returns its output array(s). Each Jacobian has a row per output
    scalar and a column per input element (the array has the input's dtype, so a ``vec3`` input gives
    three scalar columns per element); rows past ``max_outputs_per_var`` (when > 0) are NaN.
    ``input_output_mask`` lists the (input, output) pairs wanted, by name or index. With
    ``restore_inputs`` the arrays' values are put back afterwards; gradients and read flags always are.
    Raises ValueError when a kernel has no backward pass (``enable_backward=False``).
    """
    target = Target("jacobian", function, dim, inputs, outputs, device, max_blocks, block_dim)
    jacobians, meta = jacobian_ad(target, input_output_mask, max_outputs_per_var, restore_inputs, metadata)
    if plot_jacobians:
        _plot(jacobians, meta, target.inputs)
    return jacobians


def jacobian_fd(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None, max_blocks=0,
                block_dim=None, max_inputs_per_var=-1, eps: float = 1e-4, plot_jacobians=False, metadata=None,
                restore_inputs: bool = True) -> dict:
    """Jacobians by central finite differences, ``(f(x + eps) - f(x - eps)) / (2 eps)`` per input scalar.

    Arguments and result as ``jacobian``; columns past ``max_inputs_per_var`` (when > 0) are NaN. Only
    forward launches run, so kernels without a backward pass are fine. With ``restore_inputs`` each
    evaluation starts from the arrays' original values (a function that changes its inputs in place
    gives consistent differences) and they are put back afterwards.
    """
    target = Target("jacobian_fd", function, dim, inputs, outputs, device, max_blocks, block_dim)
    jacobians, meta = jacobian_finite_differences(target, input_output_mask, max_inputs_per_var, eps,
                                                  restore_inputs, metadata)
    if plot_jacobians:
        _plot(jacobians, meta, target.inputs)
    return jacobians


def gradcheck(function, dim=None, inputs=None, outputs=None, *, eps: float = 1e-4, atol: float = 1e-3,
              rtol: float = 1e-2, raise_exception: bool = True, input_output_mask=None, device=None, max_blocks=0,
              block_dim=None, max_inputs_per_var=-1, max_outputs_per_var=-1, plot_relative_error=False,
              plot_absolute_error=False, show_summary: bool = True, restore_inputs: bool = True) -> bool:
    """Compare the Jacobians by autodiff (``jacobian``) with finite differences (``jacobian_fd``).

    An entry passes when ``|AD - FD| <= atol + rtol * |FD|``; a NaN fails. Only the part both computed is
    compared (``max_outputs_per_var`` rows, ``max_inputs_per_var`` scalar columns). ``show_summary``
    prints a table (per input and output: the largest absolute error and where, the AD and FD values
    there, the largest relative error, PASS/FAIL/NaN) and a verdict. Returns whether all passed; when
    not and ``raise_exception``, raises ValueError naming the first failing input and output.
    ``plot_relative_error``/``plot_absolute_error`` draw the errors with ``jacobian_plot``.
    """
    target = Target("gradcheck", function, dim, inputs, outputs, device, max_blocks, block_dim)
    fd, meta = jacobian_finite_differences(target, input_output_mask, max_inputs_per_var, eps, restore_inputs)
    ad, _ = jacobian_ad(target, input_output_mask, max_outputs_per_var, restore_inputs, meta)
    results = []
    for key in sorted(ad):
        x, y = target.inputs[key[0]], target.outputs[key[1]]
        rows = _limit(y.size * components(y), max_outputs_per_var)
        columns = _limit(x.size * components(x), max_inputs_per_var)
        results.append(compare(key, ad[key].numpy(), fd[key].numpy(), rows, columns, atol, rtol))
    passed = all(r.passed for r in results)
    name = meta.key
    if show_summary:
        print("\n".join(summary_lines(results, meta.input_labels, meta.output_labels)))
        print(verdict(name, passed))
    for wanted, what in ((plot_relative_error, "relative"), (plot_absolute_error, "absolute")):
        if wanted:
            errors = {(r.input, r.output): getattr(r, f"{what[:3]}_error") for r in results}
            _plot(errors, meta, target.inputs, title=f"{name} kernel Jacobian {what} error")
    if not passed and raise_exception:
        raise ValueError(mismatch_message(name, next(r for r in results if not r.passed)))
    return passed


def gradcheck_tape(tape: Tape, *, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True, input_output_masks=None,
                   blacklist_kernels=None, whitelist_kernels=None, max_inputs_per_var=-1, max_outputs_per_var=-1,
                   plot_relative_error=False, plot_absolute_error=False, show_summary: bool = True,
                   reverse_launches: bool = False, skip_to_launch_index: int = 0) -> bool:
    """Run ``gradcheck`` on each kernel launch ``tape`` recorded, with the arrays as they are now.

    Launches of kernels without a backward pass, of kernels named in ``blacklist_kernels`` or (when
    given) not named in ``whitelist_kernels`` are skipped, as are Python steps (``record_func``) and the
    launches before ``skip_to_launch_index``; ``reverse_launches`` checks the last launch first.
    ``input_output_masks`` maps a kernel's name to its ``input_output_mask``. Returns whether every check
    passed; with ``raise_exception`` the first failing check raises ValueError.
    """
    if not isinstance(tape, Tape):
        raise TypeError(f"gradcheck_tape(): tape must be a wp.Tape, got {type(tape).__name__}")
    masks = input_output_masks or {}
    entries = list(enumerate(tape.launches))[skip_to_launch_index:]
    passed = True
    for _, entry in (reversed(entries) if reverse_launches else entries):
        if callable(entry):
            continue
        kernel, dim, inputs, outputs, device = entry[:5]
        if not backward_enabled(kernel) or kernel.key in (blacklist_kernels or ()):
            continue
        if whitelist_kernels is not None and kernel.key not in whitelist_kernels:
            continue
        passed &= gradcheck(kernel, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                            raise_exception=raise_exception, input_output_mask=masks.get(kernel.key),
                            device=device, max_inputs_per_var=max_inputs_per_var,
                            max_outputs_per_var=max_outputs_per_var, plot_relative_error=plot_relative_error,
                            plot_absolute_error=plot_absolute_error, show_summary=show_summary)
    return passed

