"""The autograd engine and its semantics, each case run on teachtorch and on PyTorch and compared.

The per-op gradient formulas are tested by family in test_autograd_{pointwise,reductions,linalg,shape,
indexing}.py; this file covers what does not depend on one op: the graph, the engine's order and
accumulation, backward/grad arguments, hooks, grad modes, in-place checks, views, custom Functions,
anomaly mode, freeing, and the introspection/event API the explorer uses.
"""

import gc
import warnings
import weakref

import numpy as np
import pytest
import torch

import teachtorch as tt
from parity import LAYOUTS, P, as_on_cpu, assert_same, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)


def both(fn):
    """Run `fn(lib)` on both libraries; errors must match in type and text. Returns (tt result, torch result)."""
    try:
        expected = fn(torch)
    except Exception as e:
        with pytest.raises(type(e)) as info:
            fn(tt)
        got = as_on_cpu(str(info.value))   # (the [cuda] run says torch.cuda.FloatTensor: torch's says torch.Float...)
        assert got == str(e), f"message:\n  got      {info.value}\n  expected {e}"
        return None, e
    return fn(tt), expected


def same(fn, **kw):
    got, expected = both(fn)
    assert_same(got, expected, **kw)


def leaf(lib, values, dtype="float32"):
    return lib.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


# ---- the graph ------------------------------------------------------------------------------------------


def test_graph_nodes_edges_and_names_match_torch():
    def names(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [0.5, -1.0, 2.0])
        y = (x * w).exp().sum()
        out = []
        stack, seen = [y.grad_fn], set()
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            out.append((n.name(), tuple(None if f is None else (f.name(), i) for f, i in n.next_functions)))
            stack.extend(f for f, _ in n.next_functions if f is not None)
        return out
    got, expected = both(names)
    assert got == expected


def test_saved_tensors_visible_like_torch():
    for lib in (tt, torch):
        x = leaf(lib, [1.0, 2.0])
        w = leaf(lib, [3.0, 4.0])
        y = x * w
        assert y.grad_fn._saved_self is x and y.grad_fn._saved_other is w
        e = x.exp()
        assert e.grad_fn._saved_result is not e                 # saved as an alias: no reference cycle
        assert e.grad_fn._saved_result.equal(e)
        s = x.sum()
        assert tuple(s.grad_fn._saved_self_sym_sizes) == (2,)
        acc = y.grad_fn.next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
        assert x.grad_fn is None and x.is_leaf and not y.is_leaf


def test_leaf_grad_accumulator_is_shared_between_uses():
    x = leaf(tt, [1.0, 2.0])
    a, b = x * 2, x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]


def test_sequence_numbers_newest_first_and_accumulate_grad_max():
    x = leaf(tt, [1.0])
    a, b = x.exp(), x.sin()
    assert b.grad_fn._sequence_nr() > a.grad_fn._sequence_nr()
    assert a.grad_fn.next_functions[0][0]._sequence_nr() == 2 ** 64 - 1
    assert a.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"   # as torch names it


def test_engine_runs_newest_node_first_like_torch():
    def order(lib):
        x = leaf(lib, [1.0, 2.0])
        seen = []
        a, b = x.exp(), x.sin()
        a.grad_fn.register_prehook(lambda g: seen.append("exp"))
        b.grad_fn.register_prehook(lambda g: seen.append("sin"))
        (a + b).sum().backward()
        return seen
    got, expected = both(order)
    assert got == expected == ["sin", "exp"]


# ---- backward / grad ------------------------------------------------------------------------------------


def test_gradients_accumulate_and_broadcasting_is_reduced():
    def run(lib):
        a = leaf(lib, np.arange(12.0).reshape(3, 4))
        b = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        c = leaf(lib, 2.0)
        (a * b + c).sum().backward()
        (a * b * c).sum().backward()
        return a.grad, b.grad, c.grad
    same(run)


def test_backward_with_gradient_retain_and_twice():
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x.exp() * x
        y.backward(lib.tensor([1.0, 0.5, 2.0]), retain_graph=True)
        y.backward(lib.tensor([1.0, 1.0, 1.0]))
        return x.grad
    same(run)


@pytest.mark.parametrize("case", ["twice", "non_scalar", "no_grad_fn", "bad_shape", "empty_inputs",
                                  "unused", "input_no_grad", "grad_outputs_count"])
def test_backward_and_grad_errors_match_torch(case):
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        if case == "twice":
            y = (x.exp() * x).sum()
            y.backward()
            y.backward()
        elif case == "non_scalar":
            (x * 2).backward()
        elif case == "no_grad_fn":
            lib.ones(3).sum().backward()
        elif case == "bad_shape":
            (x * 2).backward(lib.ones(2))
        elif case == "empty_inputs":
            (x * 2).sum().backward(inputs=[])
        elif case == "unused":
            z = leaf(lib, [1.0])
            lib.autograd.grad((x * 2).sum(), [x, z])
        elif case == "input_no_grad":
            lib.autograd.grad((x * 2).sum(), [lib.ones(3)])
        elif case == "grad_outputs_count":
            lib.autograd.grad([(x * 2).sum()], [x], grad_outputs=[lib.ones(()), lib.ones(())])
    both(run)


