"""Advanced indexing and the gather / scatter family against PyTorch: x[idx], x[idx] = v, index_put_,
index_select, gather, scatter*, index_add/copy/fill, masked_fill/select/scatter, nonzero, take, put.

Every op runs on every input layout (contiguous, permuted, sliced, offset, expanded); every in-place op
writes into permuted, sliced and offset targets (check_inplace compares the whole storage); errors must
match PyTorch's type and text.
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, check, check_inplace, inputs, rand

INPLACE_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")
DTYPES = ("float32", "float64", "float16", "int64", "int32", "uint8", "bool")

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]


def I(values, dtype="int64", layout="contiguous"):
    """An index tensor."""
    return P(np.array(values, dtype=dtype), layout)


def B(values, layout="contiguous"):
    """A bool mask."""
    return P(np.array(values, dtype=bool), layout)


def arange(*shape, dtype="float32", layout="contiguous"):
    n = int(np.prod(shape)) if shape else 1
    return P(np.arange(n).reshape(shape).astype(dtype), layout)


def returning(fn):
    """setitem returns None: wrap it so check_inplace gets the target back."""
    def run(lib, x, *args):
        fn(lib, x, *args)
        return x
    return run


# ---- x[index] ------------------------------------------------------------------------------------------------

MASK23 = np.array([[True, False, True], [True, True, False]])

GETITEM = {
    "list": lambda lib, x: x[[0, 1]],
    "list_neg": lambda lib, x: x[[-1, 0]],
    "tensor": lambda lib, x: x[lib.tensor([1, 0, 1])],
    "int32_tensor": lambda lib, x: x[lib.tensor([1, 0], dtype=lib.int32)],
    "2d_tensor": lambda lib, x: x[lib.tensor([[0, 1], [1, 0]])],
    "two_adjacent": lambda lib, x: x[:, [0, 1], [1, 2]],
    "two_separated": lambda lib, x: x[[0, 1], :, [1, 2]],
    "broadcast_indices": lambda lib, x: x[[[0], [1]], [[0, 2]]],
    "separated_2d": lambda lib, x: x[[[0], [1]], :, [[0, 1, 2]]],
    "int_then_list": lambda lib, x: x[1, [0, 2]],
    "list_int_list": lambda lib, x: x[[0, 1], 0, [1, 3]],
    "0d_tensor_then_list": lambda lib, x: x[lib.tensor(1), [0, 1]],
    "slice_list": lambda lib, x: x[1:, [2, 0]],
    "ellipsis_list": lambda lib, x: x[..., [0, 3]],
    "list_ellipsis": lambda lib, x: x[[0, 1], ...],
    "none_list": lambda lib, x: x[None, [0, 1]],
    "list_none": lambda lib, x: x[[0, 1], None],
    "list_none_list": lambda lib, x: x[[0, 1], None, [0, 1]],
    "mask_2d": lambda lib, x: x[lib.tensor(MASK23)],
    "mask_2d_int": lambda lib, x: x[lib.tensor(MASK23), 0],
    "mask_2d_slice": lambda lib, x: x[lib.tensor(MASK23), 1:3],
    "mask_2d_none": lambda lib, x: x[lib.tensor(MASK23), None],
    "mask_ellipsis_int": lambda lib, x: x[lib.tensor(MASK23), ..., 0],
    "mask_last_dim": lambda lib, x: x[..., lib.tensor([True, False, True, True])],
    "two_masks": lambda lib, x: x[lib.tensor([True, False]), :, lib.tensor([True, False, True, False])],
    "mask_of_values": lambda lib, x: x[x > 5],
    "uint8_mask": lambda lib, x: x[lib.tensor([1, 0], dtype=lib.uint8)],
    "bool_list": lambda lib, x: x[[True, False]],
    "python_true": lambda lib, x: x[True],
    "python_false": lambda lib, x: x[False],
    "none_true": lambda lib, x: x[None, True],
    "0d_bool_tensor": lambda lib, x: x[lib.tensor(True)],
    "0d_uint8_tensor": lambda lib, x: x[lib.tensor(0, dtype=lib.uint8)],
    "numpy_int": lambda lib, x: x[np.array([1, 0])],
    "numpy_int32": lambda lib, x: x[np.array([1, 0], dtype=np.int32)],
    "numpy_float_truncates": lambda lib, x: x[np.array([1.7, 0.2])],
    "numpy_2d": lambda lib, x: x[np.array([[0, 1], [1, 0]])],
    "numpy_uint8_mask": lambda lib, x: x[np.array([1, 0], dtype=np.uint8)],
    "numpy_0d": lambda lib, x: x[np.array(1)],
    "numpy_0d_bool": lambda lib, x: x[np.array(True)],
    "float_list_truncates": lambda lib, x: x[[1.0]],
    "empty_list": lambda lib, x: x[[]],
    "range": lambda lib, x: x[range(2)],
    "mixed_bool_int_list": lambda lib, x: x[[True, 1]],
    "nested_list_as_tuple": lambda lib, x: x[[[0, 1], [1, 0]]],
    "list_of_tensors_as_tuple": lambda lib, x: x[[lib.tensor(1), lib.tensor(2)]],
    "list_with_slice_as_tuple": lambda lib, x: x[[0, slice(1, 3)]],
    "long_list_is_an_index": lambda lib, x: x[[0, 1] * 17],
    # errors, with PyTorch's messages
    "oob_dim0": lambda lib, x: x[[5]],
    "oob_dim1": lambda lib, x: x[:, [5]],
    "oob_third_index": lambda lib, x: x[[0], [1], [7]],
    "oob_negative": lambda lib, x: x[[-3]],
    "oob_int_with_list": lambda lib, x: x[[0], None, 5],
    "mask_wrong_size": lambda lib, x: x[lib.ones(3, dtype=lib.bool)],
    "mask_wrong_size_dim1": lambda lib, x: x[:, lib.ones(4, dtype=lib.bool)],
    "float_tensor": lambda lib, x: x[lib.ones(2)],
    "float_0d_tensor": lambda lib, x: x[lib.tensor(1.)],
    "int16_tensor": lambda lib, x: x[lib.tensor([1, 0], dtype=lib.int16)],
    "broadcast_error": lambda lib, x: x[[0, 1], [0, 1, 2]],
    "too_many": lambda lib, x: x[[0], [0], [0], [0]],
    "too_many_with_ints": lambda lib, x: x[0, 0, 0, [0]],
    "float_index": lambda lib, x: x[1.5],
    "float_after_list": lambda lib, x: x[[0], 1.5],
    "set_index": lambda lib, x: x[{0}],
    "string_index": lambda lib, x: x["a"],
    "numpy_bool_scalar": lambda lib, x: x[np.True_],
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(GETITEM))
def test_getitem(case, layout):
    check(GETITEM[case], arange(2, 3, 4, layout=layout))


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    check(lambda lib, x: x[[2, 0]], x)
    check(lambda lib, x: x[:, [3, 1]], x)
    check(lambda lib, x: x[x == x[0, 0]], x)


def test_getitem_result_is_a_copy():
    x = tt.arange(12.).reshape(3, 4)
    for r in (x[[0, 2]], x[x > 3], x[True], x[:, [1]]):
        assert r._base is None and r.untyped_storage() is not x.untyped_storage()
    # ... while a list that is really a tuple of basic indices gives a view, as in PyTorch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x[[0, slice(1, 3)]]._base is not None


@pytest.mark.parametrize("layout", LAYOUTS)
def test_getitem_output_strides_follow_torch(layout):
    # TensorIterator lays out the result like its operands: a permuted input or index gives a permuted result
    x = arange(4, 2, 3, layout=layout)
    check(lambda lib, x: x[:, [0, 1]], x)
    check(lambda lib, x: x[:, :, [0, 2]], x)
    check(lambda lib, x, i: x[i], x, I([[0, 1, 2], [3, 2, 1]], layout="permuted"))
    check(lambda lib, x, i: x[:, i], x, I([[0, 1], [1, 0], [1, 1]], layout="permuted"))
    check(lambda lib, x, i: x[i, :, i], x, I([[0, 1], [1, 0]], layout="expanded"))


def test_getitem_edge_shapes():
    check(lambda lib, z: z[[0]], arange(0, 3))
    check(lambda lib, z: z[lib.tensor([], dtype=lib.int64)], arange(0, 3))
    check(lambda lib, z: z[:, [0]], arange(0, 3))
    check(lambda lib, z: z[z > 0], arange(0, 3))
    s = P(np.array(5.0, dtype=np.float32))
    for fn in (lambda lib, s: s[True], lambda lib, s: s[False], lambda lib, s: s[[0]], lambda lib, s: s[None],
               lambda lib, s: s[lib.tensor(True)], lambda lib, s: s[s > 0]):
        check(fn, s)


def test_uint8_index_warns_like_torch():
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        tt.arange(3)[tt.tensor([1, 0, 1], dtype=tt.uint8)]
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
        tt.arange(9).reshape(3, 3)[[[0, 1], [1, 2]]]


def test_index_op_directly():
    x = arange(3, 4)
    check(lambda lib, x, i: torch.ops.aten.index.Tensor(x, [None, i]) if lib is torch else
          tt.dispatch.dispatcher.lookup("index.Tensor")(x, [None, i]), x, I([0, 2]))
    check(lambda lib, x, i: torch.ops.aten.index.Tensor(x, [i, i, i]) if lib is torch else
          tt.dispatch.dispatcher.lookup("index.Tensor")(x, [i, i, i]), x, I([0]))


# ---- x[index] = value ------------------------------------------------------------------------------------------

SETITEM = {
    "rows_scalar": lambda lib, x: x.__setitem__([0, 2], 5),
    "rows_tensor": lambda lib, x: x.__setitem__([0, 2], lib.tensor([1., 2, 3, 4])),
    "rows_leading_ones": lambda lib, x: x.__setitem__([0, 2], lib.ones(1, 1, 4)),
    "rows_full_value": lambda lib, x: x.__setitem__([2, 0], lib.arange(8.).reshape(1, 2, 4)),
    "pairs": lambda lib, x: x.__setitem__(([0, 1], [1, 2]), lib.tensor([10., 20.])),
    "columns": lambda lib, x: x.__setitem__((slice(None), [1, 2]), lib.tensor([10., 20.])),
    "slice_and_list": lambda lib, x: x.__setitem__((slice(1, None), [0]), lib.tensor([[7.], [8.]])),
    "mask_scalar": lambda lib, x: x.__setitem__(x > 5, 0),
    "mask_0d_tensor": lambda lib, x: x.__setitem__(x > 5, lib.tensor(1.)),
    "mask_0d_other_dtype": lambda lib, x: x.__setitem__(x > 5, lib.tensor(1)),
    "mask_values": lambda lib, x: x.__setitem__(lib.tensor([[False] * 4, [False, False, True, True], [True] * 4]),
                                                lib.arange(6.)),
    "row_mask": lambda lib, x: x.__setitem__(lib.tensor([True, False, True]), lib.tensor([1., 2, 3, 4])),
    "column_mask_list": lambda lib, x: x.__setitem__((slice(None), [True, False, True, False]), lib.tensor(9.)),
    "column_mask_values": lambda lib, x: x.__setitem__((slice(None), lib.tensor([True, False, True, False])),
                                                       lib.tensor([[9.], [8.], [7.]])),
    "mask_and_none": lambda lib, x: x.__setitem__((lib.tensor([True, False, True]), None), 2.),
    "negative": lambda lib, x: x.__setitem__([-1], 2.5),
    "python_true": lambda lib, x: x.__setitem__(True, 3.),
    "nested_list": lambda lib, x: x.__setitem__([[0, 1], [1, 2]], 7.),
    "numpy_index": lambda lib, x: x.__setitem__(np.array([2, 0]), -1.),
    # errors: the target must be left unchanged
    "value_wrong_shape": lambda lib, x: x.__setitem__([0, 2], lib.ones(3)),
    "value_other_dtype": lambda lib, x: x.__setitem__([0, 2], lib.tensor([1, 2, 3, 4])),
    "value_list": lambda lib, x: x.__setitem__([0, 2], [1, 2, 3, 4.]),
    "value_numpy": lambda lib, x: x.__setitem__([0], np.ones(4)),
    "value_string": lambda lib, x: x.__setitem__([0], "a"),
    "mask_values_too_few": lambda lib, x: x.__setitem__(lib.tensor([[False] * 4, [False, False, True, True],
                                                                   [True] * 4]), lib.arange(5.)),
    "uint8_mask_scalar": lambda lib, x: x.__setitem__(lib.tensor([1, 0, 1], dtype=lib.uint8), 2.),
    "overlapping_value": lambda lib, x: x.__setitem__([0], x[1]),
    "whole_self_as_value": lambda lib, x: x.__setitem__([0, 1, 2], x),
}


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
@pytest.mark.parametrize("case", list(SETITEM))
def test_setitem(case, layout):
    check_inplace(returning(SETITEM[case]), arange(3, 4, layout=layout))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_setitem_3d(layout):
    x = arange(2, 3, 4, layout=layout)
    check_inplace(returning(lambda lib, x: x.__setitem__(([0, 1], slice(None), [1, 3]), -1.)), x)
    check_inplace(returning(lambda lib, x: x.__setitem__(([1, 0], slice(None), [1, 3]),
                                                         lib.arange(6.).reshape(2, 3))), x)
    check_inplace(returning(lambda lib, x: x.__setitem__((lib.tensor(MASK23), 0), lib.arange(4.))), x)
    check_inplace(returning(lambda lib, x: x.__setitem__((Ellipsis, [2, 0]), lib.zeros(2, 3, 2))), x)


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_setitem_scalar_conversion(layout):
    ints = P(np.arange(6), layout)
    check_inplace(returning(lambda lib, x: x.__setitem__([0], 2.5)), ints)            # truncated
    check_inplace(returning(lambda lib, x: x.__setitem__([0], True)), ints)
    check_inplace(returning(lambda lib, x: x.__setitem__(x > 3, 2.5)), ints)
    check_inplace(returning(lambda lib, x: x.__setitem__(x > 3, lib.tensor(2.5))), ints)   # via masked_fill_
    check_inplace(returning(lambda lib, x: x.__setitem__([0], lib.tensor(2.5))), ints)     # dtype error
    check_inplace(returning(lambda lib, x: x.__setitem__([0], 2.5)), P(np.zeros(3, bool), layout))
    small = P(np.zeros(3, np.uint8), layout)
    check_inplace(returning(lambda lib, x: x.__setitem__([0], -1)), small)            # wraps to 255, as in torch
    check_inplace(returning(lambda lib, x: x.__setitem__([0], 300)), small)           # overflow error
    check_inplace(returning(lambda lib, x: x.__setitem__(x == 0, 300)), small)
    check_inplace(returning(lambda lib, x: x.__setitem__(0, 300)), small)             # basic indexing too


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="sliced", seed=2)
    check_inplace(returning(lambda lib, x, v: x.__setitem__([2, 0], v)), x, rand(2, 4, dtype=dtype, seed=3))
    check_inplace(returning(lambda lib, x, v: x.__setitem__((slice(None), [1]), v)), x, rand(3, 1, dtype=dtype))
    check_inplace(returning(lambda lib, x: x.__setitem__(lib.tensor([True, False, True]), 1)), x)


def test_setitem_false_does_nothing():
    for lib in (torch, tt):
        x = lib.arange(6.)
        x[False] = 3.0
        assert x._version == 0 and x.tolist() == list(range(6))
        x[(False,)] = 3.0            # a tuple goes through index_put_ (with an empty index)
        assert x._version == 1 and x.tolist() == list(range(6))


def test_setitem_bumps_the_version_once_through_a_view():
    x = tt.arange(12.).reshape(3, 4)
    v = x[1:]
    v[[0, 1], [1, 2]] = tt.tensor([-1., -2.])
    assert x._version == v._version == 1
    assert x[1, 1].item() == -1 and x[2, 2].item() == -2


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_failed_index_write_leaves_target_unchanged(layout):
    # PyTorch writes element by element and stops at the bad index; teachtorch checks every index first
    # (a failed op leaves its target unchanged), so only the error is compared with PyTorch here.
    for fn in (lambda lib, x: x.__setitem__([0, 5], 1.), lambda lib, x: x.index_put_((lib.tensor([0, 7]),),
                                                                                       lib.tensor(1.)),
               lambda lib, x: x.scatter_(1, lib.tensor([[0, 7]]), 4.),
               lambda lib, x: x.index_add_(0, lib.tensor([2, 3]), lib.ones(2, 4)),
               lambda lib, x: x.put_(lib.tensor([0, 13]), lib.ones(2))):
        check(fn, arange(3, 4, layout=layout))
        x = arange(3, 4, layout=layout).build(tt)
        before = x.clone()
        with pytest.raises((IndexError, RuntimeError)):
            fn(tt, x)
        assert x.tolist() == before.tolist()


def test_write_into_expanded_target_warns_and_writes_every_alias():
    for fn in (lambda lib: lib.zeros(3).expand(2, 3).index_put_((lib.tensor([0]),), lib.tensor(2.5)),
               lambda lib: lib.zeros(3).expand(2, 3).index_put_((lib.tensor([0, 1]),), lib.tensor(1.),
                                                                accumulate=True),
               lambda lib: lib.zeros(3).expand(2, 3).masked_fill_(lib.tensor([True, False, True]), 1.),
               lambda lib: lib.zeros(3).expand(2, 3).index_fill_(1, lib.tensor([0, 1]), 1.),
               returning(lambda lib, x: x.__setitem__(lib.tensor([True, False]), 2.5)),
               lambda lib: lib.zeros(3).expand(2, 3).scatter_(1, lib.tensor([[0, 1]]), 1.),
               lambda lib: lib.zeros(3).expand(2, 3).index_add_(1, lib.tensor([0, 1]), lib.ones(2, 2)),
               lambda lib: lib.zeros(3).expand(2, 3).index_copy_(1, lib.tensor([0, 1]), lib.ones(2, 2)),
               lambda lib: lib.zeros(3).expand(2, 3).masked_scatter_(lib.tensor([True, False, True]), lib.ones(6)),
               lambda lib: lib.zeros(3).expand(2, 3).put_(lib.tensor([0, 1]), lib.ones(2))):
        if fn.__name__ == "run":
            check(lambda lib: fn(lib, lib.zeros(3).expand(2, 3)))
        else:
            check(fn)
    with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors is deprecated"):
        tt.zeros(3).expand(2, 3).index_put_((tt.tensor([0]),), tt.tensor([1., 2, 3]))


# ---- index_put_ / index_put -------------------------------------------------------------------------------------

INDEX_PUT = {
    "rows": lambda lib, x: x.index_put_((lib.tensor([2, 0]),), lib.tensor([1., 2, 3, 4])),
    "pairs": lambda lib, x: x.index_put_([lib.tensor([0, 2]), lib.tensor([3, 1])], lib.tensor([-1., -2])),
    "accumulate_duplicates": lambda lib, x: x.index_put_([lib.tensor([0, 0, 2]), lib.tensor([1, 1, 3])],
                                                         lib.tensor([1., 2, 3]), accumulate=True),
    "accumulate_scalar": lambda lib, x: x.index_put_((lib.tensor([0, 0]),), lib.tensor(1.), accumulate=True),
    "mask": lambda lib, x: x.index_put_((x > 4,), lib.tensor(-1.)),
    "mask_accumulate": lambda lib, x: x.index_put_((x > 4,), lib.tensor(-1.), accumulate=True),
    "mask_values": lambda lib, x: x.index_put_((lib.tensor([True, False, True]),), lib.tensor([1., 2, 3, 4])),
    "int32_index": lambda lib, x: x.index_put_((lib.tensor([1], dtype=lib.int32),), lib.tensor(5.)),
    "dtype_error": lambda lib, x: x.index_put_((lib.tensor([0]),), lib.tensor([1])),
    "none_is_refused": lambda lib, x: x.index_put_([None, lib.tensor([0, 1])], lib.tensor(1.)),
    "tensor_not_tuple": lambda lib, x: x.index_put_(lib.tensor([0, 1]), lib.tensor(1.)),
    "too_many": lambda lib, x: x.index_put_((lib.tensor([0]),) * 3, lib.tensor(1.)),
    "shape_error": lambda lib, x: x.index_put_((lib.tensor([0, 1]),), lib.ones(3)),
}


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
@pytest.mark.parametrize("case", list(INDEX_PUT))
def test_index_put_(case, layout):
    check_inplace(INDEX_PUT[case], arange(3, 4, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_put_functional_keeps_layout(layout):
    check(lambda lib, x: lib.index_put(x, (lib.tensor([0]),), lib.tensor(1.)), arange(3, 4, layout=layout))
    check(lambda lib, x: x.index_put((lib.tensor([0, 0]),), lib.tensor(1.), accumulate=True),
          arange(3, 4, layout=layout))


# ---- index_select / gather ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_select(layout):
    x = arange(3, 4, layout=layout)
    for dim, index in [(1, I([3, 0])), (0, I([2, 0, 2])), (1, I([3, 0], "int32")), (1, I(3)), (-1, I([1])),
                       (0, I([2, 0, 1], layout="permuted")), (0, I([], "int64"))]:
        check(lambda lib, x, i: lib.index_select(x, dim, i), x, index)
        check(lambda lib, x, i: x.index_select(dim, i), x, index)
    y = arange(2, 3, 4, layout=layout)
    check(lambda lib, y, i: y.index_select(2, i), y, I([3, 3, 0]))
    check(lambda lib, y, i: y.index_select(1, i), y, I([2, 0]))


@pytest.mark.parametrize("case", [
    (1, [3.0, 0.0], "float32"), (1, [[3, 0]], "int64"), (0, [0, 3], "int64"), (1, [0, 4], "int64"),
    (1, [0, -1], "int64"), (0, [-1], "int64"), (2, [0], "int64"),
])
def test_index_select_errors(case):
    dim, values, dtype = case
    check(lambda lib, x, i: lib.index_select(x, dim, i), arange(3, 4), I(values, dtype))
    check(lambda lib, y, i: lib.index_select(y, dim, i), arange(2, 3, 4), I(values, dtype))


def test_index_select_edge_shapes():
    check(lambda lib, s, i: lib.index_select(s, 0, i), P(np.array(5.0)), I([0]))
    check(lambda lib, s, i: lib.index_select(s, 0, i), P(np.array(5.0)), I(0))
    check(lambda lib, s, i: lib.index_select(s, 0, i), P(np.array(5.0)), I([0, 0]))
    check(lambda lib, s, i: lib.index_select(s, 0, i), P(np.array(5.0)), I([1]))
    check(lambda lib, z, i: lib.index_select(z, 0, i), arange(0, 3), I([0]))
    check(lambda lib, z, i: lib.index_select(z, 1, i), arange(0, 3), I([5]))
    check(lambda lib, z, i: lib.index_select(z, 1, i), arange(0, 3), I([1]))
    check(lambda lib, x, i: lib.index_select(x, 0, i, out=lib.empty(0)), arange(3, 4), I([2, 0]))
    check(lambda lib, x, i: lib.index_select(x, 0, i, out=lib.empty(4, 2).t()), arange(3, 4), I([2, 0]))
    check(lambda lib, x, i: lib.index_select(x, 0, i, out=lib.empty(0, dtype=lib.float64)), arange(3, 4), I([2]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select_and_gather_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    check(lambda lib, x, i: x.index_select(1, i), x, I([3, 1, 1]))
    check(lambda lib, x, i: x.gather(0, i), x, I([[2, 0, 1, 1], [0, 0, 2, 1]]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather(layout):
    x = arange(3, 4, layout=layout)
    for dim, index in [(1, I([[0, 3], [1, 1]])), (0, I([[2, 0, 1], [0, 0, 2]])), (1, I([[0, 3], [1, 1]], "int32")),
                       (-1, I(np.zeros((2, 9)))), (0, I(np.zeros((3, 2)), layout="permuted")),
                       (0, I(np.zeros((0, 7))))]:
        check(lambda lib, x, i: lib.gather(x, dim, i), x, index)
        check(lambda lib, x, i: x.gather(dim, i, sparse_grad=False), x, index)
    check(lambda lib, x, i: lib.gather(x, 1, i, out=lib.empty(2, 2).t()), x, I([[0, 3], [1, 1]]))


@pytest.mark.parametrize("case", [
    (1, [[0, 5], [1, 1]], "int64"), (1, [[0, -1], [1, 1]], "int64"), (1, np.zeros((4, 2)), "int64"),
    (0, np.zeros((2, 5)), "int64"), (0, np.zeros(2), "int64"), (0, [[0.0]], "float32"), (0, np.zeros((0, 2)),
                                                                                         "float32"),
    (2, [[0]], "int64"),
])
def test_gather_errors(case):
    dim, values, dtype = case
    check(lambda lib, x, i: lib.gather(x, dim, i), arange(3, 4), I(values, dtype))
    check(lambda lib, x, i: lib.gather(x, dim, i, out=lib.empty(0, dtype=lib.float64)), arange(3, 4),
          I([[0]]))


def test_gather_edge_shapes():
    check(lambda lib, s, i: lib.gather(s, 0, i), P(np.array(5.0)), I(0))
    check(lambda lib, s, i: lib.gather(s, 0, i), P(np.array(5.0)), I([0, 0]))
    check(lambda lib, s, i: lib.gather(s, 1, i), arange(3, 0), I(np.zeros((3, 2))))
    check(lambda lib, s, i: lib.gather(s, 1, i), arange(0, 3), I(np.zeros((0, 2))))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_dim(layout):
    x = arange(3, 4, layout=layout)
    check(lambda lib, x, i: lib.take_along_dim(x, i, 1), x, I([[0], [1], [2]]))
    check(lambda lib, x, i: x.take_along_dim(i, dim=0), x, I([[0]]))
    check(lambda lib, x, i: lib.take_along_dim(x, i), x, I([0, 11, 5]))     # view(-1): refused when permuted
    check(lambda lib, x, i: lib.take_along_dim(x, i, 0), x, I([0]))
    check(lambda lib, x, i: lib.take_along_dim(x, i, 0), x, I([[0]], "int32"))
    check(lambda lib, x, i: lib.take_along_dim(x, i, 0, out=lib.empty(0)), x, I([[0, 1, 2, 0]]))


# ---- scatter family -----------------------------------------------------------------------------------------------

SCATTER_INDEX = I([[0, 3], [1, 2]])
REDUCE_INDEX = I([[0, 0], [1, 2]])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scatter_functional(layout):
    x = arange(3, 4, layout=layout)
    src = arange(2, 2, layout=layout)
    check(lambda lib, x, i, s: lib.scatter(x, 1, i, s), x, SCATTER_INDEX, src)
    check(lambda lib, x, i: x.scatter(1, i, 9), x, SCATTER_INDEX)
    check(lambda lib, x, i: x.scatter(1, i, value=9.5), x, SCATTER_INDEX)
    check(lambda lib, x, i, s: x.scatter(0, i, src=s), x, SCATTER_INDEX.__class__(np.array([[2, 0], [1, 2]])), src)
    check(lambda lib, x, i, s: lib.scatter(x, 1, i, s, reduce="add"), x, REDUCE_INDEX, src)
    check(lambda lib, x, i: lib.scatter(x, 1, i, 2.0, reduce="multiply"), x, REDUCE_INDEX)
    check(lambda lib, x, i, s: lib.scatter_add(x, 1, i, s), x, REDUCE_INDEX, src)
    check(lambda lib, x, i, s: x.scatter_add(0, i, s), x, I([[0, 0], [0, 0]]), src)
    check(lambda lib, x, i: lib.scatter(x, 1, i, 1.0, out=lib.empty(0)), x, SCATTER_INDEX)
    check(lambda lib, x, i, s: lib.scatter_add(x, 1, i, s, out=lib.empty(0)), x, REDUCE_INDEX, src)
    ints = P(np.arange(6).reshape(2, 3), layout)
    check(lambda lib, x, i: x.scatter(1, i, 9.5), ints, I([[0], [1]]))            # value truncated


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin", "max", "min", "add", "foo"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_scatter_reduce(reduce, include_self, dtype):
    x = P((np.arange(12).reshape(3, 4) - 5).astype(dtype), "permuted")
    src = P((np.arange(4).reshape(2, 2) * 3 - 4).astype(dtype))
    check(lambda lib, x, i, s: lib.scatter_reduce(x, 1, i, s, reduce, include_self=include_self), x,
          REDUCE_INDEX, src)
    check(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), x,
          I([[0, 0], [0, 2]]), src)


def test_scatter_reduce_bool_and_empty():
    for reduce in ("sum", "amax", "mean"):
        check(lambda lib: lib.scatter_reduce(lib.zeros(3, dtype=lib.bool), 0, lib.tensor([0, 0]),
                                             lib.ones(2, dtype=lib.bool), reduce))
    check(lambda lib: lib.scatter_add(lib.zeros(3, dtype=lib.bool), 0, lib.tensor([0, 0]),
                                      lib.ones(2, dtype=lib.bool)))


@pytest.mark.parametrize("case", [
    lambda lib, x: x.scatter(1, lib.tensor([[0, 3], [1, 2]]), lib.ones(2, 2, dtype=lib.float64)),
    lambda lib, x: x.scatter(1, lib.tensor([[0, 3], [1, 2]]), lib.ones(1, 1)),
    lambda lib, x: x.scatter(1, lib.tensor([[0, 3], [1, 2]]), lib.tensor(1.)),
    lambda lib, x: x.scatter(1, lib.tensor([[0, 4], [1, 2]]), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([[-1]]), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([[0, 3]], dtype=lib.int32), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([[0.0]]), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([[0]], dtype=lib.int16), 1.),
    lambda lib, x: x.scatter(1, lib.zeros(0), 1.),
    lambda lib, x: x.scatter(1, lib.zeros(0, dtype=lib.int64), 1.),
    lambda lib, x: x.scatter(2, lib.tensor([[0]]), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([0, 0]), 1.),
    lambda lib, x: x.scatter(1, lib.zeros(4, 1, dtype=lib.int64), 1.),
    lambda lib, x: x.scatter(1, lib.zeros(1, 5, dtype=lib.int64), 1.),
    lambda lib, x: x.scatter(1, lib.tensor([[0]]), lib.ones(5, 5)),
    lambda lib, x: x.scatter(1, lib.tensor([[0]]), 2.0, reduce="sum"),
    lambda lib, x: x.scatter(1, lib.tensor([[0, 9]]), lib.ones(1, 2), reduce="add"),
    lambda lib, x: lib.scatter_add(x, 1, lib.tensor([[0, 0], [1, 2]]), lib.ones(1, 2)),
    lambda lib, x: lib.scatter_add(x, 1, lib.tensor([[0, 0]]), x.double()),
    lambda lib, x: lib.scatter_add(x, 1, lib.tensor([[0, 0]], dtype=lib.int32), x),
    lambda lib, x: lib.scatter(x, 1, lib.tensor([[0]]), 1.0, out=lib.empty(0, dtype=lib.float64)),
])
def test_scatter_errors_and_edges(case):
    check(case, arange(3, 4))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_scatter_inplace(layout):
    x = arange(3, 4, layout=layout)
    check_inplace(lambda lib, x, i: x.scatter_(1, i, 7.), x, SCATTER_INDEX)
    check_inplace(lambda lib, x, i, s: x.scatter_(1, i, s), x, SCATTER_INDEX, arange(2, 2, layout="permuted"))
    check_inplace(lambda lib, x, i: x.scatter_(1, i, lib.ones(2, 2) * 4, reduce="multiply"), x, REDUCE_INDEX)
    check_inplace(lambda lib, x, i: x.scatter_(1, i, 3., reduce="add"), x, REDUCE_INDEX)
    check_inplace(lambda lib, x, i: x.scatter_add_(0, i, lib.ones(2, 2) * 4), x, I([[0, 0], [0, 0]]))
    check_inplace(lambda lib, x, i: x.scatter_reduce_(0, i, lib.ones(2, 2) * 4, "mean", include_self=False), x,
                  I([[0, 0], [0, 0]]))
    check_inplace(lambda lib, x, i: x.scatter_reduce_(1, i, lib.ones(2, 2) * 4, "amax"), x, REDUCE_INDEX)
    check_inplace(lambda lib, x, i: x.scatter_(1, i, lib.ones(2, 2, dtype=lib.int64)), x, SCATTER_INDEX)
    check_inplace(lambda lib, x: x.scatter_(1, lib.tensor([[0]]), x), x)            # overlapping src


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="sliced")
    check_inplace(lambda lib, x, i, s: x.scatter_(1, i, s), x, SCATTER_INDEX, rand(2, 2, dtype=dtype, seed=4))
    check(lambda lib, x, i, s: x.scatter_add(1, i, s), x, REDUCE_INDEX, rand(2, 2, dtype=dtype, seed=4))
    check(lambda lib, x, i: x.scatter(0, i, 1), x, I([[1, 0, 2, 2]]))


# ---- index_add / index_copy / index_fill ------------------------------------------------------------------------

INDEX_ADD_ERRORS = [
    (0, [0, 0], "float32", (2, 4), "float64"), (0, [0, 0], "float32", (2, 3), "float32"),
    (0, [0, 0], "int64", (3, 4), "float32"), (0, [0, 0], "int64", (3, 3), "float32"),
    (1, [0, 0], "int64", (2,), "float32"), (0, [0, 3], "int64", (2, 4), "float32"),
    (0, [0, -1], "int64", (2, 4), "float32"), (0, [[0, 1]], "int64", (2, 4), "float32"),
]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_add(layout):
    x = arange(3, 4, layout=layout)
    check(lambda lib, x, i: x.index_add(0, i, lib.ones(2, 4), alpha=2), x, I([0, 0]))
    check(lambda lib, x, i, s: lib.index_add(x, 1, i, s), x, I([3, 0, 3], "int32"), arange(3, 3, layout=layout))
    check(lambda lib, x, i: x.index_add(1, i, lib.ones(3, 2), alpha=1.5), x, I([0, 1]))
    check(lambda lib, x, i: lib.index_add(x, 0, i, lib.ones(2, 4), out=lib.empty(0)), x, I([2, 2]))
    check(lambda lib, x, i: x.index_add(0, i, lib.ones(2, dtype=lib.int64), alpha=1.5), P(np.arange(4), layout),
          I([0, 1]))


@pytest.mark.parametrize("case", INDEX_ADD_ERRORS)
def test_index_add_errors(case):
    dim, index, index_dtype, source_shape, source_dtype = case
    check(lambda lib, x, i: x.index_add(dim, i, lib.ones(*source_shape, dtype=getattr(lib, source_dtype))),
          arange(3, 4), I(index, index_dtype))
    check(lambda lib, x, i: lib.index_add(x, 0, i, lib.ones(2, 4), out=lib.empty(0, dtype=lib.float64)),
          arange(3, 4), I([0, 1]))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_index_add_copy_fill_inplace(layout):
    x = arange(3, 4, layout=layout)
    check_inplace(lambda lib, x, i: x.index_add_(0, i, lib.ones(3, 4), alpha=-2), x, I([2, 0, 2]))
    check_inplace(lambda lib, x, i, s: x.index_add_(1, i, s), x, I([3, 0, 3]), arange(3, 3, layout="permuted"))
    check_inplace(lambda lib, x, i: x.index_copy_(0, i, lib.arange(8.).reshape(2, 4)), x, I([2, 0]))
    check_inplace(lambda lib, x, i, s: x.index_copy_(1, i, s), x, I([3, 1]), arange(3, 2, layout="permuted"))
    check_inplace(lambda lib, x, i: x.index_fill_(1, i, 5.), x, I([1, -1]))
    check_inplace(lambda lib, x, i: x.index_fill_(0, i, lib.tensor(-2.)), x, I(1))
    check_inplace(lambda lib, x, i: x.index_fill_(1, i, 5.), x, I([4]))            # error: unchanged
    check_inplace(lambda lib, x, i: x.index_copy_(1, i, lib.ones(3, 2)), x, I([4, 0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_add_copy_fill_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    src = rand(3, 2, dtype=dtype, seed=6)
    check(lambda lib, x, i, s: x.index_add(1, i, s), x, I([3, 3]), src)
    check(lambda lib, x, i, s: x.index_copy(1, i, s), x, I([3, 0]), src)
    check(lambda lib, x, i: x.index_fill(0, i, 1), x, I([2, 0]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_copy_and_fill(layout):
    x = arange(3, 4, layout=layout)
    for fn, index in [
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 2)), I([0, 3])),
        (lambda lib, x, i: lib.index_copy(x, 1, i, lib.ones(3, 2)), I([0, 3], "int32")),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 2)), I([0, 4])),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 2)), I([0, -1])),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 2, dtype=lib.float64)), I([0, 3])),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 3)), I([0, 3])),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(2, 2)), I([0, 3])),
        (lambda lib, x, i: x.index_copy(1, i, lib.ones(3, 1)), I([[0]])),
        (lambda lib, x, i: x.index_copy(0, i, lib.tensor(2.)), I([0, 1])),
        (lambda lib, x, i: x.index_copy(0, i, lib.ones(2)), I([0, 1])),
        (lambda lib, x, i: x.index_fill(1, i, -1), I([0, 3])),
        (lambda lib, x, i: lib.index_fill(x, 1, i, -1), I([0, -1])),
        (lambda lib, x, i: x.index_fill(1, i, -1), I([0, 4])),
        (lambda lib, x, i: x.index_fill(1, i, -1), I([0, 3], "int32")),
        (lambda lib, x, i: x.index_fill(1, i, lib.tensor(-1.)), I([0, 3])),
        (lambda lib, x, i: x.index_fill(1, i, lib.tensor([-1.])), I([0, 3])),
        (lambda lib, x, i: x.index_fill(1, i, -1), I([[0, 2]])),
        (lambda lib, x, i: x.index_fill(0, i, 2.7), I(1)),
    ]:
        check(fn, x, index)
    check(lambda lib, x, i: x.index_copy(0, i, lib.tensor(2.)), P(np.array(1.0)), I([0]))
    check(lambda lib, x, i: x.index_fill(0, i, 2.), P(np.array(1.0)), I([0]))
    check(lambda lib, x, i: x.index_add(0, i, lib.tensor(2.)), P(np.array(1.0)), I([0]))
    check(lambda lib, x, i: x.index_fill(0, i, 2.7), P(np.arange(3), layout), I([0]))


# ---- masks ----------------------------------------------------------------------------------------------------------

MASK = B([True, False, True, True])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill(layout):
    x = arange(3, 4, layout=layout)
    check(lambda lib, x, m: x.masked_fill(m, -1), x, MASK)
    check(lambda lib, x, m: lib.masked_fill(x, m, lib.tensor(5.)), x, MASK)
    check(lambda lib, x, m: x.masked_fill(m, lib.tensor(5., dtype=lib.float64)), x, MASK)
    check(lambda lib, x, m: x.masked_fill(m, -1), x, P(np.random.default_rng(1).random((3, 4)) > .5, layout))
    check(lambda lib, x, m: x[0].masked_fill(m, 0), x, B(np.ones((3, 4))))         # the mask broadcasts self
    check(lambda lib, x, m: x.masked_fill(m, 0), x, B([True, False, True]))         # no broadcast: error
    check(lambda lib, x, m: x.masked_fill(m, lib.tensor([5.])), x, MASK)
    check(lambda lib, x, m: x.masked_fill(m, 2.5), P(np.arange(4), layout), MASK)
    check(lambda lib, x, m: x.masked_fill(m, lib.tensor(2.5)), P(np.arange(4), layout), MASK)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "int64", "float16", "int8", "int16", "int32", "float64"])
def test_masked_fill_refuses_non_bool_masks(dtype):
    check(lambda lib, x, m: x.masked_fill(m, 0), arange(3, 4), P(np.ones(4, dtype)))
    check(lambda lib, x, m: x.masked_fill(m, lib.tensor([5.])), arange(3, 4), P(np.ones(4, dtype)))


@pytest.mark.parametrize("case", [
    ("int8", 128), ("int8", -129), ("int8", -128), ("uint8", -256), ("uint8", -255), ("uint8", 256),
    ("int16", 40000), ("int32", 2 ** 31), ("float32", 1e39), ("float32", float("inf")), ("float16", 65504.0),
    ("float16", 65520.0), ("bool", 2.5), ("int32", 1e10), ("uint8", -1.5), ("uint8", 255.9), ("float16", 2 ** 20),
    ("int64", 1e30), ("int64", float("nan")), ("float32", float("nan")),
])
def test_scalar_overflow_is_refused_like_torch(case):
    dtype, value = case
    check(lambda lib, x, m: x.masked_fill(m, value), P(np.zeros(4, dtype)), MASK)
    check(lambda lib, x, i: x.index_fill(0, i, value), P(np.zeros(4, dtype)), I([1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_ops_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted")
    m = P(np.random.default_rng(2).random((3, 4)) > .5, "sliced")
    check(lambda lib, x, m: x.masked_fill(m, 1), x, m)
    check(lambda lib, x, m: x.masked_select(m), x, m)
    check(lambda lib, x, m, s: x.masked_scatter(m, s), x, m, rand(12, dtype=dtype, seed=8))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_select_follows_logical_order(layout):
    # pytorch#99638: a kernel that walks memory order instead of logical order scrambles a permuted input
    x = arange(3, 4, layout=layout)
    check(lambda lib, x, m: x.masked_select(m), x, MASK)
    check(lambda lib, x, m: lib.masked_select(x, m), x, P(np.random.default_rng(3).random((3, 4)) > .4, "permuted"))
    check(lambda lib, x, m: x[0].masked_select(m), x, B(np.ones((2, 4))))
    check(lambda lib, x, m: x.masked_select(m), x, P(np.ones(4, np.uint8)))
    check(lambda lib, x, m: x.masked_select(m), x, B([True, False, True]))
    check(lambda lib, x, m: lib.masked_select(x, m, out=lib.empty(0)), x, MASK)
    check(lambda lib, x, m: lib.masked_select(x, m, out=lib.empty(0, dtype=lib.float64)), x, MASK)
    check(lambda lib, s, m: s.masked_select(m), P(np.array(2.0)), B(True))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_scatter(layout):
    x = arange(3, 4, layout=layout)
    src = arange(4, 5, layout="permuted")          # consumed in its logical order
    check(lambda lib, x, m, s: x.masked_scatter(m, s), x, MASK, src)
    check(lambda lib, x, m, s: lib.masked_scatter(x, m, s), x, B(np.eye(3, 4)), src)
    check(lambda lib, x, m: x.masked_scatter(m, lib.arange(100., 102.)), x, MASK)       # too few
    check(lambda lib, x, m: x.masked_scatter(m, lib.arange(100, 120)), x, MASK)          # dtype
    check(lambda lib, x, m: x.masked_scatter(m, lib.arange(100., 120.)), x, P(np.ones(4, np.uint8)))
    check(lambda lib, x, m: x[0].masked_scatter(m, lib.arange(100., 120.)), x, B(np.ones((2, 4))))
    check(lambda lib, x, m: x[0].clone().masked_scatter_(m, lib.arange(100., 120.)), x, B(np.ones((2, 4))))
    check(lambda lib, x, m: x.clone().masked_scatter_(m, lib.arange(100., 120.)), x, B([True, False, True]))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_masked_inplace(layout):
    x = arange(3, 4, layout=layout)
    mask = P(np.random.default_rng(4).random((3, 4)) > .5, "permuted")
    check_inplace(lambda lib, x, m: x.masked_fill_(m, 3.), x, MASK)
    check_inplace(lambda lib, x, m: x.masked_fill_(m, lib.tensor(3.)), x, mask)
    check_inplace(lambda lib, x, m: x.masked_fill_(m, lib.tensor([3.])), x, mask)
    check_inplace(lambda lib, x, m: x.masked_fill_(m, 1), x, B(np.ones((2, 3, 4))))
    check_inplace(lambda lib, x, m, s: x.masked_scatter_(m, s), x, mask, arange(4, 5, layout="permuted"))
    check_inplace(lambda lib, x, m: x.masked_scatter_(m, lib.ones(12, dtype=lib.int64)), x, mask)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nonzero_and_argwhere(layout):
    x = P(np.array([[0, 1.5, 0, 2], [3, 0, 0, -1], [0, 0, 0, 7]], np.float32), layout)
    check(lambda lib, x: x.nonzero(), x)
    check(lambda lib, x: lib.nonzero(x), x)
    check(lambda lib, x: x.nonzero(as_tuple=True), x)
    check(lambda lib, x: lib.nonzero(x, as_tuple=True), x)
    check(lambda lib, x: lib.argwhere(x), x)
    check(lambda lib, x: x.argwhere(), x)
    check(lambda lib, x: lib.nonzero(x, out=lib.empty(0, dtype=lib.int64)), x)
    check(lambda lib, x: lib.nonzero(x, out=lib.empty(6, 2, dtype=lib.int64)), x)
    check(lambda lib, x: lib.nonzero(x, out=lib.empty(5, 5, dtype=lib.int64)), x)
    check(lambda lib, x: lib.nonzero(x, out=lib.empty(0)), x)
    check(lambda lib, x: (x * 0).nonzero(), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero_dtypes_and_edges(dtype):
    check(lambda lib, x: x.nonzero(), rand(3, 4, dtype=dtype, layout="permuted", low=-1, high=1))
    for values in (np.array(3), np.array(0), np.zeros((0, 3)), np.zeros(5)):
        check(lambda lib, x: x.nonzero(), P(values.astype(dtype)))
        check(lambda lib, x: x.nonzero(as_tuple=True), P(values.astype(dtype)))
    check(lambda lib, x: x.nonzero(), P(np.array([np.nan, 0.0])))


# ---- take / put --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take(layout):
    x = arange(3, 4, layout=layout)
    for index in (I([[0, 1], [2, 11]]), I([-12, 5]), I([[0, 1], [2, 11]], layout="permuted"), I([], "int64"),
                  I([12]), I([-13]), I([1], "int32")):
        check(lambda lib, x, i: lib.take(x, i), x, index)
        check(lambda lib, x, i: x.take(i), x, index)
    check(lambda lib, x, i: lib.take(x, i, out=lib.empty(0)), x, I([0, 5]))
    check(lambda lib, x, i: lib.take(x, i, out=lib.empty(0, dtype=lib.float64)), x, I([0, 5]))
    check(lambda lib, x, i: lib.take(x, i), arange(0), I([0]))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_put_(layout):
    x = arange(3, 4, layout=layout)
    check_inplace(lambda lib, x, i: x.put_(i, lib.tensor([-1., -2.])), x, I([0, 11]))
    check_inplace(lambda lib, x, i: x.put_(i, lib.ones(2)), x, I([0, -1]))
    check_inplace(lambda lib, x, i: x.put_(i, lib.ones(3), accumulate=True), x, I([0, 0, 5]))
    check_inplace(lambda lib, x, i: x.put_(i, lib.ones(2, 1)), x, I([[3, 1]], layout="permuted"))
    for index, source in [(I([0, 0]), "ones3"), (I([0, 0]), "f64"), (I([0, 0], "int32"), "ones2")]:
        src = {"ones3": lambda lib: lib.ones(3), "f64": lambda lib: lib.ones(2, dtype=lib.float64),
               "ones2": lambda lib: lib.ones(2)}[source]
        check_inplace(lambda lib, x, i: x.put_(i, src(lib)), x, index)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_put_functional(layout):
    check(lambda lib, x, i: lib.put(x, i, lib.ones(2)), arange(3, 4, layout=layout), I([0, 1]))
    check(lambda lib, x, i: x.put(i, lib.ones(2), accumulate=True), arange(3, 4, layout=layout), I([3, 3]))


def test_meta_device_shapes():
    x = tt.empty(3, 4, device="meta")
    i = tt.empty(2, dtype=tt.int64, device="meta")
    assert x[i].shape == (2, 4) and x[:, i].stride() == (2, 1)
    assert tt.index_select(x, 1, i).shape == (3, 2)
    assert tt.gather(x, 1, tt.empty(3, 2, dtype=tt.int64, device="meta")).shape == (3, 2)
    assert x.index_add(0, i, tt.empty(2, 4, device="meta")).shape == (3, 4)
    assert x.masked_fill(tt.empty(4, dtype=tt.bool, device="meta"), 1.0).device.type == "meta"


def test_dispatch_trace_shows_slicing_then_index():
    with tt.dispatch.trace() as t:
        tt.arange(12.).reshape(3, 4)[1:, [0, 2]]
    names = [str(line) for line in str(t).splitlines()]
    assert any("aten.slice.Tensor" in n for n in names) and any("aten.index.Tensor" in n for n in names)


# ---- hypothesis: random shapes, layouts and valid indices ----------------------------------------------------------


@st.composite
def index_specs(draw, shape):
    """A random index for a tensor of `shape`: ints, slices, None, `...`, lists, index tensors (int64 or
    int32, any layout) and bool masks, in a random order. Returned as a recipe, built per library."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    bshape = draw(st.sampled_from([(), (2,), (3,), (2, 1), (1, 3), (2, 3)]))
    spec, dim = [], 0
    ellipsis = draw(st.booleans())
    while dim < len(shape):
        if ellipsis and draw(st.integers(0, 3)) == 0:
            spec.append(("ellipsis",))
            ellipsis = False
            break
        size = shape[dim]
        kinds = ["slice", "none", "all"] + (["int", "list", "tensor", "mask"] if size else ["mask"])
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            spec.append(("int", int(rng.integers(-size, size))))
        elif kind == "slice":
            spec.append(("slice", draw(st.none() | st.integers(-4, 4)), draw(st.none() | st.integers(-4, 4)),
                         draw(st.none() | st.integers(1, 3))))
        elif kind == "none":
            spec.append(("none",))
            continue
        elif kind == "all":
            spec.append(("slice", None, None, None))
        elif kind in ("list", "tensor"):
            values = rng.integers(-size, size, size=bshape)
            layout = draw(st.sampled_from(["contiguous", "permuted", "expanded"])) if kind == "tensor" else None
            dtype = draw(st.sampled_from(["int64", "int32"]))
            spec.append((kind, values, dtype, layout))
        else:
            span = draw(st.integers(1, min(2, len(shape) - dim)))
            spec.append(("mask", rng.random(shape[dim:dim + span]) > 0.5))
            dim += span
            continue
        dim += 1
    if draw(st.integers(0, 4)) == 0:
        spec.insert(draw(st.integers(0, len(spec))), ("bool", draw(st.booleans())))
    return spec


