"""Lesson 4's checks tell the truth about PyTorch: every case's expected answer (computed with teachtorch's ops)
is what PyTorch itself gives on the same views, error messages included; and `Strided` reads and rebuilds a
tensor's view exactly."""

import math

import pytest

import teachtorch as tt
from teachtorch._strides import contiguous_strides
from teachtorch.exercises import EXERCISES
from teachtorch.exercises.lesson04 import Strided

torch = pytest.importorskip("torch")


def _torch_view(s):
    return torch.tensor(s.storage, dtype=torch.float64).as_strided(s.shape, s.strides, s.offset)


def _torch_out(s):
    base = torch.tensor(s.storage, dtype=torch.float64)
    return base, base.as_strided(s.shape, s.strides, s.offset)


def _same(expected, got):
    return len(expected) == len(got) and all(
        (math.isnan(e) and math.isnan(g)) or math.isclose(e, g, rel_tol=1e-12) for e, g in zip(expected, got))


def _cases(name):
    return list(EXERCISES[name].cases())


@pytest.mark.parametrize("case, args, expected", _cases("L04.strided_map"), ids=lambda v: v if isinstance(v, str) else "")
def test_map_cases_are_pytorchs_answers(case, args, expected):
    fn, out, a = args
    base, view = _torch_out(out)
    getattr(torch, fn.name)(_torch_view(a), out=view)
    assert _same(expected, base.tolist()), case


@pytest.mark.parametrize("case, args, expected", _cases("L04.strided_sum"), ids=lambda v: v if isinstance(v, str) else "")
def test_sum_cases_are_pytorchs_answers(case, args, expected):
    a, dim, keepdim = args
    r = _torch_view(a).sum(dim, keepdim=keepdim)
    assert expected == (r.reshape(-1).tolist(), tuple(r.shape), r.stride(), r.storage_offset()), case


@pytest.mark.parametrize("case, args, expected", _cases("L04.strided_zip"), ids=lambda v: v if isinstance(v, str) else "")
def test_zip_cases_are_pytorchs_answers_and_errors(case, args, expected):
    fn, out, a, b = args
    base, view = _torch_out(out)
    try:
        getattr(torch, fn.name)(_torch_view(a), _torch_view(b), out=view)
        got = (None, None)
    except RuntimeError as e:
        got = ("RuntimeError", str(e))
    assert expected[:2] == got, case
    assert _same(expected[2], base.tolist()), case       # nothing written when it raised


def test_zip_cases_raise_often_and_on_several_dims():
    errors = [expected[1] for _, _, expected in _cases("L04.strided_zip") if expected[0]]
    assert len(errors) >= 8
    assert {e[-1] for e in errors} >= {"0", "1"}


def test_strided_reads_and_rebuilds_a_view():
    x = tt.arange(24.).reshape(4, 6)
    v = x[1:, ::2].t()
    s = Strided.of(v)
    assert s.storage == list(range(24)) and (s.shape, s.strides, s.offset) == ((3, 3), (2, 6), 6)
    assert s.tensor().tolist() == v.tolist() and s.tensor().stride() == v.stride()
    assert "shape=(3, 3), strides=(2, 6), offset=6" in repr(s) and "... 24 numbers" in repr(s)


def test_random_layouts_cover_what_the_lesson_promises():
    views = [args[2] for _, args, _ in _cases("L04.strided_map")[3:]] + \
            [args[0] for _, args, _ in _cases("L04.strided_sum")[4:]]
    assert any(0 in v.strides for v in views)                                     # expanded
    assert any(v.offset > 0 for v in views)                                       # offset
    assert any(list(v.strides) != sorted(v.strides, reverse=True) for v in views)  # permuted
    assert sum(tuple(v.strides) != contiguous_strides(v.shape) for v in views) > len(views) // 2
