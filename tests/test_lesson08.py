"""Lesson 8's checks say which input's gradient is wrong, and use both oracles: autograd and gradcheck."""

import re
import sys
from pathlib import Path

from teachtorch.exercises import check, course

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson08 as wrong  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "08_autograd.py"


def test_the_lesson_checks_three_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == [
        "L08.mul_backward", "L08.sum_backward", "L08.matmul_backward"]
    assert len(course.solution_blocks(source)) == 4            # unbroadcast and mul_backward in exercise 1


def test_the_report_names_the_wrong_input_and_gradcheck_agrees():
    report = check("L08.matmul_backward", wrong.matmul_grad_b_transposed).report()
    assert "grad_a: matches autograd" in report and "grad_b: at [" in report
    assert "gradcheck: fails for b" in report
    report = check("L08.sum_backward", wrong.sum_not_reinserted).report()
    assert "grad_input: at [" in report and "gradcheck: fails for x" in report


def test_a_wrong_shape_is_caught_even_where_the_engine_would_sum_it_back():
    result = check("L08.mul_backward", wrong.mul_not_unbroadcast)
    assert result.got[1] == "grad_b: shape (2, 3), but b has shape (3,)"
    assert result.got[2] == "gradcheck: passes"          # through a Function the engine sums it back
    result = check("L08.mul_backward", wrong.mul_no_keepdim)
    assert result.got[0] == "grad_a: shape (3,), but a has shape (3, 1)"
    assert result.got[2].startswith("gradcheck: backward raised RuntimeError")
