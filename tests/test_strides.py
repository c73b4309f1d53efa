"""Tests for teachtorch/_strides.py, using real PyTorch as the oracle.

Every function is checked on hand-picked cases (the lesson examples, the
corner cases) and then fuzzed with hypothesis over shapes of 0-4 dims with
sizes 0..5 and many memory layouts: contiguous, permuted, sliced with steps,
offset, expanded, unsqueezed, channels-last, and arbitrary strides made with
``torch.empty_strided``.  Error messages must match PyTorch's exactly.
"""

import os
import sys

import pytest
import torch
from hypothesis import given, note, settings
from hypothesis import strategies as st

# Make `import teachtorch` work however pytest is launched.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from teachtorch import _strides as S  # noqa: E402

FUZZ = settings(max_examples=200, deadline=None)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def torch_outcome(fn):
    """Run fn; return ("ok", value) or (exception type name, message)."""
    try:
        return ("ok", fn())
    except (RuntimeError, IndexError) as exc:
        return (type(exc).__name__, str(exc))


def our_outcome(fn):
    try:
        return ("ok", fn())
    except (RuntimeError, IndexError) as exc:
        return (type(exc).__name__, str(exc))


def layout(t):
    return (tuple(t.shape), t.stride())


def build(sizes, perm, steps, offsets, expand, unsqueeze, dtype=torch.float32):
    """A tensor of the given sizes whose strides come from a chain of views.

    The tensor is cut out of a bigger zero tensor that was allocated in
    ``perm`` memory order; dim d is sliced starting at ``offsets[d]`` with step
    ``steps[d]``; dims with ``expand[d]`` are size 1 then expanded (stride 0).
    With ``unsqueeze`` the size-1 dims are added at the end by ``unsqueeze``.
    """
    n = len(sizes)
    if unsqueeze:
        keep = [d for d in range(n) if sizes[d] != 1]
        sub_perm = [keep.index(p) for p in perm if p in keep]
        t = build(
            [sizes[d] for d in keep],
            sub_perm,
            [steps[d] for d in keep],
            [offsets[d] for d in keep],
            [expand[d] for d in keep],
            False,
            dtype,
        )
        for d in range(n):
            if sizes[d] == 1:
                t = t.unsqueeze(d)
        return t

    def used(d):
        if expand[d]:
            return 1
        return (sizes[d] - 1) * steps[d] + 1 if sizes[d] > 0 else 0

    extent = [used(d) + offsets[d] for d in range(n)]
    big = torch.zeros([extent[p] for p in perm], dtype=dtype)
    big = big.permute([perm.index(d) for d in range(n)])
    index = tuple(slice(offsets[d], offsets[d] + used(d), steps[d]) for d in range(n))
    return big[index].expand(list(sizes))


KINDS = [
    "contiguous",
    "permuted",
    "sliced",
    "offset",
    "expanded",
    "unsqueezed",
    "mixed",
    "channels_last",
    "strided",
]


@st.composite
def tensors(draw, sizes, dtype=torch.float32, kinds=KINDS):
    """A torch tensor of exactly `sizes` with a randomly chosen layout."""
    sizes = tuple(sizes)
    n = len(sizes)
    kind = draw(st.sampled_from(kinds))
    if kind == "strided":
        strides = draw(st.lists(st.integers(0, 25), min_size=n, max_size=n))
        t = torch.empty_strided(sizes, strides, dtype=dtype)
        note(f"tensor: empty_strided{layout(t)}")
        return t
    if kind == "channels_last" and n == 4:
        t = torch.empty(sizes, dtype=dtype, memory_format=torch.channels_last).zero_()
        note(f"tensor: channels_last {layout(t)}")
        return t
    mixed = kind == "mixed"
    perm = list(range(n))
    steps = [1] * n
    offsets = [0] * n
    expand = [False] * n
    if kind == "permuted" or mixed:
        perm = list(draw(st.permutations(range(n))))
    if kind == "sliced" or mixed:
        steps = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    if kind == "offset" or mixed:
        offsets = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    if kind == "expanded" or mixed:
        expand = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    unsqueeze = kind == "unsqueezed" or (mixed and draw(st.booleans()))
    t = build(sizes, perm, steps, offsets, expand, unsqueeze, dtype)
    note(f"tensor: {kind} {layout(t)}")
    return t


shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


@st.composite
def any_tensor(draw, dtype=torch.float32):
    return draw(tensors(draw(shapes), dtype))


# ---------------------------------------------------------------------------
# contiguous_strides / channels_last_strides
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sizes",
    [(), (0,), (1,), (5,), (2, 3, 4), (2, 0, 3), (3, 1, 1), (0, 0), (2, 1, 0), (1, 0, 1, 2)],
)
def test_contiguous_strides_matches_torch_empty(sizes):
    assert S.contiguous_strides(sizes) == torch.empty(sizes).stride()


def test_contiguous_strides_zero_size_example():
    assert S.contiguous_strides((2, 0, 3)) == (3, 3, 1)


@given(shapes)
@FUZZ
def test_contiguous_strides_fuzz(sizes):
    assert S.contiguous_strides(sizes) == torch.empty(sizes).stride()


@pytest.mark.parametrize("sizes", [(2, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 5), (2, 1, 4, 1), (1, 1, 1, 1), (0, 0, 0, 0)])
def test_channels_last_strides_matches_torch(sizes):
    expected = torch.empty(sizes, memory_format=torch.channels_last).stride()
    assert S.channels_last_strides(sizes) == expected


def test_channels_last_strides_wrong_rank():
    expected = torch_outcome(lambda: torch.empty((2, 3, 4), memory_format=torch.channels_last))
    assert our_outcome(lambda: S.channels_last_strides((2, 3, 4))) == expected


# ---------------------------------------------------------------------------
# int64 limits: check_size_nonnegative, compute_storage_nbytes(_contiguous),
# check_numel, checked_contiguous_strides
# ---------------------------------------------------------------------------
#
# Each test runs our functions in the order PyTorch runs its own, and compares
# with what torch does.  The meta device allocates nothing, so torch.empty on
# it shows the contiguous checks for any size; torch.empty_strided on the cpu
# shows the strided ones (only small storages are allocated here).

B = 2**40


def our_empty(sizes, itemsize):
    """What torch.empty checks, in its order (empty_generic in EmptyTensor.cpp)."""
    S.check_size_nonnegative(sizes)
    nbytes = S.compute_storage_nbytes_contiguous(sizes, itemsize)
    strides = S.checked_contiguous_strides(sizes)
    S.check_numel(sizes)
    return nbytes, strides


def our_empty_strided(sizes, strides, itemsize):
    """What torch.empty_strided checks, in its order (empty_strided_generic)."""
    S.check_size_nonnegative(sizes)
    nbytes = S.compute_storage_nbytes(sizes, strides, itemsize)
    strides = S.stored_strides(sizes, strides)
    S.check_numel(sizes)
    return nbytes, strides


@pytest.mark.parametrize(
    "sizes",
    [(), (0,), (2, 3), (B, B), (2**61,), (2**62,), (2**63 - 1,), (2**62, 2), (2**31, 2**31),
     (B, B, 0), (0, B, B), (2**32, 2**31, 0), (2**32, 2**32, 0), (B, B, -1), (-1, 0), (3, -2)],
    ids=repr,
)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64], ids=str)
def test_empty_size_checks_match_torch_empty(sizes, dtype):
    def theirs():
        t = torch.empty(sizes, dtype=dtype, device="meta")
        return t.untyped_storage().nbytes(), t.stride()
    assert our_outcome(lambda: our_empty(sizes, dtype.itemsize)) == torch_outcome(theirs)


