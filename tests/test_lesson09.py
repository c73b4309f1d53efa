"""Lesson 9's programs and messages are PyTorch's: each is run with torch (the oracle) and teachtorch alike."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import teachtorch as tt
from teachtorch.exercises import check, course
from teachtorch.exercises import lesson09 as ex

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson09 as wrong  # noqa: E402

torch = pytest.importorskip("torch")
LESSON = Path(__file__).resolve().parent.parent / "lessons" / "09_inplace.py"


def test_the_lesson_checks_two_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == ["L09.predict", "L09.bump_and_check"]
    assert len(course.solution_blocks(source)) == 3            # predict, SavedTensor.__init__ and .unpack


def _run_torch(name, values):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    try:
        exec(ex.PROGRAMS[name], {"tt": torch, "x": x})
    except RuntimeError:
        return "raises"
    return x.grad.tolist()


@pytest.mark.parametrize("name", list(ex.PROGRAMS))
def test_every_program_does_in_pytorch_what_it_does_in_teachtorch(name):
    for values in ([1.0, 2.0, 3.0], [-2.0], [0.5, -1.0, 3.0, 0.0]):
        want, got = _run_torch(name, values), ex._run(name, values)
        if want == "raises":
            assert got == "raises"
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12)


def _torch_message(scenario):
    """PyTorch's message for the scenario: w (no history) saved by x * w, written, then backward."""
    w = torch.arange(1, 1 + int(np.prod(scenario.shape)),
                     dtype=torch.float32 if scenario.dtype == tt.float32 else torch.float64).reshape(scenario.shape)
    for how in scenario.before:
        ex._bump(w, how)
    x = torch.ones(scenario.shape, dtype=w.dtype, requires_grad=True)
    y = x * w
    for how in scenario.after:
        ex._bump(w, how)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return ("raises", str(e))
    return ex._OK


def test_the_saved_version_check_gives_pytorchs_exact_message():
    rng = np.random.default_rng(0)
    for _ in range(20):
        scenario, = ex._random_bump(rng)
        assert ex._bump_reference(scenario) == _torch_message(scenario), scenario


def test_detach_shares_storage_and_version_counter_in_both():
    for lib in (torch, tt):
        y = lib.tensor([1.0, 2.0], requires_grad=True).exp()
        d = y.detach()
        d.zero_()
        assert (y._version, d._version) == (1, 1)
        assert d.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def test_copy_slices_and_the_rebuilt_view_have_pytorchs_names():
    names = []
    for lib in (torch, tt):
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2
        v = b[:2]
        v.mul_(3)
        names.append((b.grad_fn.name(), v.grad_fn.name(), v.grad_fn.next_functions[0][0].name(), b._version))
    assert names[0] == names[1] == ("torch::autograd::CopySlices", "AsStridedBackward0",
                                    "torch::autograd::CopySlices", 1)


def test_the_reports_say_what_went_wrong():
    report = check("L09.predict", wrong.predict_exp_add_ok).report()
    assert "exp_add_" in report and "'raises'" in report
    result = check("L09.bump_and_check", wrong.SavedOffByOne)
    assert result.got[0] == "raises" and "expected version 1 instead" in result.got[1]
    assert check("L09.bump_and_check", wrong.SavedCopy).got == ("ok", "not the saved tensor: Tensor")