def build_index(spec, lib):
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            out.append(item[1])
        elif kind == "slice":
            out.append(slice(*item[1:]))
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "bool":
            out.append(item[1])
        elif kind == "list":
            out.append(item[1].tolist())
        elif kind == "tensor":
            _, values, dtype, layout = item
            out.append(P(values.astype(dtype), layout).build(lib))
        else:
            out.append(lib.tensor(item[1]))
    return tuple(out)


@given(inputs(), st.data())
def test_fuzz_getitem(p, data):
    spec = data.draw(index_specs(p.values.shape))
    check(lambda lib, x: x[build_index(spec, lib)], p)


@given(inputs(allow_expanded=False), st.data())
def test_fuzz_setitem(p, data):
    spec = data.draw(index_specs(p.values.shape))
    # a scalar always works (duplicate indices then write the same value); so does accumulate=True
    check_inplace(returning(lambda lib, x: x.__setitem__(build_index(spec, lib), -1.5)), p)
    try:
        shape = torch.empty(p.values.shape)[build_index(spec, torch)].shape
    except (IndexError, RuntimeError):
        return
    values = P(np.random.default_rng(0).random(shape).astype(np.float32))
    check_inplace(returning(lambda lib, x, v: x.__setitem__(build_index(spec, lib), v)), p, values)


