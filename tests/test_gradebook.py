"""The gradebook (teachtorch/exercises/gradebook.py): the course as an nbgrader course, round trip.

Lessons 1 and 2 go to nbgrader's source/ folder; `nbgrader generate_assignment` releases them; one student,
ada, hands in lesson 1 with both exercises right (the teacher's solutions) and lesson 2 with `permute` wrong (a
plausible wrong answer from tests/wrong_answers) and the other three not written; `nbgrader autograde` runs
her notebooks; the gradebook database must then hold 1 point for each right exercise and 0 for the others,
from the same checks she ran, and the released notebooks must hold no solution."""

import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nbformat

from teachtorch.exercises import EXERCISES, course, gradebook

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers.lesson02 import permute_inverse  # noqa: E402

LESSONS = Path(__file__).resolve().parent.parent / "lessons"
STUDENT = "ada"


def nbgrader(*args, cwd, env):
    """Run the nbgrader command line with this Python (the project's venv), in the course folder."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "ERROR" not in done.stdout + done.stderr, done.stdout + done.stderr


def function_name(cell):
    return re.search(r"^\s*def (\w+)\(", cell.source, re.M)[1]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The course folder after release, ada's submission and autograde."""
    importlib.import_module("nbgrader")   # the test extra has it: a missing nbgrader fails here, it never skips
    root = tmp_path_factory.mktemp("gradebook")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "jupyter"),      # no teacher's own nbgrader settings
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    course_dir = root / "course"
    written = gradebook.release_source(LESSONS, course_dir, ["01_storage", "02_views"])
    assert [p.relative_to(course_dir).as_posix() for p in written] == [
        "source/01_storage/01_storage.ipynb", "source/02_views/02_views.ipynb"]
    for lesson in ("01_storage", "02_views"):
        nbgrader("generate_assignment", lesson, cwd=course_dir, env=env)

    # ada's submission: her copy of each released notebook, with the answer cells she wrote
    right = {function_name(c): c.source for lesson in ("01_storage", "02_views")
             for c in nbformat.read(course_dir / "source" / lesson / f"{lesson}.ipynb", 4).cells
             if c.metadata["nbgrader"]["solution"]}
    answers = {"contiguous_strides": right["contiguous_strides"], "index_to_offset": right["index_to_offset"],
               "permute": re.sub(r"def \w+", "def permute", inspect.getsource(permute_inverse), count=1)}
    for lesson in ("01_storage", "02_views"):
        nb = nbformat.read(course_dir / "release" / lesson / f"{lesson}.ipynb", 4)
        for cell in nb.cells:
            if cell.metadata["nbgrader"]["solution"] and function_name(cell) in answers:
                cell.source = answers[function_name(cell)]
        folder = course_dir / "submitted" / STUDENT / lesson
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{lesson}.ipynb")
        nbgrader("autograde", lesson, cwd=course_dir, env=env)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", env["PATH"])               # Gradebook() runs `alembic` from the PATH too
        yield course_dir


def test_every_exercise_of_the_course_is_a_tests_cell_worth_one_point():
    points = {}
    for src in sorted(LESSONS.glob("[0-9][0-9]_*.py")):
        nb = gradebook.source_notebook(src)
        nbformat.validate(nb)
        points.update({c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
                       for c in nb.cells if c.metadata["nbgrader"]["grade"]})
    assert points == {gradebook.grade_id(name): 1 for name in EXERCISES}


def test_the_gradebook_holds_a_point_for_each_right_exercise_and_none_for_the_others(graded):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        points = {g.cell.name: (g.score, g.max_score)
                  for lesson in ("01_storage", "02_views")
                  for g in gb.find_submission_notebook(lesson, lesson, STUDENT).grades}
        totals = {lesson: (gb.find_submission(lesson, STUDENT).score, gb.find_submission(lesson, STUDENT).max_score)
                  for lesson in ("01_storage", "02_views")}
    assert points == {"L01-contiguous_strides": (1, 1), "L01-index_to_offset": (1, 1),   # the teacher's solutions
                      "L02-permute": (0, 1),                                            # a wrong answer
                      "L02-getitem": (0, 1), "L02-expand": (0, 1), "L02-predict_strides": (0, 1)}   # not written
    assert totals == {"01_storage": (2, 2), "02_views": (0, 4)}
    assert sum(score for score, _ in totals.values()) == 2


def test_the_feedback_on_a_wrong_answer_is_the_checks_own_report(graded):
    nb = nbformat.read(graded / "autograded" / STUDENT / "02_views" / "02_views.ipynb", 4)
    tests = next(c for c in nb.cells if c.metadata["nbgrader"].get("grade_id") == "L02-permute")
    error = next(o for o in tests.outputs if o.output_type == "error")
    assert error.ename == "AssertionError" and "✗ L02.permute" in error.evalue and "expected:" in error.evalue


def test_the_released_notebooks_hold_no_solution(graded):
    for lesson in ("01_storage", "02_views"):
        source = (LESSONS / f"{lesson}.py").read_text(encoding="utf-8").splitlines()
        solution = [source[i].strip() for begin, end in course.solution_blocks("\n".join(source))
                    for i in range(begin, end - 1) if source[i].strip()]
        assert solution
        released = nbformat.read(graded / "release" / lesson / f"{lesson}.ipynb", 4)
        text = "\n".join(c.source for c in released.cells)
        assert course.BEGIN not in text and course.STUB in text
        assert not [line for line in solution if line in text]