def test_grad_allow_unused_and_materialize():
    def run(lib):
        x, z = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0])
        g1 = lib.autograd.grad((x * x).sum(), [x, z], allow_unused=True)
        g2 = lib.autograd.grad((x * x).sum(), [x, z], materialize_grads=True)
        return g1[0], g1[1] is None, g2
    got, expected = both(run)
    assert_same(got[0], expected[0])
    assert got[1] and expected[1]
    assert_same(got[2], expected[2])


def test_grad_leaves_dot_grad_alone_and_works_for_non_leaves():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        h = x * 3
        y = (h * h).sum()
        gh, gx = lib.autograd.grad(y, [h, x])
        return gh, gx, x.grad is None
    same(run)


def test_backward_inputs_only_fills_those():
    def run(lib):
        x, w = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        h = x * w
        (h * h).sum().backward(inputs=[w, h])
        return w.grad, x.grad is None, h.grad
    same(run)


@pytest.mark.parametrize("order", [2, 3, 4])
def test_higher_order_gradients(order):
    def run(lib):
        x = leaf(lib, [0.5, 1.5, -2.0], "float64")
        y = (x.sin() * x * x).exp().sum()
        g = y
        out = []
        for _ in range(order):
            g, = lib.autograd.grad(g.sum() if g.dim() else g, x, create_graph=True)
            out.append(g)
        return out
    same(run, rtol=1e-9, atol=1e-9)


def test_create_graph_grad_has_history_and_leaf_grad_keeps_graph():
    for lib in (tt, torch):
        s = leaf(lib, 2.0)
        g1, = lib.autograd.grad(s ** 3, s, create_graph=True)
        assert g1.requires_grad and g1.grad_fn is not None
        g2, = lib.autograd.grad(g1, s)
        assert float(g2) == 12.0
        x = leaf(lib, [1.0, 2.0])
        (x ** 3).sum().backward(create_graph=True)
        assert x.grad.requires_grad
        x.grad.sum().backward()


def test_long_chain_backpropagates_without_recursion():
    x = tt.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_graph_is_freed_after_backward():
    x = tt.randn(5, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    ref = weakref.ref(node._saved["result"].data)
    z = (y * x).sum()
    z.backward()
    gc.collect()
    assert ref() is None, "the saved result is still alive after backward"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        node._saved_result


def test_retain_graph_keeps_saved_tensors():
    x = tt.randn(5, requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * np.exp(x.detach().cpu().numpy()), rtol=1e-6)


def test_dropping_the_output_frees_the_whole_graph():
    x = tt.randn(5, requires_grad=True)
    y = (x * 2).exp()
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


# ---- grad modes -----------------------------------------------------------------------------------------


def test_grad_modes_like_torch():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        out = []
        with lib.no_grad():
            out.append((x * 2).requires_grad)
            with lib.enable_grad():
                out.append((x * 2).requires_grad)
        with lib.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append((x * 2).requires_grad)

        @lib.no_grad()
        def f(t):
            return t * 2
        out.append(f(x).requires_grad)
        lib.set_grad_enabled(False)
        out.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        out.append(lib.is_grad_enabled())
        out.append((x > 1).requires_grad)           # bool results never require grad
        out.append(x.argmax().requires_grad)
        out.append(lib.zeros_like(x).requires_grad)
        return out
    got, expected = both(run)
    assert got == expected


def test_inference_mode_like_torch():
    def run(lib):
        out = []
        w = leaf(lib, [1.0, 2.0, 3.0])
        with lib.inference_mode():
            x = lib.ones(3)
            y = w * 2
            out += [x.is_inference(), lib.is_inference_mode_enabled(), lib.is_grad_enabled(), y.requires_grad]
            with lib.inference_mode(False):
                out.append(lib.is_grad_enabled())

        @lib.inference_mode()
        def f():
            return lib.ones(2).is_inference()
        out.append(f())
        out.append(lib.ones(2).is_inference())
        return out, x
    got, expected = both(run)
    assert got[0] == expected[0]
    for fn in (lambda lib, x: x.add_(1), lambda lib, x: (leaf(lib, [1.0, 2.0, 3.0]) * x).sum().backward()):
        both(lambda lib: fn(lib, run(lib)[1]))


def test_grad_mode_decorators_on_generators_and_without_parentheses_like_torch():
    """@no_grad() on a generator function covers the generator's body each time it runs, and the caller's
    mode is back whenever it yields (torch.utils._contextlib._wrap_generator); @no_grad, @enable_grad and
    @inference_mode also work without parentheses."""
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        seen = []

        @lib.no_grad()
        def numbers(n):
            for i in range(n):
                seen.append(("body", lib.is_grad_enabled()))
                got = yield (x * i).requires_grad
                seen.append(("sent", got))
            return "done"

        gen = numbers(3)
        seen.append(("outside before", lib.is_grad_enabled()))
        seen.append(("first", next(gen)))
        seen.append(("between", lib.is_grad_enabled(), (x * 2).requires_grad))
        seen.append(("second", gen.send("hello")))
        with pytest.raises(ValueError):
            gen.throw(ValueError("stop"))
        seen.append(("after throw", lib.is_grad_enabled()))
        seen.append(("list", list(numbers(2))))
        gen = numbers(5)
        next(gen)
        gen.close()
        seen.append(("after close", lib.is_grad_enabled()))

        @lib.no_grad
        def bare(t):
            return (t * 2).requires_grad

        @lib.enable_grad
        def bare_enable(t):
            return (t * 2).requires_grad

        @lib.inference_mode
        def bare_inference():
            return lib.ones(1).is_inference()

        seen.append(("bare", bare(x), bare_enable(x), bare_inference()))
        with lib.no_grad():
            seen.append(("enable inside no_grad", bare_enable(x)))
        return seen
    got, expected = both(run)
    assert got == expected


@pytest.mark.parametrize("mode", ["yes", 1, None])
def test_set_grad_enabled_refuses_what_is_not_a_bool_like_torch(mode):
    both(lambda lib: lib.set_grad_enabled(mode))
    assert tt.is_grad_enabled()


# ---- hooks ----------------------------------------------------------------------------------------------


def test_hook_order_like_torch():
    def run(lib):
        seen = []
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        z = (y * y).sum()
        y.register_hook(lambda g: seen.append("tensor hook y"))
        y.grad_fn.register_prehook(lambda g: seen.append("prehook " + y.grad_fn.name()))
        y.grad_fn.register_hook(lambda gi, go: seen.append("posthook " + y.grad_fn.name()))
        x.register_hook(lambda g: seen.append("tensor hook x"))
        x.register_post_accumulate_grad_hook(lambda t: seen.append("post accumulate x"))
        z.backward()
        return seen
    got, expected = both(run)
    assert got == expected


def test_hooks_can_replace_gradients_and_be_removed():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 3
        h = y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2,) + tuple(gi[1:]))
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        h.remove()
        x.grad = None
        y.sum().backward()
        return first, x.grad
    same(run)