@pytest.mark.parametrize(
    "sizes, strides",
    [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((0, 2), (-5, 1)), ((1, 2), (-5, 1)), ((2,), (-1,)), ((2, 2), (-1, 1)),
     ((3,), (2**62,)), ((2,), (2**63 - 1,)), ((2, 2), (2**62, 1)), ((2**62,), (4,)), ((B, B), (0, 0)),
     ((2**31, 2**31), (0, 0)), ((B, B, 0), (0, 0, 0)), ((0, B, B), (1, 1, 1)), ((B, 0), (2**62, 1)),
     ((-1,), (0,)), ((-1, B), (0,)), ((B, B), (0,)), ((), ()),
     ((2, 1, 1), (1, -3, -7)), ((1,), (-1,)), ((1, B, 0), (-1, 2**62, 1)), ((0, 3), (-1, -1))],
    ids=repr,
)
def test_empty_strided_size_checks_match_torch_empty_strided(sizes, strides):
    def theirs():
        t = torch.empty_strided(sizes, strides)
        return t.untyped_storage().nbytes(), t.stride()
    assert our_outcome(lambda: our_empty_strided(sizes, strides, 4)) == torch_outcome(theirs)


@pytest.mark.parametrize(
    "sizes",
    [(B, B), (2**31, 2**31), (2**32, 2**31), (B, B, 0), (0, B, B), (2**32, 2**31, 0), (2**32, 2**32, 0),
     (-1,), (-1, 0), (0, -1), (3, -2), (2**63 - 1,)],
    ids=repr,
)
def test_check_numel_matches_torch_as_strided(sizes):
    """A meta tensor has no storage to stay inside of: as_strided with 0 strides checks only the count."""
    def theirs():
        return tuple(torch.empty(0, device="meta").as_strided(sizes, [0] * len(sizes)).shape)
    assert our_outcome(lambda: S.check_numel(sizes) or sizes) == torch_outcome(theirs)


def test_compute_storage_nbytes_reads_strides_and_sizes_as_unsigned():
    """A negative size costs nothing with stride 0; a negative stride nothing in a dim of size 1."""
    assert S.compute_storage_nbytes((-1, 2), (0, 1), 4) == 8
    assert S.compute_storage_nbytes((1, 2), (-5, 1), 4, offset=3) == 20
    with pytest.raises(RuntimeError, match=r"sizes=\[-1, -1\] and strides=\[-1, 1\]"):
        S.compute_storage_nbytes((-1, -1), (-1, 1), 4)   # (-1) * (-2) is 2, but not in uint64


# ---------------------------------------------------------------------------
# is_contiguous / is_channels_last_contiguous / non-overlapping-and-dense /
# internal overlap
# ---------------------------------------------------------------------------
#
# torch has no public is_non_overlapping_and_dense(); we read it through
# torch._debug_has_internal_overlap, which returns 0 (No) exactly when the
# tensor is non-overlapping and dense, 1 (Yes) when some dim of size > 1 has
# stride 0, and 2 (TooHard) otherwise.  empty_like() gives a second witness:
# it keeps the input's strides exactly when the input is non-overlapping and
# dense.

LAYOUT_CASES = [
    ((), ()),
    ((0,), (5,)),
    ((1,), (7,)),
    ((3,), (1,)),
    ((3,), (2,)),
    ((3,), (0,)),
    ((2, 3), (3, 1)),
    ((2, 3), (1, 2)),  # transposed: dense, not contiguous
    ((2, 3), (6, 2)),  # every other column: gaps
    ((3, 3), (1, 1)),  # overlapping but no zero stride: TooHard
    ((2, 3), (0, 1)),  # expanded
    ((1, 3), (0, 1)),  # stride 0 on a size-1 dim is harmless
    ((2, 0), (5, 5)),  # empty: contiguous whatever the strides
    ((0, 2), (1, 1)),
    ((2, 1, 3), (3, 99, 1)),
    ((2, 2), (2, 2)),
    ((2, 3, 4, 5), (60, 1, 15, 3)),  # channels-last
    ((2, 3, 1, 1), (3, 1, 3, 3)),
    ((2, 1, 4, 5), (20, 1, 5, 1)),
]


def torch_flags(t):
    return dict(
        contiguous=t.is_contiguous(),
        channels_last=t.is_contiguous(memory_format=torch.channels_last),
        dense=torch._debug_has_internal_overlap(t) == 0,
        overlap=torch._debug_has_internal_overlap(t) == 1,
    )


