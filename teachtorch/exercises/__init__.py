"""The course's exercises, checked in the notebook, offline: `check`, `hint`, `solution`.

    from teachtorch.exercises import check, hint
    def contiguous_strides(shape):
        ...                                        # your code
    check("L01.contiguous_strides", contiguous_strides)
    hint("L01.contiguous_strides")                 # the next hint, from a nudge to nearly the answer

`check(name, answer)` runs the exercise's fixed cases, then seeded random ones against the library's own
implementation, and returns a Result: a report in the notebook (which case, expected, got, exact /
approximate / max difference, a hint) and `.passed` in code. The same cases give the same verdict on every
machine, with no network. A function that still raises NotImplementedError (the student notebook's stub) is
"not solved yet", not an error.

`solution(name)` shows a solution in teacher mode only: `teacher_mode(True)`, or the environment variable
TEACHTORCH_TEACHER=1 (the teacher notebooks set it).

Files: compare.py (how an answer is compared), core.py (Exercise, Result, running the cases), lesson01.py
... (each lesson's exercises). PyTorch has no course of its own; the models are minitorch's per-task tests,
Tensor Puzzles' spec + random check, and Karpathy's `cmp()`.
"""

import importlib
import os
import pkgutil

from .core import Exercise, Result, run_check

# each lesson's module of this package (lesson01.py and on), in lesson order: its EXERCISES list
LESSONS = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("lesson"))
EXERCISES = {e.name: e for lesson in LESSONS
             for e in importlib.import_module(f"{__name__}.{lesson}").EXERCISES}
_hints_given = {}                    # name -> how many hints hint() has shown
_teacher = None                      # None: the environment decides


def exercise(name):
    try:
        return EXERCISES[name]
    except KeyError:
        raise KeyError(f"no exercise named {name!r}; the exercises are: {', '.join(EXERCISES)}") from None


def check(name, answer):
    """Check `answer` for exercise `name`; returns a Result (its report shows in a notebook)."""
    ex = exercise(name)
    return run_check(ex, answer, ex.hints[0] if ex.hints else "")


def hint(name, level=None):
    """The next hint for exercise `name` (or hint number `level`, from 1)."""
    ex = exercise(name)
    if not ex.hints:
        return "no hints for this one"
    if level is None:
        level = min(_hints_given.get(name, 0) + 1, len(ex.hints))
        _hints_given[name] = level
    level = max(1, min(level, len(ex.hints)))
    return f"hint {level} of {len(ex.hints)}: {ex.hints[level - 1]}"


def teacher_mode(on=None):
    """Is teacher mode on? `teacher_mode(True)` / `teacher_mode(False)` switches it for this process."""
    global _teacher
    if on is not None:
        _teacher = bool(on)
    return _teacher if _teacher is not None else os.environ.get("TEACHTORCH_TEACHER") == "1"


def solution(name):
    """A solution of exercise `name` (its code), in teacher mode only."""
    ex = exercise(name)
    if not teacher_mode():
        raise PermissionError(f"solution({name!r}) is for teachers: turn teacher mode on with "
                              "teachtorch.exercises.teacher_mode(True) or TEACHTORCH_TEACHER=1; "
                              f"students: try hint({name!r})")
    return ex.solution


__all__ = ["EXERCISES", "Exercise", "Result", "check", "exercise", "hint", "solution", "teacher_mode"]