@given(inputs(shape=None, dtype="float32"), st.data())
def test_fuzz_index_put_accumulate(p, data):
    shape = p.values.shape
    if not shape or 0 in shape:
        return
    k = data.draw(st.integers(1, len(shape)))
    n = data.draw(st.integers(0, 6))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    indices = [I(rng.integers(-s, s, size=n)) for s in shape[:k]]
    value_shape = (n,) + shape[k:]
    layout = data.draw(st.sampled_from(INPLACE_LAYOUTS))
    check_inplace(lambda lib, x, v, *idx: x.index_put_(idx, v, accumulate=True), P(p.values, layout),
                  P(rng.random(value_shape).astype(np.float32)), *indices)


@st.composite
def along_dim(draw, allow_expanded=True):
    """(input, dim, index): an index tensor no larger than the input, distinct values along `dim`."""
    p = draw(inputs(shape=draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)),
                    allow_expanded=allow_expanded))
    shape = p.values.shape
    dim = draw(st.integers(0, len(shape) - 1))
    index_shape = tuple(draw(st.integers(0, s)) for s in shape)
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    # distinct along dim: argsort of random numbers, cut to the index shape
    full = np.argsort(rng.random(shape), axis=dim)
    index = full[tuple(slice(0, n) for n in index_shape)]
    return p, dim, P(index.astype(np.int64), draw(st.sampled_from(["contiguous", "permuted"])))


