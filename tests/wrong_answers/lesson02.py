"""Plausible wrong answers to lesson 2's exercises: each check must reject every one (tests/test_exercises.py)."""


# ---- L02.permute ------------------------------------------------------------------------------------------------

def permute_sizes_only(sizes, strides, offset, dims):        # moves the sizes, forgets that strides go with them
    return tuple(sizes[d] for d in dims), tuple(strides), offset


def permute_inverse(sizes, strides, offset, dims):           # applies the inverse permutation
    return tuple(sizes[dims.index(k)] for k in range(len(dims))), tuple(strides[dims.index(k)] for k in range(len(dims))), offset


def permute_fresh_strides(sizes, strides, offset, dims):     # thinks of a copy: row-major strides for the new shape
    new = tuple(sizes[d] for d in dims)
    out, running = [], 1
    for n in reversed(new):
        out.insert(0, running)
        running *= n
    return new, tuple(out), offset


def permute_offset_reset(sizes, strides, offset, dims):      # a new view starts at cell 0
    return tuple(sizes[d] for d in dims), tuple(strides[d] for d in dims), 0


# ---- L02.getitem ------------------------------------------------------------------------------------------------

def _slices(sizes, strides, offset, index, size_of, offset_of, stride_of):
    sizes, strides = list(sizes), list(strides)
    for d, s in enumerate(index):
        start, stop, step = s.indices(sizes[d])
        offset = offset_of(offset, start, strides[d])
        sizes[d] = size_of(start, stop, step)
        strides[d] = stride_of(strides[d], step)
    return tuple(sizes), tuple(strides), offset


def _ceil_size(start, stop, step):
    return len(range(start, stop, step))


def slice_forgets_offset(sizes, strides, offset, index):     # the start never moves the offset
    return _slices(sizes, strides, offset, index, _ceil_size, lambda o, a, s: o, lambda s, k: s * k)


def slice_offset_from_zero(sizes, strides, offset, index):   # start * stride, but not added to the input's offset
    return _slices(sizes, strides, offset, index, _ceil_size, lambda o, a, s: a * s, lambda s, k: s * k)


def slice_forgets_step(sizes, strides, offset, index):       # the stride is not multiplied by the step
    return _slices(sizes, strides, offset, index, _ceil_size, lambda o, a, s: o + a * s, lambda s, k: s)


def slice_floor_size(sizes, strides, offset, index):         # (stop - start) // step: one short when it does not divide
    return _slices(sizes, strides, offset, index, lambda a, b, k: max((b - a) // k, 0),
                   lambda o, a, s: o + a * s, lambda s, k: s * k)


def slice_inclusive_stop(sizes, strides, offset, index):     # off by one: counts the stop as included
    return _slices(sizes, strides, offset, index, lambda a, b, k: len(range(a, b + 1, k)),
                   lambda o, a, s: o + a * s, lambda s, k: s * k)


def slice_no_clamping(sizes, strides, offset, index):        # None and negative bounds handled, too-big ones not
    sizes, strides = list(sizes), list(strides)
    for d, s in enumerate(index):
        n, step = sizes[d], s.step or 1
        start = 0 if s.start is None else (s.start + n if s.start < 0 else s.start)
        stop = n if s.stop is None else (s.stop + n if s.stop < 0 else s.stop)
        offset += start * strides[d]
        sizes[d] = len(range(start, stop, step))
        strides[d] *= step
    return tuple(sizes), tuple(strides), offset


# ---- L02.expand -------------------------------------------------------------------------------------------------

def _expand(sizes, strides, offset, new_sizes, stretched_stride, new_dim_stride, check=True):
    lead = len(new_sizes) - len(sizes)
    out_sizes, out_strides = [], []
    for i, n in enumerate(new_sizes):
        d = i - lead
        if d < 0:
            if n < 0 and check:
                raise RuntimeError("-1 in a new dim")
            out_sizes.append(n)
            out_strides.append(new_dim_stride(out_sizes, i, new_sizes, sizes, strides))
        elif n == -1 or n == sizes[d]:
            out_sizes.append(sizes[d])
            out_strides.append(strides[d])
        elif sizes[d] == 1 or not check:
            out_sizes.append(n)
            out_strides.append(stretched_stride(strides[d]))
        else:
            raise RuntimeError("cannot expand")
    return tuple(out_sizes), tuple(out_strides), offset


def expand_keeps_stride(sizes, strides, offset, new_sizes):  # a stretched size-1 dim keeps its stride, not 0
    return _expand(sizes, strides, offset, new_sizes, lambda s: s, lambda *a: 0)


def expand_new_dims_contiguous(sizes, strides, offset, new_sizes):   # new leading dims step over the whole tensor
    def new_dim_stride(out_sizes, i, new_sizes, sizes, strides):
        span = 1
        for n, s in zip(sizes, strides):
            span = max(span, n * s)
        return span
    return _expand(sizes, strides, offset, new_sizes, lambda s: 0, new_dim_stride)


def expand_never_refuses(sizes, strides, offset, new_sizes):  # stretches any size, where PyTorch raises
    return _expand(sizes, strides, offset, new_sizes, lambda s: 0, lambda *a: 0, check=False)


def expand_all_strides_zero(sizes, strides, offset, new_sizes):   # "expand means stride 0": even for kept dims
    return _expand(sizes, strides, offset, new_sizes, lambda s: 0, lambda *a: 0)[:1] + \
        ((0,) * len(new_sizes), offset)


# ---- L02.predict_strides ----------------------------------------------------------------------------------------

def predict_fresh_strides():            # every view as if it were a fresh tensor of its shape, at offset 0
    return [((6, 3, 1), 0), ((8, 4, 1), 0), ((4, 2, 1), 0), ((4, 1), 0), ((3, 1), 0),
            ((15, 5, 1), 0), ((6, 3, 1), 0), ((4, 1), 0)]


def predict_without_steps():            # right, except that a step leaves the stride as it was
    return [((1, 12, 4), 0), ((4, 12, 1), 0), ((12, 4, 1), 4), ((4, 1), 12), ((12, 4), 1),
            ((0, 1, 0), 0), ((1, 12, 4), 1), ((4, 1), 0)]


def predict_offsets_zero():             # right strides, but every view starts at cell 0
    return [((1, 12, 4), 0), ((4, 12, 1), 0), ((12, 4, 2), 0), ((8, 1), 0), ((12, 4), 0),
            ((0, 1, 0), 0), ((1, 12, 4), 0), ((4, 1), 0)]


def predict_expand_keeps():             # right, except expand keeps y's strides (1, 1) instead of 0
    return [((1, 12, 4), 0), ((4, 12, 1), 0), ((12, 4, 2), 4), ((8, 1), 12), ((12, 4), 1),
            ((0, 1, 1), 0), ((1, 12, 4), 1), ((4, 1), 0)]


WRONG = {
    "L02.permute": [permute_sizes_only, permute_inverse, permute_fresh_strides, permute_offset_reset],
    "L02.getitem": [slice_forgets_offset, slice_offset_from_zero, slice_forgets_step, slice_floor_size,
                    slice_inclusive_stop, slice_no_clamping],
    "L02.expand": [expand_keeps_stride, expand_new_dims_contiguous, expand_never_refuses,
                   expand_all_strides_zero],
    "L02.predict_strides": [predict_fresh_strides, predict_without_steps, predict_offsets_zero, predict_expand_keeps],
}
