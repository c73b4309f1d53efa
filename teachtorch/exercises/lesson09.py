"""Lesson 9, autograd with views and in-place ops: the exercises.

    L09.predict         predict(name, x) -> "raises" or the gradient x.grad (a list of numbers), for one of
                        the eight small programs in PROGRAMS, run on a leaf x = tt.tensor(x, requires_grad=True)
    L09.bump_and_check  SavedTensor(tensor) with .unpack(): remember the tensor's version when saved; on unpack,
                        give the tensor back, or raise PyTorch's "modified by an inplace operation" RuntimeError

`L09.predict` is checked by RUNNING the program: each case execs the program's code string with teachtorch
(`_run`) and compares "raises" (any RuntimeError) or `x.grad.tolist()` with the answer. The fixed cases run
every program on x = [1, 2, 3]; the seeded random ones on other values and lengths.

`L09.bump_and_check` is checked against teachtorch's own saved tensor, `SavedVariable` in
teachtorch/autograd/saved_variable.py: each case makes a tensor with no history (float32 or float64, a random
shape), bumps its version 0-2 times, saves it in the answer's class and in a SavedVariable, bumps it 0-2 more
times (an in-place op, a write through a view or through `detach()`), and compares what the two unpacks do:
("ok", the same tensor object) or ("raises", the message).

PyTorch's counterparts: the version counter is `VariableVersion` in c10/core/TensorImpl.h, the check is
`SavedVariable::unpack` in torch/csrc/autograd/saved_variable.cpp, CopySlices is in
torch/csrc/autograd/functions/tensor.cpp and `rebase_history` in torch/csrc/autograd/variable.cpp.
"""

from .._dtype import float32, float64
from ..autograd.saved_variable import SavedVariable
from ..ops.tensor_new import tensor as _tensor
from .core import Exercise

# The programs of L09.predict: the lesson prints them. `x` is a leaf made with requires_grad=True.
PROGRAMS = {
    "exp_add_": "y = x.exp()\ny.add_(1)\ny.sum().backward()",
    "square_add_": "y = x * x\ny.add_(1)\ny.sum().backward()",
    "input_add_": "a = x.clone()\ny = a * a\na.add_(1)\ny.sum().backward()",
    "leaf_mul_": "x.mul_(2)\nx.sum().backward()",
    "no_grad_mul_": "with tt.no_grad():\n    x.mul_(2)\n(x * x).sum().backward()",
    "detach_zero_": "y = x.exp()\ny.detach().zero_()\ny.sum().backward()",
    "clone_zero_": "y = x.exp()\ny.detach().clone().zero_()\ny.sum().backward()",
    "view_mul_": "b = x * x\nb[:1].mul_(3)\nb.sum().backward()",
}


def _run(name, values):
    """Run program `name` with teachtorch on a float64 leaf x = values: "raises" or x.grad as a list."""
    import teachtorch as tt
    x = tt.tensor(values, dtype=tt.float64, requires_grad=True)
    with tt.enable_grad():
        try:
            exec(PROGRAMS[name], {"tt": tt, "x": x})
        except RuntimeError:
            return "raises"
    return x.grad.tolist()


def _random_predict(rng):
    name = list(PROGRAMS)[int(rng.integers(0, len(PROGRAMS)))]
    return name, [float(v) for v in rng.integers(-3, 4, size=int(rng.integers(1, 5)))]


# ---- L09.bump_and_check -------------------------------------------------------------------------------------


def _bump(t, how):
    """One in-place write to t, in one of four ways; each bumps t's (shared) version counter by one."""
    if how == "add_":
        t.add_(1)
    elif how == "mul_":
        t.mul_(2)
    elif how == "view":
        t.view(-1)[:1].fill_(0)             # a write through a view: the view shares the counter
    else:
        t.detach().zero_()                  # and so does detach()


class Scenario:
    """A tensor (dtype, shape), the writes before it is saved and the writes after."""

    def __init__(self, dtype, shape, before, after):
        self.dtype, self.shape, self.before, self.after = dtype, tuple(shape), tuple(before), tuple(after)

    def __repr__(self):
        return (f"Scenario({self.dtype}, shape {self.shape}, writes before saving: {list(self.before)}, "
                f"after: {list(self.after)})")