@given(along_dim(), st.data())
def test_fuzz_gather_scatter(args, data):
    p, dim, index = args
    src = P(np.random.default_rng(5).random(p.values.shape).astype(np.float32), data.draw(st.sampled_from(LAYOUTS)))
    check(lambda lib, x, i: lib.gather(x, dim, i), p, index)
    check(lambda lib, x, i, s: lib.scatter(x, dim, i, s), p, index, src)
    check(lambda lib, x, i, s: lib.scatter_add(x, dim, i, s), p, index, src)
    reduce = data.draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"]))
    include_self = data.draw(st.booleans())
    check(lambda lib, x, i, s: lib.scatter_reduce(x, dim, i, s, reduce, include_self=include_self), p, index, src)


@given(along_dim(allow_expanded=False))
def test_fuzz_scatter_inplace(args):
    p, dim, index = args
    layout = p.layout
    check_inplace(lambda lib, x, i: x.scatter_(dim, i, 2.5), P(p.values, layout), index)
    check_inplace(lambda lib, x, i, s: x.scatter_add_(dim, i, s), P(p.values, layout), index,
                  P(np.ones(p.values.shape, np.float32)))


@given(inputs(shape=None), st.data())
def test_fuzz_index_select_add_copy_fill(p, data):
    shape = p.values.shape
    if not shape:
        return
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[dim]
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    n = data.draw(st.integers(0, 4))
    picks = I(rng.integers(0, size, size=n) if size else np.zeros(0, np.int64))
    distinct = I(rng.permutation(size)[:n] if size else np.zeros(0, np.int64))
    source_shape = list(shape)
    source_shape[dim] = len(distinct.values)
    source = P(rng.random(source_shape).astype(np.float32), data.draw(st.sampled_from(LAYOUTS)))
    check(lambda lib, x, i: lib.index_select(x, dim, i), p, picks)
    check(lambda lib, x, i, s: x.index_copy(dim, i, s), p, distinct, source)
    check(lambda lib, x, i: x.index_fill(dim, i, -2.0), p, picks)
    source_shape[dim] = n
    source2 = P(rng.random(source_shape).astype(np.float32))
    check(lambda lib, x, i, s: x.index_add(dim, i, s, alpha=2.0), p, picks, source2)
    if p.layout != "expanded":
        check_inplace(lambda lib, x, i, s: x.index_add_(dim, i, s), P(p.values, p.layout), picks, source2)
        check_inplace(lambda lib, x, i: x.index_fill_(dim, i, 3.0), P(p.values, p.layout), picks)