def our_flags(sizes, strides):
    return dict(
        contiguous=S.is_contiguous(sizes, strides),
        channels_last=S.is_channels_last_contiguous(sizes, strides),
        dense=S.is_non_overlapping_and_dense(sizes, strides),
        overlap=S.has_internal_overlap(sizes, strides),
    )


@pytest.mark.parametrize("sizes,strides", LAYOUT_CASES)
def test_layout_predicates_hand_picked(sizes, strides):
    t = torch.empty_strided(sizes, strides)
    assert our_flags(sizes, strides) == torch_flags(t)


def test_too_hard_overlap_is_not_reported():
    # (3, 3) with strides (1, 1) really overlaps (t[0, 1] is t[1, 0]), but
    # PyTorch only says TooHard, and in-place ops are allowed.
    t = torch.empty_strided((3, 3), (1, 1))
    assert torch._debug_has_internal_overlap(t) == 2
    t.add_(1)  # no error
    assert S.has_internal_overlap((3, 3), (1, 1)) is False


def test_expanded_overlap_is_reported():
    t = torch.zeros(2, 1).expand(2, 3)
    with pytest.raises(RuntimeError):
        t.add_(1)
    assert S.has_internal_overlap((2, 3), t.stride()) is True


@given(any_tensor())
@FUZZ
def test_layout_predicates_fuzz(t):
    sizes, strides = layout(t)
    assert our_flags(sizes, strides) == torch_flags(t)
    # Second witness for density: empty_like keeps the strides iff dense.
    keeps_strides = torch.empty_like(t).stride() == strides
    assert S.is_non_overlapping_and_dense(sizes, strides) == keeps_strides


# ---------------------------------------------------------------------------
# broadcast_shapes
# ---------------------------------------------------------------------------


def torch_broadcast(shapes):
    return torch_outcome(
        lambda: tuple(torch.broadcast_tensors(*[torch.empty(s) for s in shapes])[0].shape)
    )


@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 1, 4), (3, 1)],
        [(2, 3), (4,)],  # mismatch reported at output dim 1
        [(3,), (5, 1, 4)],  # mismatch at output dim 2
        [(2, 1), (5, 1, 4), (3, 1)],  # "tensor a" is (5, 2, 4)
        [(1,), (0,)],  # 1 stretches to 0
        [(2,), (0,)],
        [(), (3,)],
        [(), ()],
        [(4, 3)],
    ],
)
def test_broadcast_shapes_matches_torch(shapes):
    assert our_outcome(lambda: S.broadcast_shapes(*shapes)) == torch_broadcast(shapes)


def test_broadcast_message_example():
    with pytest.raises(RuntimeError) as exc:
        S.broadcast_shapes((2, 3), (4,))
    expected = torch_outcome(lambda: torch.ones(2, 3) + torch.ones(4))
    assert str(exc.value) == expected[1]
    assert str(exc.value) == (
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    )


def test_broadcast_three_shapes_same_as_where():
    shapes = [(3, 1), (5, 1, 4), (2, 1)]
    cond = torch.ones(shapes[0], dtype=torch.bool)
    expected = torch_outcome(lambda: torch.where(cond, torch.ones(shapes[1]), torch.ones(shapes[2])))
    assert our_outcome(lambda: S.broadcast_shapes(*shapes)) == expected


def test_broadcast_no_shapes():
    assert S.broadcast_shapes() == ()


@st.composite
def shape_lists(draw):
    base = draw(shapes)
    result = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            result.append(draw(shapes))  # unrelated: often incompatible
            continue
        shape = list(base[draw(st.integers(0, len(base))):])
        for i in range(len(shape)):
            if draw(st.integers(0, 3)) == 0:
                shape[i] = 1
        result.append(tuple(shape))
    return result


@given(shape_lists())
@FUZZ
def test_broadcast_shapes_fuzz(shape_list):
    assert our_outcome(lambda: S.broadcast_shapes(*shape_list)) == torch_broadcast(shape_list)


# ---------------------------------------------------------------------------
# infer_size
# ---------------------------------------------------------------------------


def torch_infer(shape, numel):
    return torch_outcome(lambda: tuple(torch.empty(numel).view(shape).shape))