def test_leaf_hook_registered_before_any_graph_survives():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: g * 100)
        gc.collect()
        (x * 2).sum().backward()
        return x.grad
    same(run)


def same_or_same_error(fn):
    """`same` where torch returns, `both`'s error check where it raises."""
    got, expected = both(fn)
    if not isinstance(expected, Exception):
        assert_same(got, expected)


def _named_hook(g):
    return 5


class _CallableHook:            # no __name__: PyTorch names it '<unknown>'
    def __call__(self, g):
        return g.sum()


# What a tensor hook returns instead of the gradient `g`; PyTorch checks it at the hook (python_hook.cpp).
TENSOR_HOOK_RESULTS = {
    "int": lambda lib, g: 5,
    "named_function": _named_hook,
    "list": lambda lib, g: [g],
    "tuple": lambda lib, g: (g,),
    "ndarray": lambda lib, g: np.ones(3, np.float32),
    "wrong_size": lambda lib, g: lib.ones(4),
    "wrong_rank": lambda lib, g: lib.ones(1, 3),
    "wrong_dtype": lambda lib, g: g.double(),
    "wrong_int_dtype": lambda lib, g: g.long(),
    "wrong_device": lambda lib, g: g.to("meta"),
    "callable_object": _CallableHook(),
    "same_object": lambda lib, g: g,
    "strided_like": lambda lib, g: lib.ones(6)[::2] * 5,
    "expanded_like": lambda lib, g: lib.ones(1).expand(3),
    "requires_grad": lambda lib, g: lib.ones(3, requires_grad=True),
}


def _hook(name, lib):
    hook = TENSOR_HOOK_RESULTS[name]
    if isinstance(hook, _CallableHook) or hook is _named_hook:
        return hook
    return lambda g: hook(lib, g)


@pytest.mark.parametrize("where", ["non_leaf", "leaf"])
@pytest.mark.parametrize("name", TENSOR_HOOK_RESULTS)
def test_tensor_hook_result_is_checked_like_torch(name, where):
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        if where == "leaf":
            x.register_hook(_hook(name, lib))
            (x * 2).sum().backward()
        else:
            y = x * 2
            y.register_hook(_hook(name, lib))
            y.sum().backward()
        return x.grad, x.grad.requires_grad
    same_or_same_error(run)


def test_tensor_hook_cannot_replace_a_missing_gradient():
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        a, b = x.split(2)
        b.register_hook(lambda g: lib.ones(2))    # b gets no gradient: its hook sees None
        a.sum().backward()
        return x.grad
    both(run)


def _node_hook_run(lib, kind, hook, two_inputs=False):
    x = leaf(lib, [1.0, 2.0, 3.0])
    y = x * leaf(lib, [1.0, 1.0, 1.0]) if two_inputs else x * 2
    getattr(y.grad_fn, kind)(hook)
    y.sum().backward()
    return x.grad


