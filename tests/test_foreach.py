"""The `_foreach_*` ops against PyTorch's: values, dtypes, strides, in-place writes into every layout, the
checks on the lists and their error messages, the version counters, one dispatch per call; and lerp's
one-formula path for a number weight (what `_foreach_lerp_.Scalar` and Adam's `exp_avg.lerp_` run)."""

import numpy as np
import pytest
import torch

import teachtorch as tt
from parity import P, assert_same, check
from teachtorch.kernels import pointwise_math

pytestmark = pytest.mark.device_generic

LIST_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")
SHAPES = ((3, 4), (5,), (2, 3, 2), (4, 3))
# Lists whose tensors at each position share sizes and strides, all dense: PyTorch's fast route
# (kernels/foreach.py `can_use_fast_route`); the layouts above (a sliced tensor, other lists in other layouts)
# take the slow path. Both must give the per-tensor op's numbers.
DENSE_LAYOUTS = ("contiguous", "permuted", "offset", "permuted")
ROUTES = {"slow": (LIST_LAYOUTS, ("sliced", "contiguous", "offset", "permuted")),
          "fast": (DENSE_LAYOUTS, DENSE_LAYOUTS)}


def plist(seed=0, dtype="float32", layouts=LIST_LAYOUTS, low=-3, high=3, shapes=SHAPES):
    """A list of inputs of several shapes, each in its own layout (a permuted one permuted by its position,
    so that lists built alike have the same strides)."""
    rng = np.random.default_rng(seed)
    return [P(rng.uniform(low, high, shape).astype(dtype), layout, seed=i)
            for i, (shape, layout) in enumerate(zip(shapes, layouts))]


def inplace(name, *args, **kwargs):
    """Run the in-place op and return its targets (and check it returns them)."""
    def fn(lib, xs, *rest):
        out = getattr(lib, name)(xs, *rest, **kwargs)
        assert [t is x for t, x in zip(out, xs)] == [True] * len(xs)
        return xs
    return fn


def functional(name, *args, **kwargs):
    return lambda lib, *a: getattr(lib, name)(*a, **kwargs)


# ---- add, sub, mul, div: .List, .Scalar, .ScalarList, .Tensor ------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_binary_list(name, dtype, route):
    layouts, other_layouts = ROUTES[route]
    xs, ys = plist(0, dtype, layouts), plist(1, dtype, other_layouts, low=0.5)
    kwargs = {"alpha": 2} if name in ("add", "sub") else {}
    check(functional(f"_foreach_{name}", **kwargs), xs, ys)
    check(inplace(f"_foreach_{name}_", **kwargs), xs, ys)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_binary_scalar_and_scalar_list(name, route):
    xs = plist(2, layouts=ROUTES[route][0])
    check(lambda lib, xs: getattr(lib, f"_foreach_{name}")(xs, 0.3), xs)
    check(lambda lib, xs: getattr(lib, f"_foreach_{name}_")(xs, 3), xs)
    check(lambda lib, xs: getattr(lib, f"_foreach_{name}")(xs, [0.5, -2.0, 3, 1e-3]), xs)
    check(lambda lib, xs: (getattr(lib, f"_foreach_{name}_")(xs, [0.5, -2.0, 3, 1e-3]), xs)[1], xs)


@pytest.mark.parametrize("name", ["add", "mul", "div"])
def test_binary_tensor(name):
    xs = plist(3)
    kwargs = {"alpha": -0.5} if name == "add" else {}
    for other in (P(np.float32(1.5)), P(np.array([2.0, -1.0, 0.5, 3.0], "float32"), "sliced")):
        check(lambda lib, xs, o: getattr(lib, f"_foreach_{name}")(xs, o, **kwargs), xs[:1] + [xs[3]], other)
        check(lambda lib, xs, o: (getattr(lib, f"_foreach_{name}_")(xs, o, **kwargs), xs)[1], [xs[0], xs[3]], other)