@pytest.mark.parametrize(
    "shape,numel",
    [
        ((2, -1), 12),
        ((2, 5), 12),
        ((-1, -1), 12),
        ((-2, 6), 12),
        ((2, -2, -1), 12),
        ((-1, -1, -2), 12),  # the second -1 is seen first
        ((-1, 5), 12),
        ((0, -1), 12),
        ((0, -1), 0),  # ambiguous
        ((-1, 0), 0),
        ((-1,), 0),
        ((-1, 3), 0),
        ((12, -1), 12),
        ((), 1),
        ((), 0),
        ((), 6),
        ((1, -1, 1), 1),
    ],
)
def test_infer_size_matches_torch(shape, numel):
    assert our_outcome(lambda: S.infer_size(shape, numel)) == torch_infer(shape, numel)


def test_infer_size_messages():
    def message(shape, numel):
        with pytest.raises(RuntimeError) as exc:
            S.infer_size(shape, numel)
        return str(exc.value)

    assert message((2, 5), 12) == "shape '[2, 5]' is invalid for input of size 12"
    assert message((-1, -1), 12) == "only one dimension can be inferred"
    # torch 2.13 adds the position to the message.
    assert message((-2, 6), 12) == "invalid shape dimension -2 at index 0 of shape [-2, 6]"
    assert message((0, -1), 0) == (
        "cannot reshape tensor of 0 elements into shape [0, -1] because the "
        "unspecified dimension size -1 can be any value and is ambiguous"
    )


@given(st.lists(st.integers(-3, 6), min_size=0, max_size=4).map(tuple), st.integers(0, 30))
@FUZZ
def test_infer_size_fuzz(shape, numel):
    assert our_outcome(lambda: S.infer_size(shape, numel)) == torch_infer(shape, numel)


@given(shapes, st.data())
@FUZZ
def test_infer_size_fuzz_valid(sizes, data):
    # Replace one size by -1: must always recover a shape torch agrees with.
    numel = S._numel(sizes)
    shape = list(sizes)
    if shape:
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1
    shape = tuple(shape)
    assert our_outcome(lambda: S.infer_size(shape, numel)) == torch_infer(shape, numel)


# ---------------------------------------------------------------------------
# normalize_dim
# ---------------------------------------------------------------------------


def torch_wrap(dim, ndim):
    # Sizes 2, 3, 4, 5 are distinct, so the surviving sizes tell which dim
    # sum() removed.
    sizes = (2, 3, 4, 5)[:ndim]
    outcome = torch_outcome(lambda: tuple(torch.zeros(sizes).sum(dim).shape))
    if outcome[0] != "ok":
        return outcome
    if ndim == 0:
        return ("ok", 0)
    (missing,) = set(sizes) - set(outcome[1])
    return ("ok", sizes.index(missing))


@pytest.mark.parametrize(
    "dim,ndim", [(0, 0), (-1, 0), (1, 0), (-2, 0), (2, 2), (-3, 2), (-1, 2), (1, 2), (-4, 4), (3, 4)]
)
def test_normalize_dim_matches_torch(dim, ndim):
    assert our_outcome(lambda: S.normalize_dim(dim, ndim)) == torch_wrap(dim, ndim)


