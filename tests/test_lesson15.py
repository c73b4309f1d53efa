"""Lesson 15's references agree with PyTorch 2.13, and its checks catch what they say they do."""

import math
import re
import sys
from pathlib import Path

import numpy as np
import torch

import teachtorch as tt
from teachtorch.exercises import EXERCISES, check, course

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson15 as wrong  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "15_transformer.py"


def _torch(t):
    return None if t is None else torch.from_numpy(t.numpy().copy())


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return space[name.split(".")[1]]


def test_the_lesson_checks_two_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == ["L15.causal_mask", "L15.attention"]
    assert len(course.solution_blocks(source)) == 2


def test_the_causal_mask_is_torchs_is_causal_convention():
    for _, (T,), expected in EXERCISES["L15.causal_mask"].cases():
        assert expected.dtype == tt.bool and tuple(expected.shape) == (T, T)
        assert np.array_equal(expected.numpy(), torch.ones(T, T, dtype=torch.bool).tril().numpy())
        # as a bool attn_mask (True = takes part) it is exactly is_causal=True
        q, k, v = (torch.randn(2, T, 4, dtype=torch.float64) for _ in range(3))
        by_mask = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=_torch(expected))
        by_flag = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.testing.assert_close(by_mask, by_flag)


def test_the_attention_reference_is_torchs_sdpa_values_and_gradients():
    for _, (case,), expected in EXERCISES["L15.attention"].cases():
        q, k, v = (_torch(t).requires_grad_(True) for t in (case.q, case.k, case.v))
        if case.causal:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=_torch(case.mask))
        np.testing.assert_allclose(expected.numpy(), out.detach().numpy(), rtol=1e-10, atol=1e-12)
        # the lesson's solution, through teachtorch's autograd, has torch's gradients
        grad = torch.randn(out.shape, dtype=torch.float64)
        out.backward(grad)
        leaves = [t.detach().clone().requires_grad_(True) for t in (case.q, case.k, case.v)]
        mine = _solved("L15.attention")(*leaves, case.mask)
        mine.backward(tt.from_numpy(grad.numpy()))
        for a, b in zip(leaves, (q, k, v)):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_the_known_cases_are_the_running_mean_and_a_hand_computed_softmax():
    cases = list(EXERCISES["L15.attention"].cases())
    assert cases[1][2].tolist() == [[1.0, 0.0], [1.5, 0.0], [2.0, 2.0]]      # causal, equal scores: running means
    e = math.exp(4 / math.sqrt(2))
    assert abs(cases[2][2][0, 0].item() - (e + 100) / (e + 1)) < 1e-12


def test_the_random_cases_cover_what_the_wrong_answers_get_wrong():
    cases = [c for _, (c,), _ in EXERCISES["L15.attention"].cases()]
    assert any(c.q.shape[-2] != c.k.shape[-2] for c in cases)                  # Tq != Tk
    assert any(c.v.shape[-1] != c.q.shape[-1] for c in cases)                  # dv != d
    assert any(c.q.dim() == 4 for c in cases) and any(c.q.dim() == 2 for c in cases)
    assert any(c.causal for c in cases) and any(c.mask is not None and not c.causal for c in cases)
    assert sum(sum(t.numel() for t in (c.q, c.k, c.v)) <= 150 for c in cases) >= 10   # gradchecked
    assert "gradient for q" in check("L15.attention", wrong.attention_through_numpy).report()
    assert "dtype torch.bool" in check("L15.causal_mask", wrong.mask_as_floats).report()


def test_the_solutions_train_the_lessons_model_shapes():
    mask = _solved("L15.causal_mask")(12)
    q, k, v = (tt.randn(8, 4, 12, 12) for _ in range(3))
    got = _solved("L15.attention")(q, k, v, mask)
    want = tt.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert tt.allclose(got, want, atol=1e-5)