def test_type_promotion_and_in_place_casts_like_torch():
    ints = [P(np.arange(6).reshape(2, 3)), P(np.arange(4), "sliced")]
    check(lambda lib, xs: lib._foreach_mul(xs, 0.5), ints)                       # int * float -> float
    check(lambda lib, xs: lib._foreach_mul_(xs, 0.5), ints)                      # the error: can't cast to Long
    mixed = [P(np.ones((2, 2), "float32")), P(np.ones(3, "float64"), "offset")]
    other = [P(np.ones((2, 2), "float64")), P(np.ones(3, "float32"))]
    check(lambda lib, xs, ys: lib._foreach_add(xs, ys), mixed, other)


# ---- addcmul, addcdiv, lerp, maximum, the unary ops -------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, -0.25, [0.5, -1.0, 2.0, 0.1], "tensor"])
def test_pointwise_ternary(name, value, route):
    layouts, other_layouts = ROUTES[route]
    xs, t1, t2 = plist(4, layouts=layouts), plist(5, layouts=other_layouts), plist(6, layouts=layouts, low=0.5)

    def run(lib, suffix):
        def fn(lib, xs, t1, t2):
            v = lib.tensor([0.5, -1.0, 2.0, 0.1], device="cpu") if value == "tensor" else value
            out = getattr(lib, f"_foreach_{name}{suffix}")(xs, t1, t2, v)
            return xs if suffix else out
        return fn
    check(run(None, ""), xs, t1, t2)
    check(run(None, "_"), xs, t1, t2)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0, 0.1, 0.9, -0.3, 1.5, [0.0, 0.5, 1.0, 0.25], "tensors"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_lerp(weight, dtype, route):
    layouts, other_layouts = ROUTES[route]
    xs, ends = plist(7, dtype, layouts), plist(8, dtype, other_layouts)
    weights = plist(9, dtype, layouts, low=-0.5, high=1.5) if weight == "tensors" else None
    args = (xs, ends) + ((weights,) if weights else ())
    w = (lambda lib, rest: rest[0]) if weights else (lambda lib, rest: weight)
    check(lambda lib, xs, ends, *rest: lib._foreach_lerp(xs, ends, w(lib, rest)), *args)
    check(lambda lib, xs, ends, *rest: (lib._foreach_lerp_(xs, ends, w(lib, rest)), xs)[1], *args)


@pytest.mark.parametrize("route", ROUTES)
def test_maximum_sqrt_neg_and_friends(route):
    layouts, other_layouts = ROUTES[route]
    xs, ys = plist(10, layouts=layouts), plist(11, layouts=other_layouts)
    check(lambda lib, xs, ys: lib._foreach_maximum(xs, ys), xs, ys)
    check(lambda lib, xs, ys: (lib._foreach_maximum_(xs, ys), xs)[1], xs, ys)
    positive = plist(12, layouts=layouts, low=0.1, high=4)
    for name in ("sqrt", "neg", "reciprocal", "abs", "sign", "exp"):
        check(lambda lib, xs: getattr(lib, f"_foreach_{name}")(xs), positive)
        check(lambda lib, xs: (getattr(lib, f"_foreach_{name}_")(xs), xs)[1], xs)



