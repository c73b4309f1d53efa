"""An exercise, its checks and its report.

An `Exercise` knows how to test an answer: fixed cases with known answers first (the ones a student can
work out by hand), then seeded random cases checked against the library's own implementation (the
`reference`), so the check is offline and gives the same verdict every time. The first case that fails
stops the check; the report says which case, what was expected, what came back and how far apart they are,
then gives the first hint. minitorch and Tensor Puzzles check the same way (a spec, random inputs, a
reference); Karpathy's `cmp()` is the model for the report.

A student's answer that is still the stub (it raises NotImplementedError) is "not solved yet": reported,
never an error, so that a student notebook runs top to bottom before anything is solved.
"""

import html
import traceback
from dataclasses import dataclass, field

import numpy as np

from .._dtype import float64, int64
from .._tensor import Tensor
from ..ops.tensor_new import tensor
from .compare import compare

RANDOM_CASES = 24            # seeded random cases per check, after the fixed ones
SEED = 1234


@dataclass
class Exercise:
    name: str                        # "L01.contiguous_strides"
    title: str                       # one line: what to write
    reference: object                # the library's answer: reference(*args) -> expected
    known: list                      # fixed cases: (args, expected) with answers one can work out by hand
    random_args: object = None       # random_args(rng) -> args of one random case
    hints: list = field(default_factory=list)   # graded: from a nudge to nearly the answer
    solution: str = ""               # the code of a solution (teacher mode only)
    rtol: float = 1e-5
    atol: float = 1e-8
    call: object = None              # how to run an answer on args (default: answer(*args))

    def cases(self):
        """The fixed cases, then RANDOM_CASES seeded random ones: ("known k" / "random k", args, expected)."""
        for k, (args, expected) in enumerate(self.known):
            yield f"known case {k + 1}", args, expected
        if self.random_args is not None:
            rng = np.random.default_rng(SEED)
            for k in range(RANDOM_CASES):
                args = self.random_args(rng)
                yield f"random case {k + 1}", args, self.reference(*args)


class Case:
    """The named inputs of one case, read as attributes (`case.x`). Numbers given as lists, floats or NumPy
    arrays become tensors: float64, or int64 where they are whole numbers to begin with (class labels);
    anything else (a dim, a flag, a tensor) stays as given. The report shows a small tensor of round numbers
    whole, and any other by its shape."""

    def __init__(self, **inputs):
        def as_tensor(v):
            whole = np.asarray(v).dtype.kind in "iu"
            return tensor(v, dtype=int64 if whole else float64)
        self.inputs = {k: as_tensor(v) if isinstance(v, (list, float, np.ndarray)) else v for k, v in inputs.items()}

    def __getattr__(self, name):
        try:
            return self.__dict__["inputs"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        def show(v):
            if not isinstance(v, Tensor):
                return repr(v)
            small = v.numel() <= 6 and bool((v == v.round()).all())       # numbers one can work with by hand
            return repr(v.tolist()) if small else f"<shape {tuple(v.shape)}>"
        return ", ".join(f"{k}={show(v)}" for k, v in self.inputs.items())


@dataclass
class Result:
    """What `check` found; shown as a report in a notebook (the last value of a cell), and readable in code."""

    name: str
    status: str                      # "passed", "failed", "not solved yet", "error"
    cases: int = 0                   # cases run (passed, plus the failing one)
    case: str = ""                   # the failing case ("random case 3")
    args: tuple = ()
    expected: object = None
    got: object = None
    lines: list = field(default_factory=list)
    hint: str = ""

    @property
    def passed(self):
        return self.status == "passed"

    def __bool__(self):
        return self.passed

    def report(self):
        head = {"passed": f"✓ {self.name}: passed ({self.cases} cases)",
                "failed": f"✗ {self.name}: {self.case} failed",
                "not solved yet": f"… {self.name}: not solved yet (the function still raises NotImplementedError)",
                "error": f"✗ {self.name}: {self.case} raised an error"}[self.status]
        lines = [head]
        if self.status in ("failed", "error"):
            lines.append(f"  arguments: {_short(self.args, 400)}")   # room for three tensors (lesson 4)
            if self.status == "failed":
                lines.append(f"  expected:  {_short(self.expected)}")
                lines.append(f"  got:       {_short(self.got)}")
            lines += [f"  {line}" for line in self.lines]
            if self.hint:
                lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def __repr__(self):
        return self.report()

    def _repr_html_(self):
        colour = {"passed": "#2e7d32", "not solved yet": "#666"}.get(self.status, "#c62828")
        return (f"<pre class='tt-check tt-check-{self.status.replace(' ', '-')}' "
                f"style='color:{colour};white-space:pre-wrap'>{html.escape(self.report())}</pre>")


def _short(v, limit=200):
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def run_check(exercise, answer, first_hint):
    """Check `answer` (a function, or a value for an exercise without arguments) on every case."""
    ran = 0
    for case, args, expected in exercise.cases():
        ran += 1
        try:
            got = (exercise.call or _call)(answer, args)
        except NotImplementedError:
            return Result(exercise.name, "not solved yet")
        except Exception as e:                       # a bug in the answer: say where, do not raise
            where = traceback.extract_tb(e.__traceback__)[-1]
            return Result(exercise.name, "error", ran, case, args, expected, None,
                          [f"{type(e).__name__}: {e}", f"(line {where.lineno}: {where.line})"], first_hint)
        c = compare(expected, got, exercise.rtol, exercise.atol)
        if not c.ok:
            return Result(exercise.name, "failed", ran, case, args, expected, got, c.lines, first_hint)
    return Result(exercise.name, "passed", ran)


def _call(answer, args):
    return answer(*args) if callable(answer) else answer
