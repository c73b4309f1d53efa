"""teachtorch.nn.utils against torch.nn.utils: gradient clipping and parameters <-> vector.

Each case builds the same parameters and gradients in both libraries (gradients in every memory layout:
`P` from tests/parity.py), runs the utility on both, and compares what it returns, what it did in place
to every `.grad` / parameter (values, strides, same tensor, same storage), and its errors and warnings.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt
from nn_parity import copy_weights
from parity import LAYOUTS, P, _build, as_on_cpu, assert_same, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

NORMS = [2.0, 1, 3.5, 0.5, 0, math.inf, "inf", -math.inf]


def grads_case(layout, seed=0, dtype="float32", scale=1.0):
    """Three parameters (2-D, 1-D, 3-D), the gradients of the first two in `layout`, the last one None."""
    shapes = [(3, 4), (5,), (2, 3, 2)]
    specs = []
    for i, shape in enumerate(shapes):
        g = rand(*shape, dtype=dtype, layout=layout, seed=seed + i) if i < 2 else None
        if g is not None:
            g = P(g.values * scale, layout, seed=seed + i)
        specs.append((rand(*shape, dtype=dtype, seed=seed + 10 + i), g))
    return specs


def build_params(lib, specs):
    params = []
    for value, grad in specs:
        p = lib.nn.Parameter(_build(value, lib))
        if grad is not None:
            p.grad = _build(grad, lib)
        params.append(p)
    return params


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (the error itself is what is compared)
        return None, e


def run_both(fn, specs, **compare):
    """Run `fn(lib, params)` on both libraries; compare results, every .grad afterwards, and errors."""
    ours, theirs = build_params(tt, specs), build_params(torch, specs)
    before = [(p.grad, p.grad.untyped_storage().data_ptr()) if p.grad is not None else None for p in ours]
    ours_out, ours_err = outcome(lambda: fn(tt, ours))
    theirs_out, theirs_err = outcome(lambda: fn(torch, theirs))
    if theirs_err is not None:
        assert ours_err is not None, f"torch raised {theirs_err!r}, teachtorch did not"
        assert type(ours_err) is type(theirs_err) and as_on_cpu(str(ours_err)) == str(theirs_err)
    else:
        assert ours_err is None, f"teachtorch raised {ours_err!r}, torch did not"
        if theirs_out is None:
            assert ours_out is None
        else:
            assert_same(ours_out, theirs_out, **compare)
    for i, (a, b, old) in enumerate(zip(ours, theirs, before)):
        if b.grad is None:
            assert a.grad is None
            continue
        # in place: the same tensor, the same storage, with torch's values (and strides) now
        assert a.grad is old[0] and a.grad.untyped_storage().data_ptr() == old[1], f"grad {i} was replaced"
        assert_same(a.grad, b.grad, path=f"grad {i}", **compare)
    return ours_out, theirs_out


# ---- clip_grad_norm_ -------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("norm_type", NORMS)
def test_clip_grad_norm_like_torch(layout, norm_type):
    # max_norm 0.5 clips; 1e4 is above every total norm, so the gradients are multiplied by exactly 1
    # (an expanded gradient is refused by the in-place multiplication, in both)
    for max_norm in (0.5, 1e4):
        run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type),
                 grads_case(layout), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_foreach_and_positional_args(foreach):
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0, 3, False, foreach),
             grads_case("permuted", seed=3), rtol=1e-5, atol=1e-6)
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, max_norm=2, foreach=foreach),
             grads_case("sliced", seed=4), rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_parameters_forms():
    # one tensor, a generator, a tuple; parameters without a gradient are skipped
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps[0], 0.1), grads_case("offset"), rtol=1e-5)
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_((p for p in ps), 0.1), grads_case("sliced"), rtol=1e-5)
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(tuple(ps), 0.1), grads_case("permuted"), rtol=1e-5)
    # no gradients at all: total norm 0 (a float32 scalar), nothing clipped
    no_grads = [(rand(2, 3), None), (rand(4), None)]
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0), no_grads)
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_([], 1.0), [])


def test_clip_grad_norm_empty_generator_warns_like_torch():
    for lib in (torch, tt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert [str(w.message) for w in caught] == ["`parameters` is an empty generator, no gradient clipping "
                                                    "will occur."]
        assert caught[0].category is UserWarning
        assert total.item() == 0.0 and total.dtype == lib.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tt.nn.utils.clip_grad_norm_([], 1.0)      # an empty list is not a used-up generator: no warning


def test_clip_grad_norm_mixed_dtypes_promote_like_torch():
    specs = grads_case("contiguous")
    specs[1] = (rand(5, dtype="float64", seed=20), rand(5, dtype="float64", layout="sliced", seed=21))
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 0.3), specs, rtol=1e-6)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("norm_type", [2.0, "inf", 1])
def test_clip_grad_norm_nonfinite_like_torch(bad, norm_type):
    specs = grads_case("permuted")
    values = specs[0][1].values.copy()
    values[1, 2] = bad
    specs[0] = (specs[0][0], P(values, "permuted"))
    # error_if_nonfinite: torch's RuntimeError, and the gradients untouched
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0, norm_type, error_if_nonfinite=True), specs)
    # without it: the gradients are scaled by the non-finite norm anyway (nan or zeros), as in torch
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0, norm_type), specs)


def test_clip_grad_norm_argument_errors_like_torch():
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0, norm_type="fro"), grads_case("contiguous"))
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, "a"), grads_case("contiguous"))
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, None), grads_case("contiguous"))


def test_clip_grad_norm_is_not_recorded_by_autograd():
    # under no_grad, even a gradient that itself requires grad (create_graph=True) is scaled without a graph
    for lib in (tt, torch):
        w = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
        (w ** 2).sum().backward(create_graph=True)
        assert w.grad.requires_grad
        total = lib.nn.utils.clip_grad_norm_([w], 1.0)
        assert not total.requires_grad and total.grad_fn is None
        assert abs(total.item() - 10.0) < 1e-5 and abs(w.grad.norm().item() - 1.0) < 1e-5


def test_clip_grad_norm_deprecated_name_like_torch():
    for lib in (torch, tt):
        with pytest.warns(FutureWarning) as caught:
            lib.nn.utils.clip_grad_norm(build_params(lib, grads_case("contiguous")), 1.0)
        assert str(caught[0].message) == ("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                                          "`torch.nn.utils.clip_grad_norm_`.")


def test_get_total_norm_and_clip_grads_with_norm_like_torch():
    assert hasattr(torch.nn.utils, "get_total_norm") and hasattr(torch.nn.utils, "clip_grads_with_norm_")
    for layout in LAYOUTS:
        for norm_type in (2, "inf", 1.5):
            def fn(lib, ps, norm_type=norm_type):
                grads = [p.grad for p in ps if p.grad is not None]
                total = lib.nn.utils.get_total_norm(grads, norm_type)
                assert lib.nn.utils.clip_grads_with_norm_(ps, 0.25, total) is None
                return total
            run_both(fn, grads_case(layout, seed=7), rtol=1e-5, atol=1e-6)
    # a single tensor, an empty list, error_if_nonfinite, and a total norm given by hand
    run_both(lambda lib, ps: lib.nn.utils.get_total_norm(ps[0].grad, 3), grads_case("sliced"), rtol=1e-6)
    run_both(lambda lib, ps: lib.nn.utils.get_total_norm([]), [])
    bad = [(rand(3), P(np.array([1.0, np.inf, 2.0], "float32"), "sliced"))]
    run_both(lambda lib, ps: lib.nn.utils.get_total_norm([ps[0].grad], error_if_nonfinite=True), bad)
    run_both(lambda lib, ps: lib.nn.utils.clip_grads_with_norm_(ps, 2.0, lib.tensor(8.0)), grads_case("offset"))
    run_both(lambda lib, ps: lib.nn.utils.clip_grads_with_norm_(ps[0], 2.0, lib.tensor(1.0)), grads_case("offset"))


def test_clip_grad_norm_in_a_training_step_like_torch():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    ours = tt.nn.Sequential(tt.nn.Linear(4, 8), tt.nn.Tanh(), tt.nn.Linear(8, 2))
    copy_weights(ours, theirs)
    x = rand(6, 4, layout="permuted", seed=5)
    totals = []
    for lib, model in ((tt, ours), (torch, theirs)):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (model(_build(x, lib)) ** 2).sum().mul(10).backward()
            totals.append(lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
            opt.step()
    for a, b in zip(totals[:3], totals[3:]):
        assert_same(a, b, rtol=1e-4, atol=1e-5)
    for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_same(a.detach(), b.detach(), rtol=1e-4, atol=1e-5, path=name)


# ---- clip_grad_value_ ------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_clip_grad_value_like_torch(layout):
    for clip_value in (0.5, 2, 100.0):
        run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, clip_value), grads_case(layout))
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps[1], 1.0, foreach=True), grads_case(layout))
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_((p for p in ps), 1.0, False), grads_case(layout))


def test_clip_grad_value_without_gradients_is_a_no_op():
    # A deliberate difference: torch 2.13 trips an internal check of its multi-tensor grouping when no
    # parameter has a gradient (its clip_grad_norm_ returns early instead); teachtorch clips nothing.
    for params in ([], [torch.nn.Parameter(torch.ones(2))]):
        with pytest.raises(RuntimeError, match="nested_tensorlist"):
            torch.nn.utils.clip_grad_value_(params, 1.0)
    p = tt.nn.Parameter(tt.ones(2))
    assert tt.nn.utils.clip_grad_value_([], 1.0) is None and tt.nn.utils.clip_grad_value_([p], 1.0) is None
    assert p.grad is None


def test_clip_grad_value_edge_cases_like_torch():
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, "x"), grads_case("contiguous"))
    nan = [(rand(3), P(np.array([np.nan, -5.0, np.inf], "float32"), "sliced"))]
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, 1.0), nan)
    run_both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, -1.0), grads_case("permuted"))   # min > max


# ---- parameters_to_vector / vector_to_parameters ---------------------------------------------------------


def test_parameters_to_vector_like_torch():
    for layout in ("contiguous", "offset"):
        specs = [(rand(3, 4, layout=layout, seed=1), None), (rand(5, layout="sliced", seed=2), None),
                 (rand(2, 1, 3, layout=layout, seed=3), None)]
        ours, theirs = build_params(tt, specs), build_params(torch, specs)
        a, b = tt.nn.utils.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(theirs)
        assert_same(a, b)
        assert a.grad_fn is not None and a.grad_fn.name() == b.grad_fn.name()
        # the vector is made from views of the parameters: gradients flow back into each of them
        weights = rand(b.numel(), seed=9)
        (a * _build(weights, tt)).sum().backward()
        (b * _build(weights, torch)).sum().backward()
        for i, (p, q) in enumerate(zip(ours, theirs)):
            assert_same(p.grad, q.grad, path=f"grad {i}")


@pytest.mark.parametrize("layout", ["permuted", "sliced", "expanded"])
def test_parameters_to_vector_non_viewable_like_torch(layout):
    # `view(-1)` refuses a parameter whose elements are not one evenly strided run, with view's own error
    specs = [(rand(3, 4, seed=1), None), (rand(2, 3, layout=layout, seed=2), None)]
    run_both(lambda lib, ps: lib.nn.utils.parameters_to_vector(ps), specs)


def test_parameters_to_vector_errors_like_torch():
    run_both(lambda lib, ps: lib.nn.utils.parameters_to_vector(ps), [])                 # cat of nothing
    run_both(lambda lib, ps: lib.nn.utils.parameters_to_vector(ps[0]), [(rand(2, 3), None)])   # rows of a tensor
    mixed = [(rand(2, 3), None), (rand(4, dtype="float64"), None)]
    run_both(lambda lib, ps: lib.nn.utils.parameters_to_vector(ps), mixed)              # cat promotes


@pytest.mark.parametrize("layout", ["contiguous", "sliced", "offset"])
def test_vector_to_parameters_like_torch(layout):
    specs = [(rand(3, 4, seed=1), None), (rand(5, seed=2), None), (rand(2, 1, 3, seed=3), None)]
    vec = rand(23, layout=layout, seed=4)
    ours, theirs = build_params(tt, specs), build_params(torch, specs)
    v_ours, v_theirs = _build(vec, tt), _build(vec, torch)
    tt.nn.utils.vector_to_parameters(v_ours, ours)
    torch.nn.utils.vector_to_parameters(v_theirs, theirs)
    for i, (p, q) in enumerate(zip(ours, theirs)):
        assert_same(p.detach(), q.detach(), path=f"param {i}")   # values, strides, storage offset
        assert isinstance(p, tt.nn.Parameter) and p.requires_grad and p.is_leaf
        # each parameter now shows vec's storage: no copy was made
        assert p.untyped_storage().data_ptr() == v_ours.untyped_storage().data_ptr()
    with tt.no_grad():
        v_ours.mul_(2)
    assert ours[1].detach().tolist() == (2 * _build(vec, tt)[12:17]).tolist()


def test_vector_to_parameters_errors_like_torch():
    specs = [(rand(2, 3, seed=1), None), (rand(4, seed=2), None)]
    run_both(lambda lib, ps: lib.nn.utils.vector_to_parameters([1.0] * 10, ps), specs)
    run_both(lambda lib, ps: lib.nn.utils.vector_to_parameters(np.zeros(10, "float32"), ps), specs)
    run_both(lambda lib, ps: lib.nn.utils.vector_to_parameters(3, ps), specs)
    # too short a vector: the last view_as fails with view's error
    run_both(lambda lib, ps: lib.nn.utils.vector_to_parameters(lib.zeros(7), ps), specs)
    # a vector whose slices cannot be viewed as the parameter's shape (a step-2 column of a matrix: fine)
    run_both(lambda lib, ps: lib.nn.utils.vector_to_parameters(lib.zeros(10, 2)[:, 1], ps), specs)


@pytest.mark.cpu_only
def test_parameters_on_two_devices_refused():
    # torch's cpu build cannot make a cuda tensor: a stand-in with a cuda device, and torch's message
    from teachtorch.nn.utils.convert_parameters import _check_param_device

    class FakeCuda:
        def __init__(self, index):
            self.device, self.index = tt.device(f"cuda:{index}"), index

        def get_device(self):
            return self.index

    cpu = tt.zeros(2)
    assert _check_param_device(cpu, None) == -1 and _check_param_device(FakeCuda(1), None) == 1
    assert _check_param_device(FakeCuda(0), 0) == 0 and _check_param_device(cpu, -1) == -1
    for param, first in ((FakeCuda(0), -1), (cpu, 0), (FakeCuda(1), 0)):
        with pytest.raises(TypeError) as ours:
            _check_param_device(param, first)
        assert str(ours.value) == "Found two parameters on different devices, this is currently not supported."
    with pytest.raises(TypeError, match="different devices"):
        tt.nn.utils.parameters_to_vector([cpu, FakeCuda(0)])


def test_nn_utils_names_like_torch():
    for name in ("clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
                 "parameters_to_vector", "vector_to_parameters"):
        assert name in torch.nn.utils.__all__ and name in tt.nn.utils.__all__
        assert callable(getattr(tt.nn.utils, name))
    import teachtorch.nn.utils.clip_grad  # noqa: F401  (the submodules import under torch's names)
    import teachtorch.nn.utils.convert_parameters  # noqa: F401