@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_pow(dtype, route):
    """`.List`, `.Scalar`, `.ScalarList` and their in-place twins (the per-tensor in-place ops are named
    pow_.Tensor and pow_.Scalar), and `.ScalarAndTensor`: a number to the power of each tensor."""
    layouts, other_layouts = ROUTES[route]
    xs, exponents = plist(29, dtype, layouts, low=0.1, high=3), plist(30, dtype, other_layouts, low=-2, high=2)
    check(lambda lib, xs, es: lib._foreach_pow(xs, es), xs, exponents)
    check(lambda lib, xs, es: (lib._foreach_pow_(xs, es), xs)[1], xs, exponents)
    for exponent in (2, 0.5, -1.5, [2, 0.5, -1.0, 3]):
        check(lambda lib, xs: lib._foreach_pow(xs, exponent), xs)
        check(lambda lib, xs: (lib._foreach_pow_(xs, exponent), xs)[1], xs)
    for base in (0.9, 2, -0.5):                  # capturable Adam's `_foreach_pow(beta1, state_steps)`
        check(lambda lib, es: lib._foreach_pow(base, es), exponents)
    check(lambda lib, xs, es: lib._foreach_pow(xs, es), xs[:3], exponents)       # the lengths differ
    check(lambda lib: lib._foreach_pow(2.0, []))
    xs, ys = plist(13), plist(14, layouts=("offset", "contiguous", "permuted", "sliced"))
    check(lambda lib, xs: (lib._foreach_zero_(xs), xs)[1], xs)
    check(lambda lib, xs, ys: (lib._foreach_copy_(xs, ys), xs)[1], xs, ys)
    for ord in (2, 1, float("inf"), 3.5):
        check(lambda lib, xs: lib._foreach_norm(xs, ord), xs, rtol=1e-5)
    check(lambda lib, xs: lib._foreach_norm(xs, 2, dtype=lib.float64), xs)


def test_expanded_inputs_are_read_and_expanded_targets_refused():
    xs, ys = plist(15), [P(np.ones(s, "float32"), "expanded") for s in SHAPES]
    check(lambda lib, xs, ys: (lib._foreach_add_(xs, ys, alpha=3), xs)[1], xs, ys)
    check(lambda lib, ys, xs: lib._foreach_add_(ys, xs), ys, xs)        # writing into an expanded tensor


def test_which_lists_take_the_fast_route():
    from teachtorch.kernels.foreach import can_use_fast_route

    def route(*lists, numbers=()):
        built = [[p.build(tt) for p in ps] for ps in lists]
        return can_use_fast_route(list(zip(*built, *[[x] * len(built[0]) for x in numbers])), len(lists) + len(numbers))
    dense, other = plist(22, layouts=DENSE_LAYOUTS), plist(23, layouts=DENSE_LAYOUTS)
    assert route(dense, other) and route(dense, numbers=(0.5,)) and route(dense, other, dense)
    assert not route(plist(24), plist(25))                                        # a sliced tensor
    assert not route(dense, plist(26, layouts=("permuted", "contiguous", "offset", "contiguous")))   # strides
    assert not route(dense, plist(27, "float64", DENSE_LAYOUTS))                  # dtypes
    assert not route(plist(28, "int64", DENSE_LAYOUTS))                           # integers
    assert not route(dense, numbers=(1j,))                                        # a complex number


# ---- the checks on the lists ---------------------------------------------------------------------------------


def test_list_length_errors_like_torch():
    xs3, xs2 = plist(16)[:3], plist(17)[:2]
    check(lambda lib, a, b: lib._foreach_add(a, b), xs3, xs2)
    check(lambda lib, a, b: lib._foreach_mul_(a, b), xs2, xs3)
    check(lambda lib, a, b, c: lib._foreach_addcmul_(a, b, c), xs3, xs3, xs2)
    check(lambda lib, a, b, c: lib._foreach_addcdiv(a, b, c, [1.0, 2.0]), xs3, xs3, xs3)
    check(lambda lib, a, b: lib._foreach_lerp_(a, b, 0.5), xs3, xs2)
    check(lambda lib, a: lib._foreach_add(a, [1.0, 2.0]), xs3)
    check(lambda lib: lib._foreach_add([], []))
    check(lambda lib: lib._foreach_mul_([], 2.0))
    check(lambda lib, a, b: lib._foreach_add(a, b), plist(18)[:2], [P(np.ones(5, "float32")), P(np.ones(5, "float32"))])


