"""Lesson 5 (how an op is dispatched): its exercises' model matches the real dispatcher, its check cleans up
after itself, the lesson's registration cells run again in the same kernel, and what the lesson says about
PyTorch is true of the installed PyTorch."""

from pathlib import Path

import numpy as np
import pytest
import torch

import teachtorch as tt
from teachtorch.dispatch import dispatcher
from teachtorch.exercises import EXERCISES, check, course
from teachtorch.exercises import lesson05

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "05_dispatch.py"


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return space[name.split(".")[1]]


def _keys(fn):
    with tt.dispatch.trace() as t:
        fn()
    return [e.key for e in t.events if e.depth == 0 or t.event(e.parent).op == e.op]


def test_the_known_paths_are_what_real_calls_do():
    a, b = tt.ones(3, requires_grad=True), tt.ones(3)
    (add_case, add_path), (add__case, add__path) = lesson05._PATH_KNOWN[:2]
    assert _keys(lambda: a + b) == add_path == lesson05._dispatch_path(*add_case)
    c = a + b
    assert _keys(lambda: c.add_(b)) == add__path == lesson05._dispatch_path(*add__case)
    assert _keys(lambda: tt.zeros(3)) == lesson05._PATH_KNOWN[4][1]
    assert _keys(lambda: a.reshape(3, 1))[0] == "AutogradCPU"      # the math kernel; its view op follows


def test_the_register_check_leaves_nothing_behind_and_runs_again():
    solution = _solved("L05.register_axpby")
    for _ in range(2):
        assert check("L05.register_axpby", solution).passed
        assert not [n for n in dispatcher.OPERATORS if n.startswith(lesson05._CHECK_NS + "::")]
    assert not any(n.startswith(lesson05._SCRATCH) for n in dispatcher.OPERATORS)


def test_an_answer_that_fails_halfway_is_cleaned_up_too():
    def broken(lib):
        lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
        tt.library.define(f"{lib.ns}::other", "(Tensor x) -> Tensor")     # outside the Library's bookkeeping
        raise ValueError("oops")
    assert check("L05.register_axpby", broken).status == "error"
    assert not [n for n in dispatcher.OPERATORS if n.startswith(lesson05._CHECK_NS + "::")]
    assert check("L05.register_axpby", _solved("L05.register_axpby")).passed


def test_the_lesson_runs_twice_in_one_kernel(tmp_path):
    from nbclient import NotebookClient
    _, teacher = course.notebooks(LESSON)
    code = [c for c in teacher.cells if c.cell_type == "code"]
    teacher.cells = teacher.cells + [type(c)(c) for c in code]        # every cell again, in the same kernel
    NotebookClient(teacher, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in teacher.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    assert text.count("✓ L05.register_axpby: passed") == 2 and text.count("✓ L05.dispatch_path: passed") == 2
    assert text.count("ScaleBackward") == 2 and text.count("mine.axpby.default") == 2


# ---- what the lesson says about PyTorch ------------------------------------------------------------------


def test_schemas_and_keys_are_pytorchs():
    for name in ("add.Tensor", "add_.Tensor", "transpose.int"):
        ours = tt.dispatch.lookup(name).schema
        overload = getattr(getattr(torch.ops.aten, name.split(".")[0]), name.split(".")[1])
        assert str(overload._schema) == f"aten::{ours}"
    keys = str(torch._C._dispatch_keys(torch.ones(3)))
    assert keys == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert set(tt.dispatch.keys_of(tt.ones(3))) <= set(keys[len("DispatchKeySet("):-1].split(", "))


def _torch_axpby(lib, op):
    """The lesson's registration, written for PyTorch as the lesson says it reads there."""
    def axpby_kernel(x, y, alpha, beta):
        return alpha * x + beta * y

    class Axpby(torch.autograd.Function):
        @staticmethod
        def forward(ctx, ks, x, y, alpha, beta):
            ctx.alpha, ctx.beta = alpha, beta
            return op.redispatch(ks & torch._C._after_autograd_keyset, x, y, alpha, beta)

        @staticmethod
        def backward(ctx, grad):
            return None, grad * ctx.alpha, grad * ctx.beta, None, None

    def axpby_autograd(ks, x, y, alpha, beta):
        return Axpby.apply(ks, x, y, alpha, beta)

    lib.impl("axpby", axpby_kernel, "CPU")
    lib.impl("axpby", lambda x, y, alpha, beta: torch.empty_like(x), "Meta")
    lib.impl("axpby", axpby_autograd, "Autograd", with_keyset=True)


def test_the_same_registration_works_in_pytorch():
    lib = torch.library.Library("teachtorch_l05", "DEF")
    try:
        lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
        op = torch.ops.teachtorch_l05.axpby.default
        _torch_axpby(lib, op)
        with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
            torch.library.Library("teachtorch_l05", "DEF")
        args = lesson05._random_axpby_case(np.random.default_rng(0))
        expected = lesson05._axpby_expected(*args)
        xa, ya, ga = lesson05._inputs(args[0], args[3])
        x, y = torch.tensor(xa, requires_grad=True), torch.tensor(ya, requires_grad=True)
        z = op(x, y, args[1], args[2])
        z.backward(torch.tensor(ga))
        assert type(z.grad_fn).__name__ == "AxpbyBackward"
        np.testing.assert_allclose(z.detach().numpy(), expected.value.numpy(), rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), expected.x_grad.numpy(), rtol=1e-6)
        np.testing.assert_allclose(y.grad.numpy(), expected.y_grad.numpy(), rtol=1e-6)
        meta = op(torch.empty(args[0], device="meta"), torch.empty(args[0], device="meta"), 1.0, 2.0)
        assert (tuple(meta.shape), meta.device.type) == expected.meta
        assert torch._C._dispatch_dump_table("teachtorch_l05::axpby").startswith("CPU: ")
    finally:
        lib._destroy()
    torch.library.Library("teachtorch_l05", "DEF")._destroy()      # destroyed: the namespace is free again