def test_normalize_dim_message():
    with pytest.raises(IndexError) as exc:
        S.normalize_dim(2, 2)
    assert str(exc.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    with pytest.raises(IndexError) as exc:
        S.normalize_dim(1, 0)
    assert str(exc.value) == "Dimension out of range (expected to be in range of [-1, 0], but got 1)"


@given(st.integers(-6, 6), st.integers(0, 4))
@FUZZ
def test_normalize_dim_fuzz(dim, ndim):
    assert our_outcome(lambda: S.normalize_dim(dim, ndim)) == torch_wrap(dim, ndim)


# ---------------------------------------------------------------------------
# compute_view_strides
# ---------------------------------------------------------------------------


def torch_view_strides(t, new_sizes):
    try:
        return t.view(new_sizes).stride()
    except RuntimeError as exc:
        assert "view size is not compatible" in str(exc)
        return None


def test_view_lesson_example_sliced():
    x = torch.arange(24).reshape(2, 3, 4)[:, :, :2]
    assert layout(x) == ((2, 3, 2), (12, 4, 1))
    assert S.compute_view_strides((2, 3, 2), (12, 4, 1), (2, 6)) is None
    assert torch_view_strides(x, (2, 6)) is None
    assert S.compute_view_strides((2, 3, 2), (12, 4, 1), (2, 3, 2, 1)) == x.view(2, 3, 2, 1).stride()


def test_view_lesson_example_permuted():
    x = torch.arange(24).reshape(2, 3, 4).permute(1, 0, 2)
    assert layout(x) == ((3, 2, 4), (4, 12, 1))
    assert S.compute_view_strides((3, 2, 4), (4, 12, 1), (3, 2, 2, 2)) == (4, 12, 2, 1)
    assert x.view(3, 2, 2, 2).stride() == (4, 12, 2, 1)
    assert S.compute_view_strides((3, 2, 4), (4, 12, 1), (3, 8)) is None
    assert torch_view_strides(x, (3, 8)) is None


@pytest.mark.parametrize(
    "sizes,strides,new_sizes",
    [
        ((), (), ()),
        ((), (), (1, 1)),
        ((1,), (5,), ()),
        ((2, 3), (3, 1), (6,)),
        ((2, 3), (1, 2), (6,)),  # transposed: cannot flatten
        ((2, 3), (1, 2), (2, 3, 1)),
        ((2, 3), (1, 2), (1, 2, 1, 3)),
        ((4,), (0,), (2, 2)),  # expanded: splitting is fine
        ((2, 2), (0, 1), (4,)),
        ((2, 1, 3), (3, 99, 1), (6,)),  # size-1 dims never break a chunk
        ((0, 3), (7, 2), (0, 3)),  # empty, same shape: strides kept
        ((0, 3), (7, 2), (3, 0)),  # empty, new shape: fresh strides
        ((2, 0), (1, 1), (0, 5, 1)),
        ((3, 2), (2, 1), (1, 6, 1)),
    ],
)
def test_view_strides_hand_picked(sizes, strides, new_sizes):
    t = torch.empty_strided(sizes, strides)
    assert S.compute_view_strides(sizes, strides, new_sizes) == torch_view_strides(t, new_sizes)


@st.composite
def regrouped(draw, sizes):
    """A shape with the same numel: split 4s, maybe shuffle, merge, add 1s."""
    atoms = []
    for s in sizes:
        if s == 4 and draw(st.booleans()):
            atoms += [2, 2]
        elif s == 1 and draw(st.booleans()):
            continue
        else:
            atoms.append(s)
    if draw(st.integers(0, 3)) == 0:
        atoms = list(draw(st.permutations(atoms)))
    merged = []
    for a in atoms:
        if merged and draw(st.booleans()):
            merged[-1] *= a
        else:
            merged.append(a)
    for _ in range(draw(st.integers(0, 2))):
        merged.insert(draw(st.integers(0, len(merged))), 1)
    if 0 in sizes and draw(st.integers(0, 3)) == 0:
        # Any shape containing a 0 is a valid view of an empty tensor.
        merged = list(draw(shapes)) + [0]
        merged = list(draw(st.permutations(merged)))
    return tuple(merged)


@given(any_tensor(), st.data())
@FUZZ
def test_view_strides_fuzz(t, data):
    sizes, strides = layout(t)
    new_sizes = data.draw(regrouped(sizes), label="new_sizes")
    assert S._numel(new_sizes) == S._numel(sizes)
    assert S.compute_view_strides(sizes, strides, new_sizes) == torch_view_strides(t, new_sizes)


# ---------------------------------------------------------------------------
# pointwise_output_strides
# ---------------------------------------------------------------------------


def check_pointwise(out, inputs):
    operands = [layout(t) for t in inputs]
    ours = S.pointwise_output_strides(tuple(out.shape), operands)
    assert ours == out.stride(), f"operands {operands} -> torch {layout(out)}"


def test_pointwise_transposed_input_gives_transposed_output():
    a = torch.zeros(3, 2).t()
    check_pointwise(torch.exp(a), [a])
    assert torch.exp(a).stride() == (1, 2)


def test_pointwise_broadcast_follows_the_real_input():
    a = torch.zeros(4, 2, 3).permute(2, 0, 1)  # (3, 4, 2), strides (1, 6, 3)
    b = torch.zeros(4, 1)
    check_pointwise(a + b, [a, b])
    check_pointwise(b + a, [b, a])


def test_pointwise_channels_last():
    a = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    check_pointwise(torch.exp(a), [a])
    check_pointwise(a + a, [a, a])
    assert S.pointwise_output_strides((2, 3, 4, 5), [layout(a)]) == (60, 1, 15, 3)


def test_pointwise_zero_size_uses_raw_sizes():
    # Not row-major order and an empty dim: strides behind it become 0.
    a = torch.empty(3, 0, 2).permute(2, 0, 1)
    b = torch.empty(2, 1, 0)
    check_pointwise(a + b, [a, b])
    assert (a + b).stride() == (1, 0, 2)
    # Without broadcasting the empty input is "contiguous": fast path.
    check_pointwise(torch.exp(a), [a])
    assert torch.exp(a).stride() == (3, 1, 1)


def test_pointwise_same_dense_strides_are_copied():
    a = torch.zeros(2, 3, 4).permute(1, 2, 0)
    check_pointwise(a + a, [a, a])
    assert (a + a).stride() == a.stride()


def test_pointwise_0d_and_1d():
    s = torch.tensor(1.0)
    v = torch.zeros(6)[::2]
    check_pointwise(s + s, [s, s])
    check_pointwise(torch.exp(v), [v])
    check_pointwise(s + v, [s, v])


def test_pointwise_mixed_dtypes_use_the_converted_input():
    # float32 + float64: torch first makes a float64 copy of `a` (a new,
    # dense tensor), and the rule applies to that copy's strides.
    a = torch.empty_strided((4, 1, 1), (6, 2, 2), dtype=torch.float32)
    b = torch.empty_strided((4, 1, 1), (2, 7, 7), dtype=torch.float64)
    out = a + b
    converted = a.to(torch.float64)
    assert converted.stride() != a.stride()
    check_pointwise(out, [converted, b])
    assert S.pointwise_output_strides((4, 1, 1), [layout(a), layout(b)]) != out.stride()


@st.composite
def pointwise_inputs(draw, dtypes):
    """Inputs with broadcast-compatible shapes, one per dtype."""
    shape = draw(shapes)
    same_shape = draw(st.booleans())
    inputs = []
    for dtype in dtypes:
        sizes = list(shape)
        if not same_shape:
            sizes = sizes[draw(st.integers(0, len(sizes))):]
            for i in range(len(sizes)):
                if draw(st.integers(0, 2)) == 0:
                    sizes[i] = 1
        inputs.append(draw(tensors(tuple(sizes), dtype)))
    return inputs


@given(pointwise_inputs([torch.float32]))
@FUZZ
def test_pointwise_unary_fuzz(inputs):
    (a,) = inputs
    check_pointwise(torch.exp(a), [a])


@given(pointwise_inputs([torch.float32, torch.float32]))
@FUZZ
def test_pointwise_binary_fuzz(inputs):
    a, b = inputs
    check_pointwise(a + b, [a, b])


@given(pointwise_inputs([torch.bool, torch.float32, torch.float32]))
@FUZZ
def test_pointwise_where_fuzz(inputs):
    c, a, b = inputs
    check_pointwise(torch.where(c, a, b), [c, a, b])


@given(
    st.lists(st.integers(0, 4), min_size=4, max_size=4).map(tuple),
    st.lists(st.sampled_from(["channels_last", "contiguous", "permuted"]), min_size=2, max_size=2),
    st.data(),
)
@FUZZ
def test_pointwise_4d_memory_formats_fuzz(sizes, kinds, data):
    a = data.draw(tensors(sizes, kinds=[kinds[0]]))
    b = data.draw(tensors(sizes, kinds=[kinds[1]]))
    check_pointwise(a + b, [a, b])
    check_pointwise(torch.exp(a), [a])
