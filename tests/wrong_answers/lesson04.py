"""Plausible wrong answers to lesson 4's exercises: each check must reject every one (tests/test_exercises.py)."""

import math
from itertools import product

from teachtorch._strides import contiguous_strides


def _indices(shape):
    return product(*(range(n) for n in shape))


def _pos(index, strides, offset):
    return offset + sum(i * s for i, s in zip(index, strides))


# ---- L04.strided_map ---------------------------------------------------------------------------------------

def map_offset_forgotten(fn, out, a):              # positions without the storage offsets
    for index in _indices(out.shape):
        out.storage[_pos(index, out.strides, 0)] = fn(a.storage[_pos(index, a.strides, 0)])


def map_out_with_input_strides(fn, out, a):        # one position for both: the input's strides
    for index in _indices(out.shape):
        out.storage[_pos(index, a.strides, out.offset)] = fn(a.storage[_pos(index, a.strides, a.offset)])


def map_flat_always(fn, out, a):                   # the contiguous fast path, without checking it applies
    for k in range(math.prod(out.shape)):
        out.storage[out.offset + k] = fn(a.storage[a.offset + k])


def map_reads_input_only_through_offset(fn, out, a):   # a contiguous input assumed: its strides ignored
    strides = contiguous_strides(a.shape)
    for index in _indices(out.shape):
        out.storage[_pos(index, out.strides, out.offset)] = fn(a.storage[_pos(index, strides, a.offset)])


# ---- L04.strided_sum ---------------------------------------------------------------------------------------

def _sum(a, dim, keepdim, shape_of, strides_of=contiguous_strides):
    dim = dim % len(a.shape)
    shape = shape_of(a.shape, dim, keepdim)
    strides = strides_of(shape)
    storage = [0.0] * math.prod(shape)
    for index in _indices(a.shape):
        kept = index[:dim] + ((0,) if keepdim else ()) + index[dim + 1:]
        storage[_pos(kept, strides, 0)] += a.storage[_pos(index, a.strides, a.offset)]
    return storage, shape, strides, 0


def sum_keepdim_ignored(a, dim, keepdim=False):     # always drops the reduced dim
    return _sum(a, dim, False, lambda s, d, k: s[:d] + s[d + 1:])


def sum_keepdim_at_the_end(a, dim, keepdim=False):  # keeps the dim, but as a trailing 1
    def shape_of(s, d, k):
        return s[:d] + s[d + 1:] + ((1,) if k else ())
    storage, shape, strides, offset = _sum(a, dim, False, lambda s, d, k: s[:d] + s[d + 1:])
    shape = shape_of(a.shape, dim % len(a.shape), keepdim)
    return storage, shape, contiguous_strides(shape), offset


def sum_over_last_dim(a, dim, keepdim=False):       # reduces the last dim, whichever was asked
    return sum_keepdim_reference(a, len(a.shape) - 1, keepdim)


def sum_keepdim_reference(a, dim, keepdim=False):
    return _sum(a, dim, keepdim, lambda s, d, k: s[:d] + ((1,) if k else ()) + s[d + 1:])


def sum_output_like_input(a, dim, keepdim=False):   # the output copies the input's strides (not contiguous)
    d = dim % len(a.shape)
    storage, shape, strides, offset = sum_keepdim_reference(a, dim, keepdim)
    kept = a.strides[:d] + ((a.strides[d],) if keepdim else ()) + a.strides[d + 1:]
    return storage, shape, tuple(kept), offset


# ---- L04.strided_zip ---------------------------------------------------------------------------------------

def _zip_loop(fn, out, a, b):
    for index in _indices(out.shape):
        x = a.storage[_pos(index, a.strides, a.offset)]
        y = b.storage[_pos(index, b.strides, b.offset)]
        out.storage[_pos(index, out.strides, out.offset)] = fn(x, y)


def zip_sizes_swapped(fn, out, a, b):              # b's size first in the message
    for d in reversed(range(len(a.shape))):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(f"The size of tensor a ({b.shape[d]}) must match the size of tensor b "
                               f"({a.shape[d]}) at non-singleton dimension {d}")
    _zip_loop(fn, out, a, b)


def zip_checks_after_writing(fn, out, a, b):       # out.copy_(a), then out.op_(b): the check comes too late
    for index in _indices(out.shape):
        out.storage[_pos(index, out.strides, out.offset)] = a.storage[_pos(index, a.strides, a.offset)]
    zip_sizes_checked_from_the_right(fn, out, out, b)


def zip_sizes_checked_from_the_right(fn, out, a, b):
    for d in reversed(range(len(a.shape))):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(f"The size of tensor a ({a.shape[d]}) must match the size of tensor b "
                               f"({b.shape[d]}) at non-singleton dimension {d}")
    _zip_loop(fn, out, a, b)


def zip_first_mismatch_from_the_left(fn, out, a, b):   # reports the first differing dim from the left
    for d in range(len(a.shape)):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(f"The size of tensor a ({a.shape[d]}) must match the size of tensor b "
                               f"({b.shape[d]}) at non-singleton dimension {d}")
    _zip_loop(fn, out, a, b)


def zip_value_error(fn, out, a, b):                # the right words, the wrong exception type
    if tuple(a.shape) != tuple(b.shape):
        d = max(d for d in range(len(a.shape)) if a.shape[d] != b.shape[d])
        raise ValueError(f"The size of tensor a ({a.shape[d]}) must match the size of tensor b "
                         f"({b.shape[d]}) at non-singleton dimension {d}")
    _zip_loop(fn, out, a, b)


WRONG = {
    "L04.strided_map": [map_offset_forgotten, map_out_with_input_strides, map_flat_always,
                        map_reads_input_only_through_offset],
    "L04.strided_sum": [sum_keepdim_ignored, sum_keepdim_at_the_end, sum_over_last_dim, sum_output_like_input],
    "L04.strided_zip": [zip_sizes_swapped, zip_checks_after_writing, zip_first_mismatch_from_the_left,
                        zip_value_error],
}
