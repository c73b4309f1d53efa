"""Lesson 12's references agree with PyTorch and with plain loops, and its checks catch what they say they do."""

import re
import sys
from pathlib import Path

import numpy as np
import torch

import teachtorch as tt
from teachtorch.exercises import EXERCISES, check, course

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson12 as wrong  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "12_digits.py"


def _torch(t):
    return None if t is None else torch.from_numpy(t.numpy().copy())


def test_the_lesson_checks_three_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == [
        "L12.window_view", "L12.conv2d_as_strided", "L12.confusion_matrix"]
    assert len(course.solution_blocks(source)) == 3


def test_the_window_view_is_torchs_unfold_on_every_case():
    for _, (x, kh, kw, stride), (expected, shares) in EXERCISES["L12.window_view"].cases():
        xt = torch.from_numpy(x.numpy().copy())
        unfolded = xt.unfold(2, kh, stride).unfold(3, kw, stride)
        assert shares and np.array_equal(expected.numpy(), unfolded.numpy())


def test_the_conv_reference_is_torchs_conv2d_and_the_loops():
    for _, (x, w, b, stride, padding), expected in EXERCISES["L12.conv2d_as_strided"].cases():
        want = torch.nn.functional.conv2d(_torch(x), _torch(w), _torch(b), stride=stride, padding=padding)
        np.testing.assert_allclose(expected.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
        xp = np.pad(x.numpy(), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
        wn = w.numpy()
        for n, o, i, j in [(0, 0, 0, 0), tuple(s - 1 for s in expected.shape)]:
            window = xp[n, :, i * stride:i * stride + wn.shape[2], j * stride:j * stride + wn.shape[3]]
            value = (window * wn[o]).sum() + (0.0 if b is None else float(b[o]))
            assert abs(float(expected[n, o, i, j]) - value) < 1e-9


def test_the_confusion_reference_counts_as_a_loop_does():
    for _, (pred, target, n), expected in EXERCISES["L12.confusion_matrix"].cases():
        counts = np.zeros((n, n))
        for p, t in zip(pred.tolist(), target.tolist()):
            counts[t, p] += 1
        assert np.array_equal(expected, counts)


def test_a_copy_of_the_windows_fails_only_on_sharing():
    result = check("L12.window_view", wrong.window_copied)
    assert result.status == "failed" and result.got[1] is False and "item 1 differs" in result.report()


def test_the_random_cases_cover_what_the_wrong_answers_get_wrong():
    convs = [args for _, args, _ in EXERCISES["L12.conv2d_as_strided"].cases()]
    assert {a[3] for a in convs} == {1, 2} and {a[4] for a in convs} >= {0, 1, 2}
    assert any(a[0].shape[1] > 1 for a in convs) and any(a[2] is None for a in convs)
    views = [args[0] for _, args, _ in EXERCISES["L12.window_view"].cases()]
    assert any(not v.is_contiguous() for v in views) and any(v.storage_offset() for v in views)
    for name in ("window_stride_forgotten", "window_assumes_contiguous", "window_offset_zero"):
        assert check("L12.window_view", getattr(wrong, name)).case.startswith(("known", "random"))


def test_the_students_functions_work_on_the_digits():
    ns = {}
    exec(EXERCISES["L12.conv2d_as_strided"].solution, ns)
    x = tt.datasets.load_digits()[0][:4]
    w, b = tt.randn(5, 1, 3, 3), tt.randn(5)
    assert tt.allclose(ns["conv2d_as_strided"](x, w, b, 1, 1), tt.nn.functional.conv2d(x, w, b, padding=1), atol=1e-5)
