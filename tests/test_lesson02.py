"""Lesson 2's exercises say what PyTorch does: the quiz's answers and the geometry of every case that the
permute / getitem / expand checks expect are compared with torch (the tests' oracle); and the random cases
alone, without the fixed ones, still reject every wrong answer in tests/wrong_answers/lesson02.py."""

import dataclasses

import numpy as np
import pytest
import torch

from teachtorch.exercises import lesson02
from teachtorch.exercises.core import run_check
from wrong_answers.lesson02 import WRONG

EXERCISES = {e.name: e for e in lesson02.EXERCISES}


def _torch_input(sizes, strides, offset):
    last = offset + sum((n - 1) * s for n, s in zip(sizes, strides)) if 0 not in sizes else offset
    return torch.arange(last + 4).as_strided(sizes, strides, offset)


TORCH_OPS = {"L02.permute": lambda x, dims: x.permute(tuple(dims)),
             "L02.getitem": lambda x, index: x[tuple(index)],
             "L02.expand": lambda x, new_sizes: x.expand(tuple(new_sizes))}


def _torch_geometry(name, args):
    x = _torch_input(*args[:3])
    try:
        v = TORCH_OPS[name](x, args[3])
    except RuntimeError:
        return lesson02.ERROR
    strides = v.stride()
    if name == "L02.expand":                  # the check ignores the strides of size-1 dims
        strides = tuple(None if n == 1 else s for n, s in zip(v.shape, strides))
    return tuple(v.shape), strides, v.storage_offset(), v.tolist()


@pytest.mark.parametrize("name", sorted(TORCH_OPS))
def test_every_expected_view_is_the_one_pytorch_makes(name):
    for case, args, expected in EXERCISES[name].cases():
        want = _torch_geometry(name, args)
        assert (expected if expected == lesson02.ERROR else expected[:4]) == want, (case, args)
        assert expected == lesson02.ERROR or expected[4] is True      # the library's op made no copy


def test_the_expand_cases_include_refusals():
    refused = [case for case, _, expected in EXERCISES["L02.expand"].cases() if expected == lesson02.ERROR]
    assert any(case.startswith("random") for case in refused) and len(refused) < 12


def test_the_quiz_answers_are_pytorchs():
    x, y = torch.arange(24.).reshape(2, 3, 4), torch.arange(3.).reshape(3, 1)
    for question in lesson02.QUIZ:
        view = eval(question, {"x": x, "y": y})                       # the question is a PyTorch expression
        assert lesson02.quiz_answer(question) == (view.stride(), view.storage_offset()), question


@pytest.mark.parametrize("name, wrong", [(n, w) for n, ws in WRONG.items() if n != "L02.predict_strides"
                                         for w in ws], ids=lambda v: getattr(v, "__name__", v))
def test_the_random_cases_alone_reject_each_wrong_answer(name, wrong):
    random_only = dataclasses.replace(EXERCISES[name], known=[])
    assert run_check(random_only, wrong, "").status == "failed"


def test_a_view_outside_the_storage_is_reported_not_raised():
    def too_far(sizes, strides, offset, dims):
        return tuple(sizes[d] for d in dims), tuple(100 for _ in dims), offset
    result = run_check(EXERCISES["L02.permute"], too_far, "")
    assert result.status == "failed" and "as_strided cannot build this view" in result.report()


def test_random_inputs_are_mostly_views_not_fresh_tensors():
    rng = np.random.default_rng(0)
    inputs = [lesson02._random_view(rng) for _ in range(100)]
    fresh = [s for s in inputs if s[2] == 0 and s[1] == lesson02._input(*s).contiguous().stride()]
    assert len(fresh) < 50 and any(offset > 0 for _, _, offset in inputs)
