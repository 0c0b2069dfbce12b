"""The launch's test of the array fields that a kernel reads, at every launch point, through the elements of an
array-of-structs argument (``ss[i].points[j]``: ``ir/launch_bounds``, the "elements" entries).

An element of ``wp.zeros(n, dtype=S)`` or ``wp.empty(n, dtype=S)`` holds a null array in each array field (its
descriptor is zero bytes: a null address and shape 0), and so does one whose struct value left the field unset.
A kernel indexing it read or wrote through the null address and crashed the process. The packer calls the test
made here before anything runs: it reads the field's shapes of the elements the launch points reach, straight
from the struct records, and refuses the launch, naming the element, when one is unset (zero bytes: shape 0)
or shorter than the access needs. Only those elements are read (one numpy pass per axis of the field, per
launch of such a kernel only); arrays in device memory are not read back for it. A record whose bytes were
written by hand (through ``a.numpy()``) is taken as it is.
"""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError
from ..types.arrays import array


def element_check(entry, key: str, names: tuple):
    """``check(value, dims)`` for one "elements" entry of ``tid_bounds``: raises a ``LaunchError`` when an
    element of ``value`` that launch dims ``dims`` reach holds a null or too short array at the entry's field."""
    i, _, terms, _, where, path, reaches = entry
    name = names[i] if i < len(names) else f"argument {i}"

    def check(value, dims):
        if type(value) is not array or not value.device.is_cpu:  # device memory: not read back per launch
            return
        box = tuple(slice(off, dims[c] + off) if c >= 0 else slice(off - 1, off) for c, off in terms)
        column = value._np[box]
        for field in path:
            column = column[field]
        if not column.size:
            return
        # the descriptors as int64 words, in place (a record's field bytes are contiguous): the address, the
        # shape, then the element strides (and an indexed array's index addresses). An unset field is zero bytes
        # (wp.zeros, a zeroed wp.empty, a struct value's None), so its shape is 0: one strided min per axis
        # (about 0.6 ns an element) finds both it and a field too short
        words = column.view(np.int64)
        needs = [dims[c] + off if c >= 0 else off for c, off in reaches]
        if any(_least(words[..., 1 + axis]) < need for axis, need in enumerate(needs)):
            bad = (words[..., 0] == 0) | (words[..., 1:1 + len(needs)] < needs).any(axis=-1)
            _refuse(key, name, where, path, box, words, needs, np.argwhere(bad)[0])

    return check


def _least(column: np.ndarray) -> int:
    """The least of an int64 column: through a list for a few elements (numpy's reduction costs a few
    microseconds of calls), numpy's for more."""
    return min(column.ravel().tolist()) if column.size <= 64 else column.min()


def _refuse(key, name, where, path, box, words, needs, first):
    """Raise the ``LaunchError`` for the element at position ``first`` of ``box``."""
    index = tuple(int(s.start + k) for s, k in zip(box, first))
    element = f"{name}[{', '.join(map(str, index))}]"
    field = f"{element}.{'.'.join(path)}"
    descriptor = words[tuple(first)]
    access = f"the access of '{name}[...].{'.'.join(path)}' at {where} runs at every launch point"
    if descriptor[0] == 0:
        raise LaunchError(f"launch of '{key}': {access}, but '{field}' is None (the field was never set, as in an "
                          f"element of wp.zeros or wp.empty): set it in every element this launch reaches")
    shape = tuple(int(n) for n in descriptor[1:1 + len(needs)])
    axis = next(k for k, need in enumerate(needs) if shape[k] < need)
    raise LaunchError(f"launch of '{key}': {access}, and this launch takes it to index {needs[axis] - 1} on its axis "
                      f"{axis}, but '{field}' has shape {shape}; launch over the arrays' shapes, or test the index "
                      f"before the access")
