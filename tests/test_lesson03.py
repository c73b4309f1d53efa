"""Lesson 3's checks say what PyTorch does: every case's expected answer (the loop specs, the broadcast rule)
is PyTorch's own answer on the same inputs; and the specs the lesson shows are the specs the checks run."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from teachtorch.exercises import EXERCISES
from teachtorch.exercises import lesson03

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "03_broadcasting.py"


def _torch(t):
    return torch.from_numpy(t.numpy().copy())          # a teachtorch tensor as a torch one (int64 or bool)


def _compress(g, v):
    kept = v[g]
    return torch.cat([kept, torch.zeros(len(v) - len(kept), dtype=v.dtype)])


TORCH = {
    "L03.ones": lambda n: torch.ones(n, dtype=torch.int64),
    "L03.outer": torch.outer,
    "L03.eye": lambda n: torch.eye(n, dtype=torch.int64),
    "L03.triu": lambda n: torch.triu(torch.ones(n, n, dtype=torch.int64)),
    "L03.cumsum": lambda a: torch.cumsum(a, 0),
    "L03.diff": lambda a: torch.diff(a, prepend=torch.zeros(1, dtype=a.dtype)),
    "L03.roll": torch.roll,
    "L03.flip": torch.fliplr,
    "L03.compress": _compress,
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_every_puzzle_case_is_what_pytorch_computes(name):
    for case, args, expected in EXERCISES[name].cases():
        torch_args = [_torch(a) if hasattr(a, "tolist") else a for a in args]
        np.testing.assert_array_equal(expected, TORCH[name](*torch_args).numpy(), err_msg=f"{name} {case}")


def test_every_broadcast_case_is_what_pytorch_says():
    cases = list(EXERCISES["L03.broadcast_shape"].cases())
    errors = 0
    for case, (a, b), expected in cases:
        try:
            got = tuple((torch.zeros(a) + torch.zeros(b)).shape)
        except RuntimeError as e:
            got, errors = f"RuntimeError: {e}", errors + 1
        assert got == expected, (case, a, b)
    assert 5 <= errors <= len(cases) - 10                     # both outcomes are tried, often


def _lesson_code_blocks():
    """The ```python blocks of the lesson's markdown cells, as code."""
    text = LESSON.read_text()
    blocks = re.findall(r"^# ```python\n(.*?)^# ```$", text, flags=re.M | re.S)
    return ["\n".join(line[2:] for line in b.splitlines()) for b in blocks]


def test_the_lesson_shows_the_specs_the_checks_run():
    shown = _lesson_code_blocks()
    assert shown == [inspect.getsource(spec).rstrip("\n") for spec in lesson03.SPECS.values()]


def test_the_lesson_checks_every_exercise_of_lesson_3_in_order():
    checked = re.findall(r'^check\("([^"]+)"', LESSON.read_text(), flags=re.M)
    assert checked == [e.name for e in lesson03.EXERCISES]