@pytest.mark.parametrize("result", [
    lambda lib, go: 5, lambda lib, go: go[0], lambda lib, go: [go[0]], lambda lib, go: (go[0], go[0]),
    lambda lib, go: (), lambda lib, go: (5,), lambda lib, go: (lib.ones(4),), lambda lib, go: (go[0].double(),),
    lambda lib, go: (None,), lambda lib, go: (go[0] * 3,), lambda lib, go: go,
], ids=["int", "tensor", "list", "too_many", "too_few", "tuple_of_int", "wrong_size", "wrong_dtype", "none",
        "scaled", "same"])
def test_node_prehook_result_is_checked_like_torch(result):
    same_or_same_error(lambda lib: _node_hook_run(lib, "register_prehook", lambda go: result(lib, go)))
    both(lambda lib: _node_hook_run(lib, "register_prehook", _named_hook))


@pytest.mark.parametrize("result", [
    lambda lib, gi, go: 5, lambda lib, gi, go: [gi[0], gi[1]], lambda lib, gi, go: (gi[0],),
    lambda lib, gi, go: (gi[0], lib.ones(2)), lambda lib, gi, go: (gi[0], gi[1].double()),
    lambda lib, gi, go: (gi[0], None), lambda lib, gi, go: (gi[0] * 3, gi[1]), lambda lib, gi, go: gi,
], ids=["int", "list", "too_few", "wrong_size", "wrong_dtype", "none", "scaled", "same"])
def test_node_posthook_result_is_checked_like_torch(result):
    same_or_same_error(
        lambda lib: _node_hook_run(lib, "register_hook", lambda gi, go: result(lib, gi, go), two_inputs=True))


def test_node_posthook_cannot_fill_a_missing_gradient():
    # x * 2 has one input that needs no gradient: its grad_input is None and must stay None
    both(lambda lib: _node_hook_run(lib, "register_hook", lambda gi, go: (gi[0], gi[0])))


@pytest.mark.parametrize("result", [
    lambda lib, t: 5, lambda lib, t: t, lambda lib, t: t * 1, lambda lib, t: lib.ones(4), lambda lib, t: None,
], ids=["int", "same", "tensor", "wrong_size", "none"])
def test_post_accumulate_grad_hook_must_return_none(result):
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        x.register_post_accumulate_grad_hook(lambda t: result(lib, t))
        (x * 2).sum().backward()
        return x.grad
    same_or_same_error(run)


def test_retain_grad_and_hook_errors():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 3
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad, y.retains_grad, x.retains_grad
    same(run)
    both(lambda lib: lib.ones(2).register_hook(lambda g: g))
    both(lambda lib: lib.ones(2).retain_grad())
    both(lambda lib: (leaf(lib, [1.0]) * 2).register_post_accumulate_grad_hook(lambda t: None))


def test_grad_setter_checks():
    both(lambda lib: setattr(leaf(lib, [1.0, 2.0]), "grad", lib.zeros(3)))
    both(lambda lib: setattr(leaf(lib, [1.0, 2.0]), "grad", 3))
    both(lambda lib: setattr(leaf(lib, [1.0, 2.0]), "grad", lib.zeros(2, dtype=lib.float64)))


def test_grad_steals_a_view_that_obeys_the_layout_contract():
    def run(lib):
        x = leaf(lib, np.ones((2, 1)))
        x.t().backward(lib.ones(1, 2))
        y = leaf(lib, np.ones((2, 3)))
        y.t().backward(lib.ones(3, 2))
        return x.grad, y.grad
    same(run)


def test_grad_has_the_leaf_layout():
    def run(lib):
        base = lib.tensor(np.arange(12.0, dtype="float32").reshape(4, 3))
        x = base.t().detach().requires_grad_()       # a transposed leaf
        (x * 2).sum().backward()
        return x.grad
    same(run)


# ---- in-place and views ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["exp_result", "mul_input", "leaf_modified", "sum_output", "view_saved"])
def test_version_counter_errors_match_torch(case):
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        if case == "exp_result":
            y = x.exp()
            y.add_(1)
            y.sum().backward()
        elif case == "mul_input":
            z = lib.tensor([1.0, 2.0, 3.0])
            y = x * z
            z.add_(1)
            y.sum().backward()
        elif case == "leaf_modified":
            y = x * x
            with lib.no_grad():
                x.mul_(2)
            y.sum().backward()
        elif case == "sum_output":
            s = x.sum(0, keepdim=True)
            w = s * s
            with lib.no_grad():
                s.add_(1)
            w.sum().backward()
        elif case == "view_saved":
            h = x * 1
            y = h[1:] * h[1:]
            h.mul_(2)
            y.sum().backward()
    both(run)


@pytest.mark.parametrize("case", ["leaf", "view_of_leaf", "unbind", "split_indirect", "chunk", "no_grad_view",
                                  "no_grad_view_nonleaf"])
