"""Plausible wrong answers to lesson 1's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch as tt


def strides_fortran(shape):                       # the first dim moves fastest (column-major)
    strides, running = [], 1
    for n in shape:
        strides.append(running)
        running *= max(n, 1)
    return tuple(strides)


def strides_off_by_one(shape):                    # multiplies before storing: every stride one dim too big
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        running *= max(shape[d], 1)
        strides[d] = running
    return tuple(strides)


def strides_zero_size(shape):                     # forgets PyTorch's rule for size-0 dims
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = running
        running *= shape[d]
    return tuple(strides)


def offset_forgotten(index, strides, offset):     # leaves out the storage offset
    return sum(i * s for i, s in zip(index, strides))


def offset_reversed_strides(index, strides, offset):   # pairs index[0] with the last stride
    return offset + sum(i * s for i, s in zip(index, reversed(strides)))


def offset_row_major_guess(index, strides, offset):    # assumes contiguous strides, ignores the given ones
    sizes = [s + 1 for s in index]
    return offset + sum(i * s for i, s in zip(index, tt._strides.contiguous_strides(sizes)))


WRONG = {
    "L01.contiguous_strides": [strides_fortran, strides_off_by_one, strides_zero_size],
    "L01.index_to_offset": [offset_forgotten, offset_reversed_strides, offset_row_major_guess],
}
