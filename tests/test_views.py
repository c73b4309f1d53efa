"""View ops: stride arithmetic, aliasing, `_base`, version counters, and parity with PyTorch on every layout."""

import tracemalloc

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, check, check_inplace, inputs, rand, shapes

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

VIEW_CASES = {
    "view": lambda lib, x: x.view(-1),
    "view_2": lambda lib, x: x.view(4, 3),
    "view_as": lambda lib, x: x.view_as(lib.zeros(2, 6)),
    "reshape": lambda lib, x: x.reshape(2, 6),
    "reshape_fn": lambda lib, x: lib.reshape(x, (6, -1)),
    "reshape_as": lambda lib, x: x.reshape_as(lib.zeros(12)),
    "flatten": lambda lib, x: x.flatten(),
    "flatten_fn": lambda lib, x: lib.flatten(x, 0, 1),
    "unflatten": lambda lib, x: x.unflatten(1, (2, 2)),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "transpose_neg": lambda lib, x: lib.transpose(x, -1, -2),
    "swapaxes": lambda lib, x: x.swapaxes(0, 1),
    "t": lambda lib, x: x.t(),
    "T": lambda lib, x: x.T,
    "mT": lambda lib, x: x.mT,
    "permute": lambda lib, x: x.permute(1, 0),
    "permute_tuple": lambda lib, x: lib.permute(x, (1, 0)),
    "movedim": lambda lib, x: lib.movedim(x, 0, 1),
    "squeeze": lambda lib, x: x.unsqueeze(1).squeeze(),
    "squeeze_dim": lambda lib, x: x.unsqueeze(1).squeeze(1),
    "squeeze_dims": lambda lib, x: x.unsqueeze(0).unsqueeze(2).squeeze((0, 2)),
    "squeeze_non1": lambda lib, x: x.squeeze(0),
    "unsqueeze0": lambda lib, x: x.unsqueeze(0),
    "unsqueeze1": lambda lib, x: x.unsqueeze(1),
    "unsqueeze_end": lambda lib, x: x.unsqueeze(-1),
    "expand": lambda lib, x: x.unsqueeze(0).expand(2, -1, -1),
    "expand_as": lambda lib, x: x[:1].expand_as(x),
    "broadcast_to": lambda lib, x: lib.broadcast_to(x[:, :1], (3, 4)),
    "narrow": lambda lib, x: x.narrow(1, 1, 2),
    "narrow_neg": lambda lib, x: lib.narrow(x, 0, -2, 2),
    "select": lambda lib, x: x.select(1, 2),
    "select_neg": lambda lib, x: x.select(0, -1),
    "getitem_int": lambda lib, x: x[1],
    "getitem_slice": lambda lib, x: x[1:, ::2],
    "getitem_step3": lambda lib, x: x[::2, 1::3],
    "getitem_neg": lambda lib, x: x[-2:, :-1],
    "getitem_none": lambda lib, x: x[None, :, None, 1],
    "getitem_ellipsis": lambda lib, x: x[..., 1],
    "getitem_ellipsis_none": lambda lib, x: x[..., None],
    "getitem_all": lambda lib, x: x[...],
    "getitem_empty": lambda lib, x: x[2:1],
    "getitem_clamped": lambda lib, x: x[1:100, -100:2],
    "getitem_0d_tensor": lambda lib, x: x[lib.tensor(1)],
    "unfold": lambda lib, x: x.unfold(1, 2, 1),
    "unfold_step": lambda lib, x: x.unfold(0, 2, 2),
    "diagonal": lambda lib, x: x.diagonal(),
    "diagonal_off": lambda lib, x: lib.diagonal(x, 1),
    "diagonal_neg": lambda lib, x: x.diagonal(-1),
    "diagonal_dims": lambda lib, x: x.diagonal(0, 1, 0),
    "split": lambda lib, x: x.split(2, 1),
    "split_sizes": lambda lib, x: lib.split(x, [1, 3], 1),
    "chunk": lambda lib, x: x.chunk(2, 0),
    "chunk_uneven": lambda lib, x: lib.chunk(x, 3, 1),
    "unbind": lambda lib, x: x.unbind(1),
    "detach": lambda lib, x: x.detach(),
    "iter": lambda lib, x: list(x),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_view_ops_match_torch(case, layout):
    check(VIEW_CASES[case], rand(3, 4, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_as_strided_offset_is_absolute(layout):
    check(lambda lib, x: x.as_strided((2, 2), (1, 2), 1), rand(3, 4, layout=layout))
    check(lambda lib, x: lib.as_strided(x, (3,), (0,)), rand(3, 4, layout=layout))


def test_as_strided_bounds_error():
    check(lambda lib, x: x.as_strided((2, 2), (1, 2), 10), rand(6))
    check(lambda lib, x: x.as_strided((2, 2), (1, 2, 3)), rand(6), msg=False)


# Geometries PyTorch's setStrided refuses (or accepts) before making the view, in its order of checks: lengths,
# negative strides, negative offset, the storage size in int64 (computeStorageNbytes), the bounds of the
# storage (checkInBoundsForStorage, skipped when there is no element), the element count in int64.
AS_STRIDED_GEOMETRIES = {
    "huge_sizes_zero_strides": ((2**40, 2**40), (0, 0), None),   # 1 element of storage, 2**80 elements
    "numel_2**63": ((2**32, 2**31), (0, 0), None),
    "numel_fits": ((2**31, 2**31), (0, 0), None),                 # 2**62 elements over one: allowed
    "negative_size": ((-1, 2), (1, 1), None),
    "negative_size_stride_0": ((-1,), (0,), None),
    "negative_stride": ((2, 2), (-1, 1), None),
    "negative_stride_and_lengths": ((2, 2, 2), (-1, 1), None),
    "negative_offset": ((5, 5), (1, 1), -1),
    "negative_offset_and_overflow": ((-1, 2), (1, 1), -2),
    "size_overflow": ((2**62, 2**62), (1, 1), None),
    "stride_overflow": ((2**32, 2**32), (2**32, 1), None),
    "offset_overflow": ((1,), (0,), 2**61),
    "offset_past_the_end": ((1,), (1,), 12),
    "offset_at_the_end": ((1,), (1,), 11),
    "zero_size_far_offset": ((0, 2), (1, 1), 100),
    "zero_size_huge_stride": ((2**40, 0), (2**62, 1), None),
    "zero_dim_offset": ((), (), 12),
    "out_of_bounds_2**40": ((2**40,), (1,), None),
}


@pytest.mark.parametrize("name", AS_STRIDED_GEOMETRIES)
def test_as_strided_checks_geometry_like_torch(name):
    size, stride, offset = AS_STRIDED_GEOMETRIES[name]
    for x in (rand(3, 4), rand(3, 4, layout="offset")):
        if name == "numel_fits":   # a valid view of 2**62 elements: compare geometry, never the values
            for lib in (tt, torch):
                y = x.build(lib).as_strided(size, stride, offset)
                assert (tuple(y.shape), y.stride(), y.storage_offset()) == (size, stride, x.build(lib).storage_offset())
            continue
        check(lambda lib, x: x.as_strided(size, stride, offset), x)
        check(lambda lib, x: lib.as_strided(x, size, stride, offset), x)


def test_as_strided_on_meta_checks_no_storage():
    def geometry(t):
        return tuple(t.shape), t.stride(), t.storage_offset()
    for size, stride, offset in [((5, 5), (5, 1), 100), ((2**62,), (4,), None), ((2**40, 2**40), (0, 0), None),
                                 ((1,), (1,), -1), ((1,), (-1,), None)]:
        check(lambda lib: geometry(lib.zeros(3, 4, device="meta").as_strided(size, stride, offset)))


def test_as_strided_of_huge_geometry_allocates_nothing():
    x = tt.zeros(3, 4)
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
            x.as_strided((2**40, 2**40), (0, 0))
        y = x.as_strided((2**31, 2**31), (0, 0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == (2**31, 2**31) and y.untyped_storage().nbytes() == 48
    assert peak < 100_000


def test_expand_refuses_an_element_count_beyond_int64():
    check(lambda lib, x: x.expand(2**40, 2**40, 3, 4), rand(3, 4))
    check(lambda lib, x: x.expand(-2), rand(1))
    check(lambda lib, x: x.expand(2**31, 2**31, 1).stride(), rand(1))


@pytest.mark.parametrize("shape, target", [((), (1,)), ((), (1, 1)), ((3,), (1, 3)), ((3,), (1, 1, 3)),
                                           ((3, 1), (1, 3, 1)), ((3, 1), (2, 1, 3, 1)), ((2,), (1, 0, 2)),
                                           ((2, 3), (1, -1, 3))])
def test_expand_strides_of_new_size_1_dims_like_torch(shape, target):
    # inferExpandGeometry: a new leading dim of size 1 steps over the dims to its right (not stride 0)
    check(lambda lib: lib.zeros(shape).expand(target))


def test_reference_examples():
    # shared/reference §1.4, verified against torch there
    x = P(np.arange(24.0).reshape(2, 3, 4))
    check(lambda lib, x: x[:, :, :2].view(2, 6), x)
    check(lambda lib, x: x[:, :, :2].view(2, 3, 2, 1), x)
    check(lambda lib: lib.arange(24.0).view(3, 2, 4).permute(0, 1, 2).as_strided((3, 2, 4), (4, 12, 1)).view(3, 2, 2, 2))
    check(lambda lib: lib.arange(24.0).as_strided((3, 2, 4), (4, 12, 1)).view(3, 8))
    check(lambda lib: lib.tensor([1, 2, 3]).expand(4, 3))
    check(lambda lib: lib.arange(8).unfold(0, 3, 2))
    check(lambda lib: lib.arange(6).as_strided((2, 2), (1, 2), 1))
    check(lambda lib: lib.arange(12).reshape(3, 4).unsqueeze(0))


ERROR_CASES = {
    "view_incompatible": lambda lib, x: x.t().view(12),
    "view_bad_numel": lambda lib, x: x.view(5, 2),
    "view_two_infer": lambda lib, x: x.view(-1, -1),
    "view_neg": lambda lib, x: x.view(-2, 6),
    "reshape_bad": lambda lib, x: x.reshape(7),
    "transpose_dim": lambda lib, x: x.transpose(0, 2),
    "t_3d": lambda lib, x: x.unsqueeze(0).t(),
    "permute_len": lambda lib, x: x.permute(0, 1, 2),
    "permute_dup": lambda lib, x: x.permute(0, 0),
    "expand_bad": lambda lib, x: x.expand(3, 5),
    "expand_few": lambda lib, x: x.expand(4),
    "narrow_far": lambda lib, x: x.narrow(1, 3, 2),
    "select_range": lambda lib, x: x.select(0, 3),
    "getitem_range": lambda lib, x: x[5],
    "getitem_range_neg": lambda lib, x: x[:, -5],
    "getitem_too_many": lambda lib, x: x[0, 0, 0],
    "getitem_two_ellipsis": lambda lib, x: x[..., ...],
    "getitem_step0": lambda lib, x: x[::0],
    "getitem_negstep": lambda lib, x: x[::-1],
    "unfold_big": lambda lib, x: x.unfold(1, 5, 1),
    "diagonal_same": lambda lib, x: x.diagonal(0, 1, 1),
    "split_sizes": lambda lib, x: x.split([1, 1], 0),
    "chunk_zero": lambda lib, x: x.chunk(0),
    "movedim_repeat": lambda lib, x: lib.movedim(x, (0, 0), (0, 1)),
    "flatten_order": lambda lib, x: x.flatten(1, 0),
    "dim_range": lambda lib, x: x.unsqueeze(4),
    "mT_1d": lambda lib, x: x[0].mT,
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_view_errors_match_torch(case):
    check(ERROR_CASES[case], rand(3, 4))


# ---- aliasing, _base and version counters (shared/reference §1.5, §7) --------------------------------------


def test_views_share_storage_and_version_counter():
    base = tt.zeros(3, 4)
    v = base[1]
    w = v[1:]
    assert v.untyped_storage() is base.untyped_storage()
    assert v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert w._base is base and v._base is base    # chains collapse to the root base
    v.add_(1)
    assert base._version == v._version == w._version == 1
    assert base[1, 2].item() == 1.0
    d = base.detach()
    assert d._base is None and d.untyped_storage() is base.untyped_storage()
    d.mul_(2)
    assert base._version == 2


def test_copies_are_not_views():
    x = tt.arange(12.0).reshape(3, 4)
    r = x.t().reshape(12)                     # cannot be a view: a copy
    assert r._base is None and r.untyped_storage() is not x.untyped_storage()
    c = x.contiguous()
    assert c is x                             # already contiguous: the very same object
    tc = x.t().contiguous()
    assert tc is not x and tc.is_contiguous() and tc._base is None


def test_clone_and_like_preserve_strides():
    w = tt.zeros(6, 4).t()
    assert w.clone().stride() == torch.zeros(6, 4).t().clone().stride() == (1, 4)
    assert tt.zeros_like(w).stride() == (1, 4)
    assert tt.empty_like(w).stride() == (1, 4)
    check(lambda lib, x: x.clone(), rand(3, 4, layout="sliced"))
    check(lambda lib, x: lib.zeros_like(x), rand(3, 4, layout="expanded"))


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_setitem_and_copy_write_into_any_layout(layout):
    target = rand(3, 4, layout=layout)
    check_inplace(lambda lib, x, y: x.copy_(y), target, rand(3, 4, seed=5))
    check_inplace(lambda lib, x, y: x.copy_(y), target, rand(4, seed=5, layout="permuted"))
    check_inplace(lambda lib, x: x.fill_(2.5), target)
    check_inplace(lambda lib, x: x.zero_(), target)
    check_inplace(lambda lib, x, y: x.copy_(y), target, rand(3, seed=5))    # broadcast error: unchanged
    check_inplace(lambda lib, x, y: x.copy_(y), target, rand(3, 4, dtype="int64", seed=5))


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
@pytest.mark.parametrize("index", ["row", "col", "slice", "ellipsis", "step"])
def test_basic_setitem_into_views(layout, index):
    def assign(lib, x, v):
        if index == "row":
            x[1] = v[0]
        elif index == "col":
            x[:, 2] = 7.0
        elif index == "slice":
            x[1:, ::2] = v[:2, :2]
        elif index == "ellipsis":
            x[...] = v
        else:
            x[::2, 1::2] = v[0, 0]
        return x

    def run(lib, view, v):   # setitem returns None, so check_inplace wraps it
        assign(lib, view, v)
        return view

    check_inplace(lambda lib, x, v: _bump_once(lib, x, lambda: assign(lib, x, v)), rand(3, 4, layout=layout),
                  rand(3, 4, seed=9))


def _bump_once(lib, x, fn):
    fn()
    return x


def test_write_into_expanded_tensor_is_refused_and_leaves_it_unchanged():
    check(lambda lib: lib.zeros(3).expand(2, 3).add_(1))
    check(lambda lib: lib.zeros(3).expand(2, 3).copy_(lib.ones(2, 3)))
    check(lambda lib: lib.zeros(3).expand(2, 3).fill_(1))
    check(lambda lib: lib.zeros(3).expand(2, 3).fill_(1))     # fills are allowed: every write is the same
    base = tt.zeros(3)
    with pytest.raises(RuntimeError, match="more than one element"):
        base.expand(2, 3)[:] = tt.ones(2, 3)
    assert base.tolist() == [0.0, 0.0, 0.0] and base._version == 0


# ---- hypothesis: stride arithmetic against torch over shapes and layouts ------------------------------------


@given(inputs(shape=None), st.data())
def test_fuzz_view_reshape_flatten(p, data):
    n = p.values.size
    # a random factorisation of numel into a new shape
    new = []
    rest = n
    for _ in range(data.draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1]
        d = data.draw(st.sampled_from(divisors))
        new.append(d)
        rest = rest // d if d else rest
    new.append(rest if n else 0)
    check(lambda lib, x: x.view(*new), p)
    check(lambda lib, x: x.reshape(*new), p)
    check(lambda lib, x: x.flatten(), p)


@given(inputs(), st.data())
def test_fuzz_permute_transpose_unsqueeze(p, data):
    nd = p.values.ndim
    perm = data.draw(st.permutations(range(nd)))
    check(lambda lib, x: x.permute(*perm), p)
    if nd >= 2:
        d0, d1 = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
        check(lambda lib, x: x.transpose(d0, d1), p)
    d = data.draw(st.integers(-nd - 1, nd))
    check(lambda lib, x: x.unsqueeze(d), p)
    check(lambda lib, x: x.squeeze(), p)


@given(inputs(shape=None), st.data())
def test_fuzz_basic_indexing(p, data):
    nd = p.values.ndim
    index = []
    for d in range(data.draw(st.integers(0, nd))):
        size = p.values.shape[d]
        kind = data.draw(st.sampled_from(["int", "slice", "none", "all"]))
        if kind == "int" and size:
            index.append(data.draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            index.append(slice(data.draw(st.none() | st.integers(-6, 6)), data.draw(st.none() | st.integers(-6, 6)),
                               data.draw(st.none() | st.integers(1, 3))))
        elif kind == "none":
            index.append(None)
        else:
            index.append(slice(None))
    if data.draw(st.booleans()):
        index.insert(data.draw(st.integers(0, len(index))), Ellipsis)
    index = tuple(index)
    check(lambda lib, x: x[index], p)


@given(inputs(allow_expanded=False), st.data())
def test_fuzz_setitem_slices_into_layouts(p, data):
    nd = p.values.ndim
    if nd == 0:
        return
    d = data.draw(st.integers(0, nd - 1))
    size = p.values.shape[d]
    start = data.draw(st.integers(0, max(size, 0)))
    step = data.draw(st.integers(1, 3))
    index = (slice(None),) * d + (slice(start, None, step),)
    check_inplace(lambda lib, x: _bump_once(lib, x, lambda: x.__setitem__(index, -1.5)), p)


@given(inputs(), st.data())
def test_fuzz_expand_and_unfold(p, data):
    shape = p.values.shape
    lead = data.draw(st.integers(0, 2))
    target = tuple(data.draw(st.integers(1, 2)) for _ in range(lead)) + tuple(
        s if s != 1 else data.draw(st.integers(1, 3)) for s in shape)
    check(lambda lib, x: x.expand(*target), p)
    if shape:
        d = data.draw(st.integers(0, len(shape) - 1))
        size = data.draw(st.integers(0, shape[d] + 1))
        step = data.draw(st.integers(1, 3))
        check(lambda lib, x: x.unfold(d, size, step), p)


def test_T_warns_as_pytorch_once_per_process():
    """`x.T` on anything but a matrix is deprecated in PyTorch: a UserWarning, once per process
    (TORCH_WARN_ONCE), 0-d tensors with a message of their own. torch's messages are read in a fresh process
    (its once-only state cannot be reset); ours end where torch's says where in C++ it was raised."""
    import subprocess
    import sys
    import warnings
    from teachtorch.ops import views as views_module
    script = ("import torch, warnings\n"
              "for shape in [(3,), (2, 3, 4), (), (2, 3)]:\n"
              "    with warnings.catch_warnings(record=True) as w:\n"
              "        warnings.simplefilter('always')\n"
              "        torch.ones(shape).T\n"
              "        torch.ones(shape).T\n"
              "    print(repr([str(x.message).split(' (Triggered internally')[0] for x in w]))\n")
    expected = [eval(line) for line in subprocess.run([sys.executable, "-c", script], capture_output=True,
                                                      text=True, check=True).stdout.splitlines()]
    views_module._warned_once.clear()
    got = []
    for shape in [(3,), (2, 3, 4), (), (2, 3)]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = tt.ones(shape)
            assert tuple(x.T.shape) == tuple(reversed(x.shape))
            x.T
        assert all(issubclass(m.category, UserWarning) for m in w)
        got.append([str(m.message) for m in w])
    assert got == expected
    assert expected[1] == [] and len(expected[0]) == 1     # the 1-d warning covered the 3-d call: once