@given(inputs(shape=None), st.data())
def test_fuzz_masks(p, data):
    shape = p.values.shape
    mask_shape = shape[data.draw(st.integers(0, len(shape))):]
    mask = P(np.random.default_rng(data.draw(st.integers(0, 1000))).random(mask_shape) > 0.5,
             data.draw(st.sampled_from(LAYOUTS)))
    source = P(np.arange(max(p.values.size, 1)).astype(np.float32), "offset")
    check(lambda lib, x, m: x.masked_fill(m, -7.0), p, mask)
    check(lambda lib, x, m: x.masked_select(m), p, mask)
    check(lambda lib, x, m, s: x.masked_scatter(m, s), p, mask, source)
    check(lambda lib, x: x.nonzero(), p)
    check(lambda lib, x: x[x > 0], p)
    if p.layout != "expanded":
        check_inplace(lambda lib, x, m: x.masked_fill_(m, 2.0), P(p.values, p.layout), mask)
        check_inplace(lambda lib, x, m, s: x.masked_scatter_(m, s), P(p.values, p.layout), mask, source)


@given(inputs(shape=None), st.data())
def test_fuzz_take_put(p, data):
    n = p.values.size
    if n == 0:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    k = data.draw(st.integers(0, n))
    picks = I(rng.integers(-n, n, size=(k,)))
    distinct = I(rng.permutation(n)[:k])
    check(lambda lib, x, i: lib.take(x, i), p, picks)
    if p.layout != "expanded":
        check_inplace(lambda lib, x, i: x.put_(i, lib.arange(float(k))), P(p.values, p.layout), distinct)
        check_inplace(lambda lib, x, i: x.put_(i, lib.ones(k), accumulate=True), P(p.values, p.layout), picks)