def test_inplace_errors_match_torch(case):
    def run(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        if case == "leaf":
            x.add_(1)
        elif case == "view_of_leaf":
            x[1:].mul_(2)
        elif case == "unbind":
            a = (x * 1).unbind()[0]
            a.mul_(2)
        elif case == "split_indirect":
            z = x * 1
            a, b = z.split(2)
            z.mul_(2)
            a.grad_fn
        elif case == "chunk":
            (x * 1).chunk(2)[1].add_(1)
        elif case == "no_grad_view":
            with lib.no_grad():
                v = x[0]
            v.mul_(2)
        elif case == "no_grad_view_nonleaf":
            y = x * 1
            with lib.no_grad():
                v = y[0]
            v.mul_(leaf(lib, 2.0))
    both(run)


def test_inplace_on_view_rewrites_base_history():
    def run(lib):
        lf = leaf(lib, np.ones((3, 2)))
        base = lf.clone()
        base[0].mul_(2)
        names = base.grad_fn.name()
        base.sum().backward()
        return lf.grad, names
    got, expected = both(run)
    assert_same(got[0], expected[0])
    assert got[1] == expected[1] == "torch::autograd::CopySlices"


def test_stale_view_gets_as_strided_backward():
    def run(lib):
        lf = leaf(lib, np.arange(6.0).reshape(3, 2))
        base = lf * 1
        old = base[2]
        view = base[0]
        view.mul_(3)
        names = (old.grad_fn.name(), view.grad_fn.name(), base.grad_fn.name())
        (old * 5 + view).sum().backward()
        return lf.grad, names
    got, expected = both(run)
    assert_same(got[0], expected[0])
    assert got[1] == expected[1]


def test_copy_into_view_of_base_that_does_not_require_grad():
    def run(lib):
        w = leaf(lib, [5.0, 6.0])
        base = lib.zeros(3, 2)
        base[1].copy_(w)
        g, = lib.autograd.grad((base * base).sum(), w)
        return g, base.requires_grad, base.grad_fn.name()
    same(run)


def test_chained_views_and_inplace_on_transposed_view():
    def run(lib):
        lf = leaf(lib, np.arange(12.0).reshape(3, 4))
        base = lf * 2
        v = base.t()[1:, ::2]
        v.mul_(v.detach() + 1)
        v.add_(lf.t()[1:, ::2])
        (base * base).sum().backward()
        return lf.grad
    same(run)


def test_out_arguments_refuse_autograd():
    both(lambda lib: lib.add(leaf(lib, [1.0]), 1, out=lib.empty(1)))
    both(lambda lib: lib.mm(leaf(lib, np.ones((2, 2))), lib.ones(2, 2), out=lib.empty(2, 2)))


def test_detach_and_data():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        d = y.detach()
        out = [d.requires_grad, d._base is None, d.data_ptr() == y.data_ptr()]
        d.add_(1)
        out.append(y._version)
        y2 = x * 3
        y2.detach_()
        out += [y2.requires_grad, y2.is_leaf]
        dd = x.data
        dd.add_(1)
        out += [x._version, dd.requires_grad]
        return out
    got, expected = both(run)
    assert got == expected
    both(lambda lib: (leaf(lib, [1.0, 2.0]) * 1)[0].detach_())
    both(lambda lib: (leaf(lib, [1.0]) * 2).requires_grad_(False))
    both(lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_())


def test_to_and_float_conversions_carry_gradients():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x.to(lib.float64) * 3
        z = x.float()
        y.sum().backward()
        return x.grad, z is x, y.grad_fn.next_functions[0][0].name()
    same(run)


# ---- custom Function ------------------------------------------------------------------------------------


def make_functions(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k, (x > 0)

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g, g_mask):
            return g * 2, None

    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            ctx.save_for_backward(x, w)
            ctx.k = k
            ctx.mark_non_differentiable()
            return x * w + k

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return (g * w if ctx.needs_input_grad[0] else None,
                    g * x if ctx.needs_input_grad[1] else None, None)

    class Double_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class Argmax(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2
    return Exp, Scale, MulAdd, Double_, Ident, Argmax


def test_custom_functions_like_torch():
    def run(lib):
        Exp, Scale, MulAdd, Double_, Ident, Argmax = make_functions(lib)
        x, w = leaf(lib, [0.5, -1.0, 2.0]), leaf(lib, [1.0, 2.0, 3.0])
        y = Exp.apply(x)
        out = [y.grad_fn.name(), y.requires_grad]
        (y * MulAdd.apply(x, w, 2.0)).sum().backward()
        out += [x.grad.clone(), w.grad.clone()]
        h = x * 1
        v0 = h._version
        d = Double_.apply(h)
        out += [d is h, h._version - v0, h.grad_fn.name()]
        i = Ident.apply(x)
        out += [i is x, i.grad_fn.name()]
        x.grad = None
        (d.sum() + i.sum()).backward()
        out.append(x.grad)
        m, idx = Argmax.apply(x)
        out += [idx.requires_grad, m.requires_grad]
        with lib.no_grad():
            out.append(Exp.apply(x).requires_grad)
        return out
    got, expected = both(run)
    for a, b in zip(got, expected):
        if isinstance(b, torch.Tensor):
            assert_same(a, b)
        else:
            assert a == b


@pytest.mark.parametrize("case", ["count", "nontensor_grad", "dirty_leaf", "bad_shape"])
def test_custom_function_errors_match_torch(case):
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                if case == "dirty_leaf":
                    ctx.mark_dirty(x)
                    return x
                return x * k

            @staticmethod
            def backward(ctx, g):
                if case == "count":
                    return (g,)
                if case == "bad_shape":
                    return lib.ones(2), None
                return g, 1.0
        x = leaf(lib, [1.0, 2.0, 3.0])
        F.apply(x, 2.0).sum().backward()
    both(run)


def test_once_differentiable_blocks_double_backward():
    def run(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        x = leaf(lib, [1.0, 2.0])
        v = leaf(lib, [1.0, 1.0])
        g, = lib.autograd.grad(Sq.apply(x), x, grad_outputs=v, create_graph=True)
        assert g.tolist() == [2.0, 4.0]
        g.sum().backward()
    both(run)


# ---- anomaly mode ---------------------------------------------------------------------------------------


def test_anomaly_mode_names_node_and_forward_line():
    def run(lib):
        x = leaf(lib, [0.0, 1.0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                y = x.sqrt()          # THE_FORWARD_LINE
                (y * 0).sum().backward()
        return w
    with pytest.raises(RuntimeError) as info:
        run(tt)
    with pytest.raises(RuntimeError) as tinfo:
        run(torch)
    assert str(info.value) == str(tinfo.value)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            with tt.autograd.detect_anomaly():
                y = leaf(tt, [0.0, 1.0]).sqrt()          # THE_FORWARD_LINE
                (y * 0).sum().backward()
    text = "\n".join(str(m.message) for m in w)
    assert "Error detected in SqrtBackward0" in text and "THE_FORWARD_LINE" in text


def test_anomaly_mode_version_error_hint_matches():
    def run(lib):
        x = leaf(lib, [1.0, 2.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                y = x.exp()
                y.add_(1)
                y.sum().backward()
    both(run)


def test_saved_tensors_hooks_like_torch():
    def run(lib):
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t * 1

        def unpack(t):
            log.append(("unpack", tuple(t.shape)))
            return t
        x = leaf(lib, [1.0, 2.0, 3.0])
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).exp()
        y.sum().backward()
        return log, x.grad, isinstance(y.grad_fn, lib.autograd.graph.Node)
    got, expected = both(run)
    assert got[0] == expected[0] and got[2] and expected[2]
    assert_same(got[1], expected[1])


# ---- introspection and events (the explorer's interface) ------------------------------------------------


def test_walk_graph_reports_nodes_edges_saved_and_hooks():
    x = leaf(tt, [1.0, 2.0])
    w = leaf(tt, [3.0, 4.0])
    y = (x * w).exp()
    y.register_hook(lambda g: g)
    info = tt.autograd.graph.walk(y)
    assert info.names() == ["ExpBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    exp = info.nodes[0]
    assert exp.hooks["tensor"] == 1
    assert [s["name"] for s in exp.saved] == ["_saved_result"]
    assert exp.saved[0]["shape"] == (2,) and exp.saved[0]["saved_version"] == 0
    mul = info.node(exp.next[0][0])
    assert sorted(s["name"] for s in mul.saved) == ["_saved_other", "_saved_self"]
    leaves = {n.variable is x or n.variable is w for n in info.nodes if n.name == "AccumulateGrad"}
    assert leaves == {True}
    assert len(info.edges) == 3
    assert tt.autograd.graph.walk(y).nodes[0].id == exp.id       # ids are stable


def test_backward_events_stream():
    x = leaf(tt, [1.0, 2.0])
    y = (x * x).sum()
    events = []
    with tt.autograd.graph.listen(events.append):
        y.backward()
    kinds = [e.kind for e in events]
    assert kinds[0] == "backward_started" and kinds[-1] == "backward_finished"
    started = [e.node_name for e in events if e.kind == "node_started"]
    assert started == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    acc = [e for e in events if e.kind == "accumulated"]
    assert len(acc) == 1 and acc[0].tensor is x
    grads = [e for e in events if e.kind == "gradient" and e.node_name == "MulBackward0"]
    assert len(grads) == 2 and all(tuple(e.grad.shape) == (2,) for e in grads)


def test_dispatch_trace_sees_backward():
    x = leaf(tt, [1.0, 2.0])
    y = (x * x).sum()
    with tt.dispatch.trace() as t:
        y.backward()
    tagged = {(e.op, e.backward_node) for e in t.events if e.depth == 0}
    assert ("aten::expand", "SumBackward0") in tagged
    assert ("aten::mul.Tensor", "MulBackward0") in tagged
    assert [e.kind for e in t.backward_events][:2] == ["backward_started", "node_started"]


def test_op_without_formula_fails_only_in_backward():
    ns = f"tt_test_nograd_{tt.get_default_device().type}"     # one namespace per device run of this test
    lib = tt.library.Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    lib.impl("twice", lambda x: x * 2, "CUDA")
    x = leaf(tt, [1.0, 2.0])
    y = getattr(tt.ops, ns).twice.default(x)
    assert y.requires_grad
    assert y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=f"derivative for {ns}::twice is not implemented"):
        y.sum().backward()


def test_floor_divide_has_no_derivative_like_torch():
    def run(lib):
        y = lib.floor_divide(leaf(lib, [1.0, 2.0, 3.0]), 2)
        name = y.grad_fn.name()
        y.sum().backward()
        return name
    both(run)


# ---- coverage: every op either has a derivative or cannot need one --------------------------------------

def test_every_differentiable_op_has_a_formula():
    from teachtorch._dispatch_key import Autograd, CompositeImplicitAutograd
    from teachtorch.autograd.derivative import NO_FORMULA
    from teachtorch.autograd.variable_type import _NON_DIFFERENTIABLE
    from teachtorch.dispatch.dispatcher import OPERATORS
    missing = set()
    for name, op in OPERATORS.items():
        s = op.schema
        if not name.startswith("aten::") or CompositeImplicitAutograd in op.kernels or Autograd in op.kernels:
            continue
        if name in _NON_DIFFERENTIABLE or not any(a.is_tensor for a in s.arguments):
            continue
        if any(a.kwarg_only and a.is_mutable for a in s.arguments):      # out= variants refuse autograd
            continue
        missing.add(s.full_name)
    # an op without a formula is declared with its reason (`no_formula(...)` in autograd/derivatives/)
    assert missing == set(NO_FORMULA)


# ---- parity corners (issue 14) -----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float64", "float16", "int64", "int32"])
@pytest.mark.parametrize("api", ["backward", "grad"])
def test_grad_outputs_of_another_real_dtype_are_cast_like_torch(api, dtype, layout):
    """A gradient of another real dtype is cast to the output's dtype (only complex against real is refused)."""
    gp = rand(3, 4, dtype=dtype, layout=layout, seed=2)

    def run(lib):
        x = leaf(lib, np.arange(12.0).reshape(3, 4) / 7)
        y = x.sin() * 3
        g = gp.build(lib)
        if api == "backward":
            y.backward(g)
            return x.grad
        return lib.autograd.grad(y, x, g)[0]
    same(run)


def _batched_case(lib, case, gp):
    x = leaf(lib, [0.5, -1.0, 2.0])
    w = leaf(lib, [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]])
    g = gp.build(lib)                            # (4, 3, 2): a batch of 4
    gx, gx2, gw = g[:, :, 0], g[:, :, 1], g[:, 0, :]   # (4, 3), (4, 3), (4, 2)
    if case == "vector":
        return lib.autograd.grad(x.exp() * x, x, gx, is_grads_batched=True)
    if case == "matrix_two_inputs":
        return lib.autograd.grad(w @ x.sin(), [x, w], gw, is_grads_batched=True)
    if case == "two_outputs":
        return lib.autograd.grad([x * 2, (w * w).sum(1)], [x, w], [gx, gw], is_grads_batched=True)
    if case == "create_graph":
        (first,) = lib.autograd.grad(x ** 3, x, gx, is_grads_batched=True, create_graph=True)
        return first, lib.autograd.grad(first.sum(), x)[0]
    if case == "allow_unused":
        return lib.autograd.grad(x * 3, [x, w], gx2, is_grads_batched=True, allow_unused=True)
    if case == "materialize":
        return lib.autograd.grad(x * 3, [x, w], gx2, is_grads_batched=True, materialize_grads=True)
    if case == "unused_refused":
        return lib.autograd.grad(x * 3, [x, w], gx2, is_grads_batched=True)
    if case == "bad_shape":
        return lib.autograd.grad(x * 3, x, g, is_grads_batched=True)
    if case == "bad_shape_2d":
        return lib.autograd.grad(x * 3, x, gw, is_grads_batched=True)
    if case == "scalar_output_implicit":
        return lib.autograd.grad((x * 3).sum(), x, None, is_grads_batched=True)
    if case == "empty_batch":
        return lib.autograd.grad(x * 3, x, gx[:0], is_grads_batched=True)
    if case == "zero_dim_grad":
        return lib.autograd.grad((x * 3).sum(), x, g.sum(), is_grads_batched=True)
    if case == "batch_sizes_differ":
        return lib.autograd.grad([x * 2, x * 3], x, [gx, gx2[:2]], is_grads_batched=True)
    if case == "retain_graph":
        y = x.exp()
        first = lib.autograd.grad(y, x, gx, is_grads_batched=True)
        return first, lib.autograd.grad(y, x, gx2, is_grads_batched=True)   # freed: refused
    raise AssertionError(case)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
@pytest.mark.parametrize("case", ["vector", "matrix_two_inputs", "two_outputs", "create_graph", "allow_unused",
                                  "materialize", "unused_refused", "bad_shape", "bad_shape_2d",
                                  "scalar_output_implicit", "empty_batch", "zero_dim_grad",
                                  "batch_sizes_differ", "retain_graph"])
def test_grad_is_grads_batched_like_torch(case, layout):
    """`is_grads_batched=True`: PyTorch vmaps over dim 0 of each grad_output, we loop; same results and errors."""
    gp = rand(4, 3, 2, layout=layout, seed=3)
    got, expected = both(lambda lib: _batched_case(lib, case, gp))
    if not isinstance(expected, Exception):
        # (values, dtypes and shapes; not strides: under vmap they follow where the batch dim lies in memory)
        assert_same(got, expected, strides=False)


def test_anomaly_flags_like_torch():
    def run(lib):
        seen = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.detect_anomaly(check_nan=False):
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.set_detect_anomaly(True):
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        return seen + [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (detect_anomaly warns that it is slow)
        got, expected = both(run)
    assert got == expected


@pytest.mark.parametrize("case", ["requires_grad_", "attribute", "false", "inside", "inside_then_outside",
                                  "view", "integer"])
def test_requires_grad_on_an_inference_tensor_like_torch(case):
    def run(lib):
        with lib.inference_mode():
            t = lib.ones(2, 3) if case != "integer" else lib.ones(2, dtype=lib.int64)
            if case in ("inside", "inside_then_outside"):
                t.requires_grad_()
        if case in ("requires_grad_", "integer"):
            t.requires_grad_()
        elif case == "attribute":
            t.requires_grad = True
        elif case == "false":
            t.requires_grad_(False)
        elif case == "inside_then_outside":
            t.requires_grad_()
        elif case == "view":
            t = t[:, 1:].requires_grad_()          # (a view of an inference tensor is one too)
        return t.requires_grad, t.is_inference()
    got, expected = both(run)
    if not isinstance(expected, Exception):
        assert got == expected


def _custom_functions(lib):
    class ViewInside(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoViews(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:1], x[1:]

        @staticmethod
        def backward(ctx, g, h):
            return lib.cat([g, h])

    class DirtyNotReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            y.add_(1)
            ctx.mark_dirty(y)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g, None

    class DirtyNotAnInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            z = x.clone()
            ctx.mark_dirty(z)
            return z

        @staticmethod
        def backward(ctx, g):
            return g

    class DirtyReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            y.mul_(2)
            ctx.mark_dirty(y)
            return x * 1, y

        @staticmethod
        def backward(ctx, g, h):
            return g, h * 2

    return ViewInside, Identity, TwoViews, DirtyNotReturned, DirtyNotAnInput, DirtyReturned


@pytest.mark.parametrize("case", ["view_inside", "input_as_is", "leaf_as_is", "base_modified", "view_of_view",
                                  "two_outputs", "no_grad", "no_grad_needed", "input_view_unrecorded",
                                  "dirty_returned_then_inplace"])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_inplace_on_a_view_returned_by_a_custom_function_like_torch(case, layout):
    """The error names the custom Function; a view of such a view inherits the rule."""
    xp = rand(3, 4, layout=layout, seed=4)

    def run(lib):
        view_inside, identity, two_views, _, _, dirty_returned = _custom_functions(lib)
        x = xp.build(lib).requires_grad_()
        base = x * 1
        if case == "view_inside":
            y = view_inside.apply(base).mul_(2)
        elif case == "input_as_is":
            y = identity.apply(base).mul_(2)
        elif case == "leaf_as_is":
            y = identity.apply(x).mul_(2)
        elif case == "base_modified":
            y = view_inside.apply(base)
            base.mul_(2)
            return y.grad_fn
        elif case == "view_of_view":
            y = view_inside.apply(base)[1:].mul_(2)
        elif case == "two_outputs":
            y = two_views.apply(base)[0].mul_(2)
        elif case == "no_grad":
            with lib.no_grad():
                y = view_inside.apply(base)
            y.mul_(2)
        elif case == "no_grad_needed":
            y = view_inside.apply(base.detach()).mul_(2)
        elif case == "input_view_unrecorded":
            with lib.no_grad():
                v = base[1:]
                identity.apply(v)              # must not change the rules for the caller's own view `v`
            y = v.mul_(x[1:])
        else:
            _, y = dirty_returned.apply(base, base.detach().clone())
            y.mul_(2)
            y.sum().backward()
            return x.grad
        return y
    got, expected = both(run)
    if isinstance(expected, torch.Tensor):
        assert_same(got, expected)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "nothing_requires_grad"])
def test_mark_dirty_on_an_input_not_returned_like_torch(mode):
    def run(lib):
        _, _, _, dirty_not_returned, _, _ = _custom_functions(lib)
        x = lib.ones(2, requires_grad=mode != "nothing_requires_grad")
        if mode == "no_grad":
            with lib.no_grad():
                return dirty_not_returned.apply(x, lib.ones(2))
        return dirty_not_returned.apply(x, lib.ones(2))
    both(run)


def test_mark_dirty_on_a_tensor_that_is_not_an_input_warns_like_torch():
    for lib in (torch, tt):
        dirty_not_an_input = _custom_functions(lib)[4]
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match=r"ctx\.mark_dirty\(\) received a tensor that was not an input\. "
                                             r"Only input Tensors that have been mutated should be passed"):
            y = dirty_not_an_input.apply(x)
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]
