"""Joining and rearranging ops against PyTorch: cat / concat / concatenate, stack, hstack, vstack, dstack,
column_stack, tril / triu (and tril_ / triu_), flip, fliplr, flipud, roll, rot90, repeat, tile,
repeat_interleave, diag, diag_embed, diagflat, meshgrid, atleast_1d/2d/3d.

Values, dtypes (promotion in cat), shapes, strides (cat follows channels-last inputs, flip keeps the input's
layout, the others are contiguous), aliasing and errors are compared on every input layout.
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, Draws, P, check, check_grad, check_inplace, inputs, rand

INPLACE_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")
DTYPES = ("float32", "float64", "float16", "int64", "int32", "uint8", "bool")

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]


def arange(*shape, dtype="float32", layout="contiguous"):
    n = int(np.prod(shape)) if shape else 1
    return P(np.arange(n).reshape(shape).astype(dtype), layout)


# ---- cat --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat(layout):
    a, b = arange(2, 3, layout=layout), P(np.arange(8).reshape(2, 4), layout)
    check(lambda lib, a, b: lib.cat([a, b], 1), a, b)                     # float32 + int64 -> float32
    check(lambda lib, a: lib.cat([a, a]), a)
    check(lambda lib, a: lib.cat((a, a, a), dim=-1), a)
    check(lambda lib, a: lib.cat([a]), a)
    check(lambda lib, a: lib.concat([a, a], dim=1), a)
    check(lambda lib, a: lib.concatenate([a, a], axis=1), a)
    check(lambda lib, a: lib.cat([a, a], axis=0), a)
    check(lambda lib, a: lib.cat([a.t(), a.t()]), a)
    check(lambda lib, a: lib.cat([a, lib.tensor([], dtype=lib.float64)]), a)     # skipped, but promotes
    check(lambda lib, b: lib.cat([lib.tensor([]), b]), b)
    check(lambda lib, a: lib.cat([a, lib.zeros(0, 3)]), a)


@pytest.mark.parametrize("case", [
    lambda lib, a, b: lib.cat([a, b], 0),
    lambda lib, a, b: lib.cat([a, a, b], 0),
    lambda lib, a, b: lib.cat([]),
    lambda lib, a, b: lib.cat([lib.tensor(1.), lib.tensor(2.)]),
    lambda lib, a, b: lib.cat([a, a], 2),
    lambda lib, a, b: lib.cat([a, lib.ones(3)]),
    lambda lib, a, b: lib.cat([lib.ones(3), a]),
    lambda lib, a, b: lib.cat(a),
    lambda lib, a, b: lib.cat([a, lib.zeros(0, 4)]),
    lambda lib, a, b: lib.cat([lib.ones(2, 3), lib.zeros(0)], dim=5),
    lambda lib, a, b: lib.cat([a, a], out=lib.empty(4, 3, dtype=lib.int64)),
])
def test_cat_errors(case):
    check(case, arange(2, 3), P(np.arange(8).reshape(2, 4)))


@pytest.mark.parametrize("dtypes", [("bool", "uint8"), ("float16", "int64"), ("int32", "int64"), ("uint8", "int8"),
                                    ("bool", "bool"), ("float64", "float32")])
def test_cat_promotes(dtypes):
    check(lambda lib, a, b: lib.cat([a, b]), rand(2, 3, dtype=dtypes[0]), rand(1, 3, dtype=dtypes[1], seed=1))
    check(lambda lib, a, b: lib.stack([a, b]), rand(2, 3, dtype=dtypes[0]), rand(2, 3, dtype=dtypes[1], seed=1))


def test_cat_edge_shapes():
    check(lambda lib: lib.cat([lib.zeros(0), lib.zeros(0)]))
    check(lambda lib: lib.cat([lib.zeros(0), lib.zeros(2, 0)], dim=1))
    check(lambda lib: lib.cat([lib.ones(3, 1).expand(3, 4), lib.ones(3, 4)]))
    check(lambda lib: lib.cat([lib.zeros(2, 0, 3), lib.zeros(2, 2, 3)], 1))


def test_cat_out():
    a = arange(2, 3)
    check(lambda lib, a: lib.cat([a, a], out=lib.empty(4, 3)), a)
    check(lambda lib, a: lib.cat([a, a], out=lib.empty(4, 3, dtype=lib.float64)), a)    # casts up
    check(lambda lib, a: lib.cat([a, a], out=lib.empty(3, 4).t()), a)                  # keeps out's layout
    check(lambda lib, a: lib.cat([a, a], out=lib.empty(2)), a)                          # resized, with a warning
    check(lambda lib, a: lib.cat([a, a], out=lib.empty(0)), a)
    check(lambda lib: (lambda b: lib.cat([b[:2], lib.ones(2, 3)], out=b))(lib.ones(4, 3)))     # overlap
    check(lambda lib: lib.cat([lib.ones(2, 3)] * 2, out=lib.empty(3).expand(4, 3)))


@pytest.mark.parametrize("seed", range(6))
def test_cat_channels_last(seed):
    # the result is channels-last when every input suggests it (a 4-d input permuted the right way)
    c = P(np.random.default_rng(seed).random((2, 3, 4, 5)).astype(np.float32), "permuted", seed=seed)
    d = P(np.random.default_rng(seed).random((2, 3, 4, 5)).astype(np.float32), "permuted", seed=seed + 1)
    check(lambda lib, c, d: lib.cat([c, d], 1), c, d)
    check(lambda lib, c: lib.cat([c, c]), c)
    e = P(np.random.default_rng(seed).random((2, 3, 4, 5, 2)).astype(np.float32), "permuted", seed=seed)
    check(lambda lib, e: lib.cat([e, e], 2), e)
    check(lambda lib, c: lib.stack([c, c], seed % 5), c)
    check(lambda lib: lib.cat([lib.ones(2, 4, 5, 3).permute(0, 3, 1, 2)] * 2))
    check(lambda lib: lib.cat([lib.ones(2, 4, 5, 3).permute(0, 3, 1, 2), lib.ones(2, 3, 4, 5)]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_and_stack_dtypes(dtype):
    x = rand(2, 3, dtype=dtype, layout="permuted")
    y = rand(2, 3, dtype=dtype, layout="sliced", seed=1)
    check(lambda lib, x, y: lib.cat([x, y], 1), x, y)
    check(lambda lib, x, y: lib.stack([x, y], 2), x, y)
    check(lambda lib, x, y: lib.vstack([x, y]), x, y)


# ---- stack and friends ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_stack(layout):
    a = arange(2, 3, layout=layout)
    for dim in (0, 1, 2, -1, -3):
        check(lambda lib, a: lib.stack([a, a, a], dim), a)
    check(lambda lib, a: lib.stack((a.t(), a.t()), 1), a)
    check(lambda lib, a: lib.stack([a, a], out=lib.empty(0)), a)
    check(lambda lib, a: lib.stack([a, a], dim=1, out=lib.empty(0)), a)
    check(lambda lib, a: lib.stack([a[0], a[1]]), a)


@pytest.mark.parametrize("case", [
    lambda lib: lib.stack([lib.ones(3), lib.ones(4)]),
    lambda lib: lib.stack([lib.ones(3), lib.ones(3), lib.ones(1, 3)]),
    lambda lib: lib.stack([]),
    lambda lib: lib.stack([lib.ones(2, 3), lib.ones(2, 3)], 3),
    lambda lib: lib.stack([lib.tensor(1), lib.tensor(2.)]),
    lambda lib: lib.stack([lib.zeros(0), lib.zeros(0)]),
    lambda lib: lib.stack([lib.ones(2), lib.ones(2)], out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.stack(lib.ones(2, 3)),
    lambda lib: lib.hstack([]),
    lambda lib: lib.vstack([]),
    lambda lib: lib.dstack([]),
    lambda lib: lib.vstack([lib.ones(2), lib.ones(3)]),
])
def test_stack_errors_and_edges(case):
    check(case)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_hstack_vstack_dstack_column_stack(layout):
    a, v = arange(2, 3, layout=layout), arange(3, layout=layout)
    s = P(np.array(2.0, dtype=np.float32))
    for fn in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        check(lambda lib, a: getattr(lib, fn)([a, a]), a)
        check(lambda lib, v: getattr(lib, fn)([v, v]), v)
        check(lambda lib, s: getattr(lib, fn)([s, s]), s)
        check(lambda lib, a: getattr(lib, fn)((a, a), out=lib.empty(0)), a)
    check(lambda lib, v: lib.hstack([v, v[:2]]), v)
    check(lambda lib, a, v: lib.column_stack([v[:2], a]), a, v)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_atleast(layout):
    for shape in [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        x = arange(*shape, layout=layout)
        check(lambda lib, x: lib.atleast_1d(x), x)
        check(lambda lib, x: lib.atleast_2d(x), x)
        check(lambda lib, x: lib.atleast_3d(x), x)
    check(lambda lib, x, y: lib.atleast_2d(x, y), arange(3), arange())
    check(lambda lib, x, y: lib.atleast_3d([x, y]), arange(3), arange(2, 2))


# ---- triangles ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu(layout):
    for shape in [(3, 4), (4, 3), (2, 3, 4), (0, 3), (3, 0), (1, 1)]:
        x = arange(*shape, layout=layout)
        for diagonal in (0, 1, -1, 5, -5):
            check(lambda lib, x: x.tril(diagonal), x)
            check(lambda lib, x: lib.triu(x, diagonal), x)
    x = arange(3, 4, layout=layout)
    check(lambda lib, x: lib.tril(x, out=lib.empty(3, 4)), x)
    check(lambda lib, x: lib.triu(x, 1, out=lib.empty(4, 3).t()), x)
    check(lambda lib, x: lib.tril(x, out=lib.empty(0)), x)
    check(lambda lib, x: lib.tril(x, out=lib.empty(3, 4, dtype=lib.float64)), x)
    check(lambda lib, x: lib.tril(x, out=lib.empty(3, 4, dtype=lib.int64)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tril_triu_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    check(lambda lib, x: x.tril(), x)
    check(lambda lib, x: x.triu(-1), x)
    check_inplace(lambda lib, x: x.tril_(1), rand(3, 3, dtype=dtype, layout="sliced"))


@pytest.mark.parametrize("diagonal", [10**20, 2**63, -2**63 - 1, 2**63 - 1, -2**63], ids=str)
def test_tril_triu_diagonal_must_fit_int64(diagonal):
    x = arange(3, 4)
    check(lambda lib, x: x.tril(diagonal), x)
    check(lambda lib, x: lib.triu(x, diagonal), x)
    check(lambda lib, x: lib.tril(x, diagonal=diagonal, out=lib.empty(3, 4)), x)
    check_inplace(lambda lib, x: x.triu_(diagonal), arange(3, 4, layout="sliced"))


def test_tril_triu_errors():
    check(lambda lib: lib.ones(3).tril())
    check(lambda lib: lib.tensor(1.).triu())
    check(lambda lib: lib.ones(3).tril_())
    # expanded targets: only the zeros outside the triangle are written, through every alias
    check(lambda lib: lib.ones(3).expand(3, 3).tril_())
    check(lambda lib: lib.ones(3, 1).expand(3, 3).triu_(1))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_tril_triu_inplace(layout):
    for shape in [(3, 4), (4, 3), (2, 3, 4)]:
        for diagonal in (0, 1, -2):
            check_inplace(lambda lib, x: x.tril_(diagonal), arange(*shape, layout=layout))
            check_inplace(lambda lib, x: x.triu_(diagonal), arange(*shape, layout=layout))
    check_inplace(lambda lib, x: x.triu_(), arange(3, layout=layout))          # error: unchanged


# ---- flip / roll / rot90 ----------------------------------------------------------------------------------------------

FLIP = {
    "dim0": lambda lib, x: x.flip(0),
    "dims_varargs": lambda lib, x: x.flip(0, 1),
    "dims_list": lambda lib, x: x.flip([0, -1]),
    "function": lambda lib, x: lib.flip(x, [1]),
    "function_tuple": lambda lib, x: lib.flip(x, (0,)),
    "no_dims": lambda lib, x: x.flip([]),
    "duplicate": lambda lib, x: x.flip([0, 0]),
    "duplicate_negative": lambda lib, x: x.flip([0, -2]),
    "out_of_range": lambda lib, x: x.flip(2),
    "fliplr": lambda lib, x: x.fliplr(),
    "flipud": lambda lib, x: lib.flipud(x),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(FLIP))
def test_flip_keeps_layout(case, layout):
    check(FLIP[case], arange(3, 4, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip_more_shapes(layout):
    x = arange(2, 3, 4, layout=layout)
    check(lambda lib, x: x.flip(0, 2), x)
    check(lambda lib, x: x.flip(1), x)
    check(lambda lib, x: lib.fliplr(x), x)
    check(lambda lib: lib.tensor(3.).flip(0))
    check(lambda lib: lib.ones(3).fliplr())
    check(lambda lib: lib.tensor(1.).flipud())
    check(lambda lib, x: x.flip(0), arange(0, 3, layout=layout))


ROLL = {
    "flat": lambda lib, x: x.roll(1),
    "flat_negative": lambda lib, x: x.roll(-5),
    "dim": lambda lib, x: x.roll(1, 0),
    "two_dims": lambda lib, x: x.roll((1, -1), (0, 1)),
    "function_kwargs": lambda lib, x: lib.roll(x, shifts=(1, -5), dims=(0, 1)),
    "same_dim_twice": lambda lib, x: x.roll((1, 1), (0, 0)),
    "big_shift": lambda lib, x: x.roll(13, 1),
    "mismatch": lambda lib, x: x.roll((1, -1), (0,)),
    "empty_shifts": lambda lib, x: x.roll((), ()),
    "several_shifts_no_dims": lambda lib, x: x.roll((1, 2)),
    "dim_out_of_range": lambda lib, x: x.roll(1, 2),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(ROLL))
def test_roll(case, layout):
    check(ROLL[case], arange(3, 4, layout=layout))


def test_roll_edges():
    check(lambda lib: lib.tensor(1.).roll(1))
    check(lambda lib: lib.tensor(1.).roll(1, 0))
    check(lambda lib: lib.zeros(0, 3).roll(1, 0))
    check(lambda lib: lib.zeros(0, 3).roll(1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rot90(layout):
    x = arange(3, 4, layout=layout)
    for k in (0, 1, 2, 3, -1, 5):
        check(lambda lib, x: lib.rot90(x, k), x)
        check(lambda lib, x: x.rot90(k, [1, 0]), x)
    check(lambda lib, y: lib.rot90(y, 1, [0, 2]), arange(2, 3, 4, layout=layout))
    for case in (lambda lib: lib.rot90(lib.ones(3, 3), 1, [0]), lambda lib: lib.rot90(lib.ones(3), 1),
                 lambda lib: lib.rot90(lib.ones(3, 3), 1, [0, -2]), lambda lib: lib.rot90(lib.ones(3, 3), 1, [0, 2])):
        check(case)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flip_roll_repeat_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    check(lambda lib, x: x.flip(1), x)
    check(lambda lib, x: x.roll(2, 1), x)
    check(lambda lib, x: x.repeat(2, 1, 2), x)
    check(lambda lib, x: x.repeat_interleave(2, dim=1), x)
    check(lambda lib, x: lib.rot90(x), x)


# ---- repeat / tile / repeat_interleave -------------------------------------------------------------------------------

REPEAT = {
    "rows": lambda lib, x: x.repeat(2, 1),
    "new_dim": lambda lib, x: x.repeat(2, 1, 2),
    "tuple": lambda lib, x: x.repeat((2, 1)),
    "list": lambda lib, x: x.repeat([1, 3]),
    "zero": lambda lib, x: x.repeat(0, 1),
    "too_few": lambda lib, x: x.repeat(2),
    "negative": lambda lib, x: x.repeat(2, -1),
    "tile_int": lambda lib, x: x.tile(2),
    "tile_more": lambda lib, x: x.tile((2, 1, 1)),
    "tile_function": lambda lib, x: lib.tile(x, (2,)),
    "tile_empty": lambda lib, x: x.tile(()),
    "interleave": lambda lib, x: x.repeat_interleave(2),
    "interleave_dim": lambda lib, x: x.repeat_interleave(2, dim=0),
    "interleave_dim1": lambda lib, x: lib.repeat_interleave(x, 3, 1),
    "interleave_tensor": lambda lib, x: x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0),
    "interleave_tensor_int32": lambda lib, x: x.repeat_interleave(lib.tensor([1, 0, 2, 1], dtype=lib.int32), dim=1),
    "interleave_tensor_flat": lambda lib, x: x.repeat_interleave(lib.tensor([2])),
    "interleave_tensor_0d": lambda lib, x: x.repeat_interleave(lib.tensor(2), dim=1),
    "interleave_output_size": lambda lib, x: x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0, output_size=3),
    "interleave_bad_size": lambda lib, x: x.repeat_interleave(lib.tensor([1, 0]), dim=0),
    "interleave_negative_tensor": lambda lib, x: x.repeat_interleave(lib.tensor([1, -1, 2]), dim=0),
    "interleave_negative": lambda lib, x: x.repeat_interleave(-1),
    "interleave_float_repeats": lambda lib, x: x.repeat_interleave(lib.tensor([1., 0, 2]), dim=0),
    "interleave_2d_repeats": lambda lib, x: x.repeat_interleave(lib.tensor([[2]]), dim=0),
    "interleave_dim_out_of_range": lambda lib, x: x.repeat_interleave(2, dim=2),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(REPEAT))
def test_repeat_tile_repeat_interleave(case, layout):
    check(REPEAT[case], arange(3, 4, layout=layout))


def test_repeat_edges():
    check(lambda lib: lib.tensor(1.).repeat(3))
    check(lambda lib: lib.tensor(1.).repeat(()))
    check(lambda lib: lib.zeros(0, 2).repeat(3, 2))
    check(lambda lib: lib.tensor(2.).repeat_interleave(2))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, 0, 2])))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, 0, 2], dtype=lib.int32)))
    check(lambda lib: lib.repeat_interleave(lib.tensor([[1, 0, 2]])))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, -1])))
    check(lambda lib: lib.ones(3).repeat_interleave(lib.tensor([1, 2, 3]), output_size=5))


@pytest.mark.parametrize("repeats", [(2**40, 2**40), (2**40, 2**40, 0), (-1, 2), (2**61,)], ids=repr)
def test_repeat_refuses_sizes_beyond_int64(repeats):
    """The result is allocated first, so its size is checked as `empty` checks it (NumPy's tile would try)."""
    check(lambda lib, x: x.repeat(*repeats), arange(2))
    if min(repeats) >= 0:   # (on meta, PyTorch's Python decomposition words a negative repeat its own way)
        check(lambda lib: lib.zeros(2, device="meta").repeat(*repeats))


# ---- diagonals ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag(layout):
    v, x = arange(3, layout=layout), arange(3, 4, layout=layout)
    for k in (0, 1, -2, 5, -5):
        check(lambda lib, v: lib.diag(v, k), v)
        check(lambda lib, x: x.diag(k), x)
        check(lambda lib, x: lib.diagflat(x, k), x)
    check(lambda lib, x: lib.diag(x, out=lib.empty(3)), x)
    check(lambda lib, x: lib.diag(x, out=lib.empty(0)), x)
    check(lambda lib, x: lib.diag(x, out=lib.empty(3, dtype=lib.float64)), x)


def test_diag_edges_and_errors():
    check(lambda lib: lib.diag(lib.ones(2, 2, 2)))
    check(lambda lib: lib.diag(lib.tensor(1.)))
    check(lambda lib: lib.diag(lib.zeros(0), 1))
    check(lambda lib: lib.diag(lib.zeros(0, 3)))
    check(lambda lib: lib.diagflat(lib.tensor(2.)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag_embed(layout):
    x = arange(3, 4, layout=layout)
    for args in [(), (1,), (-1,), (1, 0, 2), (-2, 2, 0), (0, 1, 0), (1, 0, 0), (0, 0, 3)]:
        check(lambda lib, x: lib.diag_embed(x, *args), x)
    check(lambda lib, y: y.diag_embed(1, 1, 3), arange(2, 3, 4, layout=layout))
    check(lambda lib: lib.diag_embed(lib.tensor(2.)))
    check(lambda lib: lib.diag_embed(lib.ones(3)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_dtypes(dtype):
    check(lambda lib, x: lib.diag(x, 1), rand(4, dtype=dtype, layout="sliced"))
    check(lambda lib, x: lib.diag(x, -1), rand(3, 4, dtype=dtype, layout="permuted"))
    check(lambda lib, x: lib.diag_embed(x), rand(2, 3, dtype=dtype, layout="permuted"))


# ---- meshgrid ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    a, b, c = arange(2, dtype="int64"), arange(3, dtype="int64", layout="sliced"), arange(4, dtype="int64")
    check(lambda lib, a, b: lib.meshgrid(a, b, indexing=indexing), a, b)
    check(lambda lib, a, b, c: lib.meshgrid(a, b, c, indexing=indexing), a, b, c)
    check(lambda lib, a, b: lib.meshgrid([a, b], indexing=indexing), a, b)
    check(lambda lib, a: lib.meshgrid(a, indexing=indexing), a)
    check(lambda lib, b: lib.meshgrid(lib.tensor(1), b, indexing=indexing), b)


def test_meshgrid_errors():
    check(lambda lib: lib.meshgrid(lib.arange(2), lib.arange(3)))                  # warns, "ij"
    check(lambda lib: lib.meshgrid(lib.arange(2), lib.arange(3.), indexing="ij"))
    check(lambda lib: lib.meshgrid(indexing="ij"))
    check(lambda lib: lib.meshgrid(lib.arange(2), indexing="foo"))
    check(lambda lib: lib.meshgrid(lib.ones(2, 2), lib.ones(3), indexing="ij"), msg="Expected 0D or 1D tensor")
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        tt.meshgrid(tt.arange(2), tt.arange(3))


def test_results_never_alias_inputs():
    x = tt.arange(12.).reshape(3, 4)
    for r in (tt.cat([x]), tt.stack([x]), x.flip([]), x.flip(0), x.roll(0), x.repeat(1, 1), x.tril(5), tt.diag(x),
              tt.rot90(x, 0), x.repeat_interleave(1)):
        assert r.untyped_storage() is not x.untyped_storage()


def test_meta_device_shapes():
    x = tt.empty(3, 4, device="meta")
    assert tt.cat([x, x], 1).shape == (3, 8) and tt.stack([x, x]).shape == (2, 3, 4)
    assert x.flip(0).shape == (3, 4) and x.roll(1).shape == (3, 4) and x.repeat(2, 1).shape == (6, 4)
    assert x.tril().device.type == "meta" and tt.diag(x).shape == (3,) and tt.diag_embed(x).shape == (3, 4, 4)


# ---- hypothesis ---------------------------------------------------------------------------------------------------------


@given(st.lists(inputs(shape=(2, 3), dtype="float32"), min_size=1, max_size=3), st.data())
def test_fuzz_cat_stack(ps, data):
    dim = data.draw(st.integers(-2, 1))
    check(lambda lib, *xs: lib.cat(xs, dim), *ps)
    sdim = data.draw(st.integers(-3, 2))
    check(lambda lib, *xs: lib.stack(xs, sdim), *ps)
    check(lambda lib, *xs: lib.hstack(xs), *ps)
    check(lambda lib, *xs: lib.vstack(xs), *ps)
    check(lambda lib, *xs: lib.dstack(xs), *ps)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.data())
def test_fuzz_cat_shapes_and_layouts(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    ps = []
    for k in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        ps.append(data.draw(inputs(shape=tuple(s), dtype=data.draw(st.sampled_from(["float32", "int64", "bool"]))))
                  )
    check(lambda lib, *xs: lib.cat(xs, dim), *ps)


@given(inputs(), st.data())
# (8c67f5d, a random-seed finding) roll((1, 1), (3, 1)) of a permuted (1, 2, 1, 2): PyTorch's roll_common rolls
# one dim, then the rest (two cats), strides (4, 1, 4, 2); rolling every dim at once gave (4, 2, 2, 1).
# Draws: flip dims, roll dims, shifts, flat shift, repeats, repeat_interleave's dim and count
@example(p=rand(1, 2, 1, 2, layout="permuted", seed=2), data=Draws([], [3, 1], [1, 1], 0, [1, 1, 1, 1], 0, 1))
def test_fuzz_flip_roll_repeat(p, data):
    nd = p.values.ndim
    if nd:
        dims = data.draw(st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda d: d % nd))
        check(lambda lib, x: x.flip(dims), p)
        roll_dims = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=3))
        shifts = data.draw(st.lists(st.integers(-7, 7), min_size=len(roll_dims), max_size=len(roll_dims)))
        check(lambda lib, x: x.roll(shifts, roll_dims), p)
    shift = data.draw(st.integers(-5, 5))
    check(lambda lib, x: x.roll(shift), p)
    reps = data.draw(st.lists(st.integers(0, 3), min_size=nd, max_size=nd + 2))
    check(lambda lib, x: x.repeat(*reps) if reps else x.repeat(()), p)
    check(lambda lib, x: x.tile(tuple(reps)), p)
    if nd:
        d = data.draw(st.integers(-nd, nd - 1))
        n = data.draw(st.integers(0, 3))
        check(lambda lib, x: x.repeat_interleave(n, dim=d), p)
        counts = np.random.default_rng(n).integers(0, 3, size=p.values.shape[d])
        check(lambda lib, x: x.repeat_interleave(lib.tensor(counts), dim=d), p)


@given(inputs(shape=None), st.data())
def test_fuzz_tril_triu_diag(p, data):
    nd = p.values.ndim
    k = data.draw(st.integers(-4, 4))
    check(lambda lib, x: x.tril(k), p)
    check(lambda lib, x: x.triu(k), p)
    if nd in (1, 2):
        check(lambda lib, x: lib.diag(x, k), p)
    check(lambda lib, x: lib.diag_embed(x, k), p)
    if nd >= 2 and p.layout != "expanded":
        check_inplace(lambda lib, x: x.tril_(k), P(p.values, p.layout))
        check_inplace(lambda lib, x: x.triu_(k), P(p.values, p.layout))
    if nd >= 2:
        d0, d1 = data.draw(st.permutations(range(nd)))[:2]
        check(lambda lib, x: lib.rot90(x, k, [d0, d1]), p)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll_along_one_dim_is_laid_out_like_cat(layout):
    # PyTorch rolls along one dim as cat(narrow, narrow): the result takes cat's layout, not a contiguous one
    check(lambda lib: lib.arange(4.0).as_strided((2, 1, 2, 1), (2, 1, 1, 1)).roll(1, 0))
    check(lambda lib, x: x.roll(1, 0), rand(3, 4, layout=layout))
    check(lambda lib, x: x.roll(-5, -1), rand(3, 4, layout=layout))
    check(lambda lib, x: x.roll(2, 1), rand(0, 4, layout=layout))


@pytest.mark.parametrize("shapes", [((3, 2), (3,)), ((2,), (3,)), ((1, 4), (2, 3, 5)), ((3,), (2,), (2,)),
                                    ((2, 1, 4), (3, 1)), (3, (2, 1)), ([1, 3], [4, 1]), ((),), (), ((0,), (1,)),
                                    ((2, -1), (2, 1)), ((1,), (-1,)), (None, (2,))])
def test_broadcast_shapes_values_and_errors(shapes):
    check(lambda lib: lib.broadcast_shapes(*shapes))


# ---- ravel, diff ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2), (5,), (), (0, 3)])
def test_ravel_like_torch(layout, shape):
    x = rand(*shape, layout=layout)
    check(lambda lib, x: lib.ravel(x), x)          # a view of a contiguous input, else of a copy
    check(lambda lib, x: x.ravel(), x)
    if shape and 0 not in shape:
        check_grad(lambda lib, x: x.ravel() * 2, x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n, dim", [(1, -1), (2, 0), (1, 1), (3, -1), (5, -1), (0, 0)])
def test_diff_like_torch(layout, n, dim):
    x = rand(3, 4, layout=layout)
    check(lambda lib, x: lib.diff(x, n=n, dim=dim), x)
    check(lambda lib, x: x.diff(n, dim), x)
    check_grad(lambda lib, x: lib.diff(x, n=n, dim=dim), x)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_diff_with_prepend_and_append_like_torch(layout):
    x, before, after = rand(3, 4, layout=layout), rand(3, 2, seed=1), rand(3, 1, layout=layout, seed=2)
    check(lambda lib, x, p, a: lib.diff(x, prepend=p, append=a), x, before, after)
    check(lambda lib, x, a: lib.diff(x, n=2, dim=1, append=a), x, after)
    check_grad(lambda lib, x, p, a: lib.diff(x, dim=1, prepend=p, append=a), x, before, after)


@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8", "float16"])
def test_diff_of_other_dtypes_like_torch(dtype):
    check(lambda lib, x: lib.diff(x), rand(4, 5, dtype=dtype, low=0, high=4))


@pytest.mark.parametrize("case", [
    lambda lib: lib.diff(lib.tensor(1.0)),
    lambda lib: lib.diff(lib.ones(3), n=-1),
    lambda lib: lib.diff(lib.ones(2, 3), prepend=lib.ones(3)),
    lambda lib: lib.diff(lib.ones(2, 3), dim=5),
    lambda lib: lib.diff(lib.ones(2, 3), n=1.5),
])
def test_diff_errors_like_torch(case):
    check(lambda lib: case(lib), msg=False)
