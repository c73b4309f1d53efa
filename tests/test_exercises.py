"""teachtorch.exercises: every check accepts a right answer, rejects plausible wrong ones (a check that
cannot fail is a defect), reports "not solved yet" for the student notebook's stub, and says what went
wrong in words; hints come in order; solutions only in teacher mode."""

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import teachtorch as tt
from teachtorch import exercises
from teachtorch.exercises import EXERCISES, check, hint, solution, teacher_mode
from teachtorch.exercises.compare import compare

sys.path.insert(0, str(Path(__file__).parent))


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return next(v for k, v in space.items() if callable(v) and not k.startswith("__"))


def stub(*args):
    raise NotImplementedError("your turn: write this function")


# ---- the wrong answers each check must reject: tests/wrong_answers/lessonNN.py, a WRONG dict each ----------

def _wrong_answers():
    found = {}
    for path in sorted((Path(__file__).parent / "wrong_answers").glob("lesson*.py")):
        module = importlib.import_module(f"wrong_answers.{path.stem}")
        found.update(module.WRONG)
    return found


WRONG = _wrong_answers()


def test_every_exercise_has_wrong_answers_here():
    assert set(WRONG) == set(EXERCISES) and all(len(w) >= 2 for w in WRONG.values())


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_solution_passes_every_case(name):
    result = check(name, _solved(name))
    assert result.passed, result.report()
    assert result.cases == len(EXERCISES[name].known) + exercises.core.RANDOM_CASES
    assert "passed" in result.report() and "tt-check-passed" in result._repr_html_()


@pytest.mark.parametrize("name, wrong", [(n, w) for n, ws in WRONG.items() for w in ws],
                         ids=lambda v: getattr(v, "__name__", v))
def test_plausible_wrong_answers_are_rejected_with_a_useful_report(name, wrong):
    result = check(name, wrong)
    assert result.status == "failed" and not result
    report = result.report()
    assert "expected:" in report and "got:" in report and "hint:" in report and result.case in report


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_students_stub_is_not_solved_yet_not_an_error(name):
    result = check(name, stub)
    assert result.status == "not solved yet" and "not solved yet" in result.report()


def test_an_answer_that_raises_is_reported_with_its_line():
    def broken(shape):
        return tuple(shape[5] for _ in shape)      # IndexError on the first case
    result = check("L01.contiguous_strides", broken)
    assert result.status == "error" and "IndexError" in result.report() and "shape[5]" in result.report()


def test_checks_are_deterministic():
    a, b = check("L01.index_to_offset", WRONG["L01.index_to_offset"][1]), check("L01.index_to_offset", WRONG["L01.index_to_offset"][1])
    assert a.report() == b.report()


def test_hints_come_in_order_and_stop_at_the_last():
    name = "L01.index_to_offset"
    n = len(EXERCISES[name].hints)
    exercises._hints_given.pop(name, None)
    given = [hint(name) for _ in range(n + 1)]
    assert [g.split(":")[0] for g in given] == [f"hint {k} of {n}" for k in range(1, n + 1)] + [f"hint {n} of {n}"]
    assert hint(name, level=1) == given[0]


def test_solutions_are_for_teacher_mode_only(monkeypatch):
    monkeypatch.delenv("TEACHTORCH_TEACHER", raising=False)
    monkeypatch.setattr(exercises, "_teacher", None)
    with pytest.raises(PermissionError, match="teacher mode"):
        solution("L01.contiguous_strides")
    monkeypatch.setenv("TEACHTORCH_TEACHER", "1")
    assert "def contiguous_strides" in solution("L01.contiguous_strides")
    teacher_mode(False)
    with pytest.raises(PermissionError):
        solution("L01.contiguous_strides")


def test_an_unknown_exercise_lists_the_known_ones():
    with pytest.raises(KeyError, match="L01.contiguous_strides"):
        check("L01.nope", stub)


# ---- compare: what the report says --------------------------------------------------------------------------

def test_compare_numbers_tuples_and_tensors():
    assert compare((12, 4, 1), (12, 4, 1)).exact
    c = compare((12, 4, 1), (12, 4, 2))
    assert not c.ok and c.where == "item 2"
    assert not compare((12, 4, 1), [12, 4]).ok and not compare(3, 3.0).ok and compare(3, np.int64(3)).ok
    assert compare(0.1 + 0.2, 0.3).close and not compare(0.1 + 0.2, 0.3).exact
    x = tt.tensor([[1.0, 2.0], [3.0, float("nan")]])
    assert compare(x, x.clone()).exact
    y = x.clone()
    y[0, 1] = 2.5
    c = compare(x, y)
    assert not c.ok and c.where == "[0, 1]" and c.maxdiff == 0.5 and "1 of 4 elements differ" in c.lines[0]
    assert compare(x, x + 1e-6).close and not compare(x, x + 1e-6).exact
    assert not compare(x, x.t()).ok                                 # same shape, other values
    c = compare(x, x.double())                                      # same values, another dtype
    assert not c.ok and c.lines[0].startswith("expected dtype") and "float64" in c.lines[0]
    assert "shape" in compare(x, tt.zeros(3)).lines[0]
    assert math.isinf(compare(tt.tensor([1.0]), tt.tensor([float("nan")])).maxdiff)
