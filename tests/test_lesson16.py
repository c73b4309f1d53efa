"""Lesson 16 (add an op end to end): its steps are CONTRIBUTING.md's, its checks name what is wrong and
leave the checker op as they found it, the lesson runs twice in one kernel, and what it says about PyTorch's
`torch.library` is true of the installed PyTorch."""

import re
import sys
from pathlib import Path

import jupytext
import torch

import teachtorch as tt
from teachtorch.exercises import EXERCISES, check, course
from teachtorch.exercises import lesson16

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson16 as wrong  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "lessons" / "16_add_an_op.py"


def _solved(name):
    space = {}
    exec(EXERCISES[name].solution, space)
    return space[name.split(".")[1]]


def _contributing_steps():
    """The steps of CONTRIBUTING.md's "Adding an op", in its order: its numbered rules ("1. **Schema.**"),
    then the derivative and the tests its worked example adds ("Its derivative goes in", "**The tests.**")."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("## Adding an op", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^\d+\. \*\*(\w+)\.\*\*", section, flags=re.M)
    if "Its derivative goes in" in section:
        steps.append("Derivative")
    if "**The tests.**" in section:
        steps.append("Tests")
    return steps


def _lesson_steps():
    """The lesson's steps: its section titles "## N. Step K, Title: ..." and its list "K. **Title**: ..."."""
    text = LESSON.read_text()
    titles = re.findall(r"^# ## \d+\. Step (\d+), (\w+):", text, flags=re.M)
    listed = re.findall(r"^# (\d+)\. \*\*(\w+)\*\*:", text, flags=re.M)
    return titles, listed


def test_lesson_and_contributing_describe_the_same_steps():
    contributing = _contributing_steps()
    assert contributing[:2] == ["Schema", "Kernel"] and {"Meta", "Derivative", "Tests"} <= set(contributing)
    titles, listed = _lesson_steps()
    assert [int(k) for k, _ in titles] == list(range(1, len(titles) + 1))
    assert titles == listed                      # the sections and the package's file-by-file list agree
    steps = [name for _, name in titles]
    assert steps == [s for s in contributing if s in steps], (steps, contributing)   # in CONTRIBUTING's order
    assert set(steps) == {"Schema", "Kernel", "Meta", "Derivative", "Tests"}
    # the rules the lesson folds into its kernel step are named there, as CONTRIBUTING's rules
    text = LESSON.read_text()
    for rule in set(contributing) - set(steps) - {"Errors"}:
        assert f"*{rule}*" in text, rule


def test_the_lesson_checks_three_exercises_and_names_real_files():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == [
        "L16.softclip_kernel", "L16.softclip_fake", "L16.softclip_backward"]
    assert len(course.solution_blocks(source)) == 3
    for path in ("teachtorch/ops/activation.py", "teachtorch/kernels/activation.py",
                 "teachtorch/autograd/derivatives/nn.py", "tests/test_nn_activation.py", "tests/parity.py"):
        assert (ROOT / path).exists() and f"`{path}`" in source


def test_the_reports_say_what_is_wrong():
    got = check("L16.softclip_kernel", wrong.kernel_numpy_not_xp).got
    assert got[:2] == ("values: match the formula", "input: unchanged") and "stand-in" in got[2]
    assert check("L16.softclip_kernel", wrong.kernel_writes_into_input).got[1].startswith("input: changed")
    got = check("L16.softclip_backward", wrong.backward_forgets_grad).got
    assert got[0].startswith("grad_x: at [") and got[1].startswith("gradcheck: fails")
    assert got[2] == "trace: AutogradCPU -> CPU"
    got = check("L16.softclip_fake", wrong.fake_default_dtype).got
    assert got[1] == "dtype float32" and check("L16.softclip_fake", wrong.fake_default_dtype).expected[1] == \
        "dtype float64"


def test_a_check_leaves_the_checker_op_with_the_lessons_pieces():
    before = dict(lesson16.PIECES)
    for name, answers in wrong.WRONG.items():
        check(name, answers[0])
    assert lesson16.PIECES == before
    x = tt.tensor([-3.0, 0.0, 1.0])
    assert tt.allclose(lesson16.softclip(x, 1.5), tt.tensor([-1.0, 0.0, 1.0 - 1 / 6.75]))


def test_the_lesson_runs_twice_in_one_kernel():
    source = "\n".join(c.source for c in jupytext.read(LESSON).cells if c.cell_type == "code")
    space = {}
    exec(compile(source, str(LESSON), "exec"), space)
    exec(compile(source, str(LESSON), "exec"), space)       # a student re-runs every cell
    assert space["xg"].grad.tolist() == [0.0, 0.75, 1.0, 0.9375, 0.4375, 0.0]
    assert [e.key for e in space["t2"].events] == ["AutogradCPU", "CPU"]
    space["lib"]._destroy()


def test_what_the_lesson_says_about_pytorch_is_true():
    assert str(torch.ops.aten.hardtanh.default._schema) == \
        "aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor"
    assert str(tt.ops.aten.hardtanh.default.schema) == \
        "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor"
    lib = torch.library.Library("l16torch", "DEF")
    try:
        lib.define("softclip(Tensor x, float limit) -> Tensor")
        kernel = _solved("L16.softclip_kernel")
        lib.impl("softclip", lambda x, limit: torch.from_numpy(kernel(__import__("numpy"), x.numpy(), limit)),
                 "CPU")
        torch.library.register_fake("l16torch::softclip", _solved("L16.softclip_fake"))

        def setup(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.limit = inputs[1]

        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return _solved("L16.softclip_backward")(grad, x, ctx.limit), None
        torch.library.register_autograd("l16torch::softclip", backward, setup_context=setup)
        x = torch.tensor([-3.0, -1.0, 0.0, 0.5, 1.5, 3.0], dtype=torch.float64, requires_grad=True)
        y = torch.ops.l16torch.softclip(x, 2.0)
        assert y.grad_fn.name() == "GeneratedBackwardFor_l16torch_softclip_defaultBackward"
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.75, 1.0, 0.9375, 0.4375, 0.0]
        assert torch.autograd.gradcheck(lambda v: torch.ops.l16torch.softclip(v, 2.0),
                                        (x.detach().requires_grad_(),))
        m = torch.ops.l16torch.softclip(torch.empty(1000, 1000, dtype=torch.float64, device="meta"), 1.0)
        assert m.shape == (1000, 1000) and m.dtype == torch.float64 and m.is_meta
    finally:
        lib._destroy()
