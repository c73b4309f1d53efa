"""Lesson 10's checks name the wrong tensor, catch the naive softmax, and what the lesson says about
PyTorch (overflow, log_softmax, the biased variance of layer_norm and batch_norm) is true in PyTorch."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import teachtorch as tt
import teachtorch.nn.functional as F
from teachtorch.exercises import EXERCISES, check, course
from teachtorch.exercises.lesson10 import cmp_line

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson10 as wrong  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "10_backprop.py"


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return next(v for k, v in space.items() if callable(v) and not k.startswith("__"))


def test_the_lesson_checks_three_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == [
        "L10.cross_entropy_backward", "L10.linear_tanh_backward", "L10.layernorm_backward"]
    assert len(course.solution_blocks(source)) == 3


def test_the_report_names_the_wrong_tensor():
    result = check("L10.linear_tanh_backward", wrong.lt_db_not_summed)
    assert result.got == ("dx: matches autograd", "dW: matches autograd",
                          "db: shape (1, 2), but autograd's db has shape (2,)")
    result = check("L10.layernorm_backward", wrong.ln_constant_stats)
    assert result.got[0].startswith("dx: maxdiff") and result.got[1:] == (
        "dgamma: matches autograd", "dbeta: matches autograd")
    result = check("L10.cross_entropy_backward", wrong.ce_no_mean)
    assert "autograd gives -0.25, you gave -0.5" in result.got[0]


def test_the_naive_softmax_fails_only_on_the_large_logits():
    result = check("L10.cross_entropy_backward", wrong.ce_naive_softmax)
    assert result.case == "known case 3" and "you gave nan" in result.got[0]


def test_cmp_line_says_exact_shape_and_nan():
    a = tt.tensor([[1.0, 2.0]], dtype=tt.float64)
    assert cmp_line("dW", a.clone(), a) == "dW: matches autograd"
    assert cmp_line("dW", a.T, a) == "dW: shape (2, 1), but autograd's dW has shape (1, 2)"
    assert cmp_line("dW", tt.tensor([[1.0, float("nan")]], dtype=tt.float64), a).startswith("dW: maxdiff inf")
    assert cmp_line("dW", a.float(), a) == "dW: dtype torch.float32, but autograd's is torch.float64"


def test_the_solutions_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, gamma, beta, dout = (rng.standard_normal(s) for s in ((4, 6), (6,), (6,), (4, 6)))
    tx, tg, tb = (torch.tensor(v, requires_grad=True) for v in (x, gamma, beta))
    torch.nn.functional.layer_norm(tx, (6,), tg, tb, 1e-5).backward(torch.tensor(dout))
    mine = _solved("L10.layernorm_backward")(*(tt.tensor(v) for v in (dout, x, gamma)), 1e-5)
    for got, want in zip(mine, (tx.grad, tg.grad, tb.grad)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    logits, targets = rng.standard_normal((5, 3)) * 50, rng.integers(0, 3, 5)
    tl = torch.tensor(logits, requires_grad=True)
    torch.nn.functional.cross_entropy(tl, torch.tensor(targets)).backward()
    got = _solved("L10.cross_entropy_backward")(tt.tensor(logits), tt.tensor(targets))
    np.testing.assert_allclose(got.numpy(), tl.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_what_section_3_says_is_what_pytorch_prints():
    torch = pytest.importorskip("torch")
    for lib, fn in ((torch, torch.nn.functional), (tt, F)):
        z = lib.tensor([[100.0, 99.0, 90.0]])
        e = z.exp()
        assert bool(e.isinf().all()) and bool((e / e.sum(1, keepdim=True)).isnan().all())
        assert abs(lib.logsumexp(z, 1).item() - 100.3133) < 1e-4
        z2 = lib.tensor([[0.0, -200.0]])
        assert fn.softmax(z2, 1).log()[0, 1].item() == float("-inf")
        assert fn.log_softmax(z2, 1).tolist() == [[0.0, -200.0]]


def test_batch_norm_trains_with_the_biased_variance_in_pytorch():
    torch = pytest.importorskip("torch")
    x = torch.randn(8, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = torch.nn.functional.batch_norm(x, None, None, training=True, eps=1e-5)
    want = (x - x.mean(0)) / (x.var(0, correction=0) + 1e-5).sqrt()
    assert torch.allclose(out, want)