def _play(scenario, save):
    """Make the tensor, write, save it with `save`, write again, unpack: ("ok", same?) or ("raises", msg)."""
    t = _tensor(list(range(1, 1 + _numel(scenario.shape))), dtype=scenario.dtype).reshape(scenario.shape)
    for how in scenario.before:
        _bump(t, how)
    saved = save(t)
    for how in scenario.after:
        _bump(t, how)
    try:
        out = saved.unpack()
    except RuntimeError as e:
        return ("raises", str(e))
    return ("ok", "the same tensor" if out is t else f"not the saved tensor: {type(out).__name__}")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _bump_call(answer, args):
    result = _play(args[0], answer)
    if not isinstance(result[1], str):
        raise TypeError("unpack must return the tensor or raise RuntimeError")
    return result


def _bump_reference(scenario):
    return _play(scenario, SavedVariable)


WAYS = ("add_", "mul_", "view", "detach")


def _random_bump(rng):
    shape = [int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3)))]
    before = [WAYS[int(i)] for i in rng.integers(0, 4, size=int(rng.integers(0, 3)))]
    after = [WAYS[int(i)] for i in rng.integers(0, 4, size=int(rng.integers(0, 3)))]
    return (Scenario(float32 if rng.random() < 0.5 else float64, shape, before, after),)


_OK = ("ok", "the same tensor")
_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
         "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _msg(kind, shape, now, then):
    return ("raises", "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [torch.{kind}Tensor [{shape}]] is at version {now}; expected version {then} instead. "
            + _HINT)


EXERCISES = [
    Exercise(
        name="L09.predict",
        title='predict(name, x) -> "raises" or x.grad as a list: what program PROGRAMS[name] does on a leaf x',
        reference=_run,
        known=[((name, [1.0, 2.0, 3.0]), _run(name, [1.0, 2.0, 3.0])) for name in PROGRAMS],
        random_args=_random_predict,
        hints=["Ask of every program: which tensors did each op save (lesson 8: exp saves its result, mul its "
               "inputs, mul by a number nothing of its input), and was one of them written in place after?",
               "detach() shares the version counter, clone() does not; a leaf that requires grad refuses "
               "in-place ops except under no_grad (which still changes x before it is used).",
               "view_mul_: b's grad_fn became CopySlices: the view's part of the gradient goes through the "
               "mul_'s backward (times 3) before MulBackward0 (times 2x)."],
        solution='''import math


def predict(name, x):
    if name in ("exp_add_", "input_add_", "leaf_mul_", "detach_zero_"):
        return "raises"
    if name == "square_add_":
        return [2 * v for v in x]
    if name == "no_grad_mul_":
        return [4 * v for v in x]               # 2 * (2 x): x was doubled before x * x
    if name == "clone_zero_":
        return [math.exp(v) for v in x]
    return [6 * v if i == 0 else 2 * v for i, v in enumerate(x)]      # view_mul_''',
    ),
    Exercise(
        name="L09.bump_and_check",
        title="SavedTensor(tensor).unpack(): the tensor, or PyTorch's RuntimeError if its version moved since",
        reference=_bump_reference,
        known=[((Scenario(float32, (3,), [], []),), _OK),
               ((Scenario(float32, (3,), [], ["add_"]),), _msg("Float", "3", 1, 0)),
               ((Scenario(float64, (2, 3), ["mul_"], []),), _OK),
               ((Scenario(float64, (2, 3), ["mul_", "add_"], ["detach", "view"]),), _msg("Double", "2, 3", 4, 2))],
        random_args=_random_bump,
        call=_bump_call,
        hints=["Save tensor._version in __init__; in unpack compare it with the tensor's _version now.",
               "Every write to the tensor, through a view or a detach() too, bumps the same counter, so one "
               "comparison catches them all. Return the tensor itself when nothing moved.",
               "The message: 'one of the variables needed for gradient computation has been modified by an "
               "inplace operation: [torch.FloatTensor [2, 3]] is at version 4; expected version 2 instead. ' "
               "then the hint sentence (HINT in the lesson); DoubleTensor for float64."],
        solution='''import teachtorch as tt

HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


class SavedTensor:
    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        t = self.tensor
        if t._version != self.version:
            kind = {tt.float32: "Float", tt.float64: "Double"}[t.dtype]
            shape = ", ".join(str(s) for s in t.shape)
            raise RuntimeError("one of the variables needed for gradient computation has been modified by "
                               f"an inplace operation: [torch.{kind}Tensor [{shape}]] is at version "
                               f"{t._version}; expected version {self.version} instead. {HINT}")
        return t''',
    ),
]

