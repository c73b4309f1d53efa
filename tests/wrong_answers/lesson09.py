"""Plausible wrong answers to lesson 9's exercises: each check must reject every one (tests/test_exercises.py)."""

import math

RAISES = ("exp_add_", "input_add_", "leaf_mul_", "detach_zero_")


def _right(name, x):                                  # the right prediction, for the wrong ones to change
    if name in RAISES:
        return "raises"
    if name == "square_add_":
        return [2 * v for v in x]
    if name == "no_grad_mul_":
        return [4 * v for v in x]
    if name == "clone_zero_":
        return [math.exp(v) for v in x]
    return [6 * v if i == 0 else 2 * v for i, v in enumerate(x)]


def predict_exp_add_ok(name, x):                      # "add_ after exp is fine": exp saved its result
    return [math.exp(v) for v in x] if name == "exp_add_" else _right(name, x)


def predict_detach_breaks_sharing(name, x):           # "detach() gives a tensor with its own counter"
    return [math.exp(v) for v in x] if name == "detach_zero_" else _right(name, x)


def predict_write_never_happened(name, x):            # CopySlices ignored: the gradient of x * x alone
    return [2 * v for v in x] if name == "view_mul_" else _right(name, x)


def predict_every_inplace_raises(name, x):            # "any in-place op after forward raises"
    return "raises" if name in ("square_add_", "view_mul_", "no_grad_mul_") else _right(name, x)


def predict_no_grad_ignored(name, x):                 # forgets that no_grad's mul_ changed x before x * x
    return [2 * v for v in x] if name == "no_grad_mul_" else _right(name, x)


def predict_view_times_3_everywhere(name, x):         # the mul_ applied to all of b, not just the view
    return [6 * v for v in x] if name == "view_mul_" else _right(name, x)


HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _message(t, now, then, kind=None):
    kind = kind or ("Double" if "64" in str(t.dtype) else "Float")
    shape = ", ".join(str(s) for s in t.shape)
    return ("one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[torch.{kind}Tensor [{shape}]] is at version {now}; expected version {then} instead. {HINT}")


class SavedNeverChecks:                               # no check at all: the silent wrong gradient
    def __init__(self, tensor):
        self.tensor = tensor

    def unpack(self):
        return self.tensor


class SavedAgainstZero:                               # "a saved tensor is at version 0"
    def __init__(self, tensor):
        self.tensor = tensor

    def unpack(self):
        if self.tensor._version != 0:
            raise RuntimeError(_message(self.tensor, self.tensor._version, 0))
        return self.tensor


class SavedOffByOne:                                  # the right check, the expected version off by one
    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        if self.tensor._version != self.version:
            raise RuntimeError(_message(self.tensor, self.tensor._version, self.version + 1))
        return self.tensor


class SavedVersionsSwapped:                           # "is at version <saved>; expected <now>"
    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        if self.tensor._version != self.version:
            raise RuntimeError(_message(self.tensor, self.version, self.tensor._version))
        return self.tensor


class SavedNoHint:                                    # the message without its hint sentence
    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        if self.tensor._version != self.version:
            raise RuntimeError(_message(self.tensor, self.tensor._version, self.version).split(" Hint:")[0])
        return self.tensor


class SavedAlwaysFloat:                               # FloatTensor whatever the dtype
    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        if self.tensor._version != self.version:
            raise RuntimeError(_message(self.tensor, self.tensor._version, self.version, kind="Float"))
        return self.tensor


class SavedCopy:                                      # saves a clone: never sees a write, returns a copy
    def __init__(self, tensor):
        self.tensor = tensor.clone()

    def unpack(self):
        return self.tensor


WRONG = {
    "L09.predict": [predict_exp_add_ok, predict_detach_breaks_sharing, predict_write_never_happened,
                    predict_every_inplace_raises, predict_no_grad_ignored, predict_view_times_3_everywhere],
    "L09.bump_and_check": [SavedNeverChecks, SavedAgainstZero, SavedOffByOne, SavedVersionsSwapped, SavedNoHint,
                           SavedAlwaysFloat, SavedCopy],
}
