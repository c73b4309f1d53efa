"""Lesson 13 (performance from first principles): the trace counters its check reads are exact, its check
cleans up after itself, the regime model's fixed answers follow from its arithmetic, and what the lesson says
about PyTorch is true of the installed PyTorch. Nothing here reads a clock."""

import math

import numpy as np
import torch

import teachtorch as tt
from teachtorch.dispatch import dispatcher
from teachtorch.exercises import EXERCISES, check
from teachtorch.exercises import lesson13
from teachtorch.exercises.lesson13 import GELU_C, trace_counts


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return space[{"L13.fused_gelu": "register_fused_gelu", "L13.regime": "regime"}[name]]


def _gelu_unfused(x):                      # the lesson's section 6
    return 0.5 * x * (1 + tt.tanh(GELU_C * (x + 0.044715 * (x * x * x))))


# ---- the trace counters ---------------------------------------------------------------------------------


def test_counts_of_the_lessons_examples():
    x, y, z = tt.randn(5), tt.randn(5), tt.randn(5)
    assert trace_counts(lambda: x * y + z)[1:] == (2, 2)
    assert trace_counts(lambda: tt.addcmul(z, x, y))[1:] == (1, 1)
    assert trace_counts(_gelu_unfused, x)[1:] == (9, 9)
    assert trace_counts(tt.nn.functional.gelu, x)[1:] == (1, 1)


def test_views_and_in_place_ops_allocate_nothing():
    x = tt.randn(2, 3)
    assert trace_counts(lambda: x.t().add_(1))[1:] == (2, 0)
    assert trace_counts(lambda: x.view(3, 2))[1:] == (1, 0)
    ps = [tt.ones(3) for _ in range(4)]
    assert trace_counts(lambda: tt._foreach_add_(ps, 1.0))[1:] == (1, 0)
    assert trace_counts(lambda: tt._foreach_add(ps, 1.0))[1:] == (1, 4)


def test_dead_intermediates_are_not_confused_with_new_ones():
    # intermediates die at once, so their storages' id() may be reused: the count goes by the trace's names
    x = tt.randn(1000)
    assert trace_counts(lambda: ((x * 2) * 3) * 4)[1:] == (3, 3)


def test_the_foreach_step_makes_a_fixed_number_of_calls():
    calls = {}
    for layers in (2, 5):
        net = tt.nn.Sequential(*[tt.nn.Linear(4, 4) for _ in range(layers)])
        for foreach in (False, True):
            opt = tt.optim.Adam(net.parameters(), lr=1e-3, foreach=foreach)
            net(tt.randn(2, 4)).sum().backward()
            opt.step()
            with tt.dispatch.trace(max_events=None) as t:
                opt.step()
            calls[layers, foreach] = len(t.ops())
    assert calls[2, True] == calls[5, True]                       # one call per op, for any number of tensors
    assert calls[5, False] == calls[2, False] * 5 // 2            # one call per op per tensor
    assert calls[2, True] * 4 == calls[2, False]


# ---- the checks ------------------------------------------------------------------------------------------


def test_the_fused_check_leaves_nothing_behind_and_runs_again():
    solution = _solved("L13.fused_gelu")
    for _ in range(2):
        assert check("L13.fused_gelu", solution).passed
        assert not [n for n in dispatcher.OPERATORS if n.startswith(lesson13._CHECK_NS + "::")]


def test_a_fused_answer_that_fails_halfway_is_cleaned_up_too():
    def broken(lib):
        lib.define("fused_gelu(Tensor x) -> Tensor")
        raise ValueError("oops")
    assert check("L13.fused_gelu", broken).status == "error"
    assert not [n for n in dispatcher.OPERATORS if n.startswith(lesson13._CHECK_NS + "::")]
    assert check("L13.fused_gelu", _solved("L13.fused_gelu")).passed


def test_a_kernel_that_raises_is_reported_as_a_value():
    def raises(lib):
        lib.define("fused_gelu(Tensor x) -> Tensor")
        lib.impl("fused_gelu", lambda x: 1 / 0, "CPU")
    result = check("L13.fused_gelu", raises)
    assert result.status == "failed" and "ZeroDivisionError" in str(result.got)


def test_the_known_regimes_follow_from_the_model():
    for (op, shapes), expected in lesson13._REGIME_KNOWN:
        costs = lesson13._costs(op, shapes)
        assert lesson13._regime(op, shapes) == expected
        assert sorted(costs)[2] >= 2 * sorted(costs)[1]            # no known case hangs on a rounding


def test_the_random_regimes_cover_all_three_answers():
    rng = np.random.default_rng(0)
    answers = {lesson13._regime(*lesson13._random_regime_case(rng)) for _ in range(200)}
    assert answers == {"overhead", "bandwidth", "compute"}


# ---- what the lesson says about PyTorch ------------------------------------------------------------------


def test_gelu_and_addcmul_are_pytorchs():
    x = np.random.default_rng(0).standard_normal(50).astype(np.float32) * 3
    ours = lesson13._gelu_expected((50,), 0).value.numpy()
    theirs = torch.nn.functional.gelu(torch.tensor(lesson13._x((50,), 0)), approximate="tanh").numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    a = torch.tensor(x)
    formula = 0.5 * a * (1 + torch.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))
    np.testing.assert_allclose(torch.nn.functional.gelu(a, approximate="tanh").numpy(), formula.numpy(),
                               rtol=1e-5, atol=1e-6)
    z, t1, t2 = (torch.tensor(np.float32([k, k + 1])) for k in (1, 2, 3))
    assert torch.equal(torch.addcmul(z, t1, t2), z + t1 * t2)


def test_foreach_and_custom_ops_exist_in_pytorch():
    ps = [torch.ones(3) for _ in range(3)]
    torch._foreach_add_(ps, 1.0)
    assert all(torch.equal(p, torch.full((3,), 2.0)) for p in ps)
    net = torch.nn.Linear(4, 4)
    opt = torch.optim.Adam(net.parameters(), foreach=True)       # works on the cpu too
    net(torch.randn(2, 4)).sum().backward()
    opt.step()
    import torch.optim.adam as adam
    import torch.utils.benchmark as benchmark
    assert callable(adam._multi_tensor_adam) and callable(torch.library.custom_op)
    assert callable(benchmark.Timer) and callable(torch.profiler.profile)