def test_packed_scalars_errors_like_torch():
    xs = plist(19)[:2]
    check(lambda lib, a: lib._foreach_addcmul_(a, a, a, lib.tensor([1.0, 2.0, 3.0], device="cpu")), xs)
    check(lambda lib, a: lib._foreach_addcdiv_(a, a, a, lib.tensor([[1.0, 2.0]], device="cpu")), xs)


def test_in_place_bumps_each_version_once_and_refuses_leaves_that_require_grad():
    xs = [tt.ones(2), tt.ones(3)[::2]]
    tt._foreach_addcmul_(xs, xs, xs, 0.5)
    assert [x._version for x in xs] == [1, 1]
    leaf = P(np.ones(3, "float32"), requires_grad=True)
    check(lambda lib, a: lib._foreach_add_([a], 1.0), leaf)
    with tt.no_grad():
        a = tt.ones(3, requires_grad=True)
        tt._foreach_add_([a], 1.0)              # optimizers write their leaves under no_grad
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_recorded_with_grad_but_backward_not_implemented():
    x = tt.ones(3, requires_grad=True)
    y = tt._foreach_mul([x], [x])[0]
    assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::_foreach_mul.List is not implemented"):
        y.sum().backward()


def test_meta_tensors_give_shapes_and_dtypes():
    xs = [tt.ones(2, 3, device="meta"), tt.ones(4, device="meta", dtype=tt.float64)]
    out = tt._foreach_add(xs, xs, alpha=2)
    assert [(o.device.type, tuple(o.shape), o.dtype) for o in out] == [("meta", (2, 3), tt.float32),
                                                                     ("meta", (4,), tt.float64)]
    tt._foreach_lerp_(xs, xs, 0.5)


def test_one_dispatch_for_the_whole_list():
    xs = [tt.ones(2, 2) for _ in range(5)]
    with tt.dispatch.trace() as t:
        tt._foreach_addcdiv_(xs, xs, xs, [0.1] * 5)
    assert [e.aten_name for e in t.events if e.depth == 0] == ["aten._foreach_addcdiv_.ScalarList"]


# ---- lerp with a number weight: one formula for the whole tensor (Lerp.h) ---------------------------------------


def _where_lerp(xp, start, end, weight):
    """The two-formula version the number-weight path replaced: both formulas everywhere, np.where picks."""
    return xp.where(xp.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0, 0.25, 0.4999, 0.75, -0.5, 2.0])
def test_lerp_number_weight_fast_path(dtype, weight):
    rng = np.random.default_rng(20)
    start, end = (P(rng.standard_normal((4, 5)).astype(dtype), layout) for layout in ("permuted", "sliced"))
    check(lambda lib, s, e: lib.lerp(s, e, weight), start, end)
    check(lambda lib, s, e: s.lerp_(e, weight), start, end)
    # the same bits as computing both formulas and picking per element
    compute = np.float32 if dtype == "float16" else np.dtype(dtype).type
    s, e = start.values.astype(compute), end.values.astype(compute)
    fast = pointwise_math.lerp(np, s, e, compute(weight))
    np.testing.assert_array_equal(fast, _where_lerp(np, s, e, compute(weight)))
    if weight == 0.0:
        np.testing.assert_array_equal(fast, s)          # weight 0 is exactly start, weight 1 exactly end
    if weight == 1.0:
        np.testing.assert_array_equal(fast, e)


def test_lerp_tensor_weight_still_picks_per_element():
    rng = np.random.default_rng(21)
    start, end = P(rng.standard_normal((3, 4)).astype("float32")), P(rng.standard_normal((3, 4)).astype("float32"))
    weight = P(np.array([0.0, 0.5, 1.0, 0.3] * 3, "float32").reshape(3, 4), "permuted")
    check(lambda lib, s, e, w: lib.lerp(s, e, w), start, end, weight)
    got = tt.lerp(start.build(tt), end.build(tt), weight.build(tt)).cpu().numpy()
    assert_same(tt.tensor(got), torch.lerp(start.build(torch), end.build(torch), weight.build(torch)), strides=False,
                same_device=False)
