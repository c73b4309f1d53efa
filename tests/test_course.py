"""The course build (`make course`, teachtorch/exercises/course.py): one lesson source gives a teacher notebook
whose checks pass and a student notebook whose checks all say "not solved yet", both running top to bottom in a
kernel; unbalanced solution markers are refused with the line."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from teachtorch.exercises import course

LESSON = '''# %% [markdown]
# # A tiny lesson

# %%
from teachtorch.exercises import check

def contiguous_strides(shape):
    ### BEGIN SOLUTION
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = running
        running *= max(shape[d], 1)
    return tuple(strides)
    ### END SOLUTION

result = check("L01.contiguous_strides", contiguous_strides)
print(result.status)

# %%
def index_to_offset(index, strides, offset):
    ### BEGIN SOLUTION
    return offset + sum(i * s for i, s in zip(index, strides))
    ### END SOLUTION

check("L01.index_to_offset", index_to_offset)
'''


def test_the_student_source_keeps_the_stub_at_the_solutions_indentation():
    student = course.student_source(LESSON)
    assert "running *= max" not in student and "### BEGIN" not in student
    assert f"    {course.STUB}\n\nresult = check" in student
    assert student.count(course.STUB) == 2
    assert course.solution_blocks(LESSON) == [(8, 14), (21, 23)]


@pytest.mark.parametrize("bad, message", [
    (LESSON.replace("    ### END SOLUTION\n\nresult", "\nresult", 1), "inside the solution"),
    (LESSON.replace("    ### BEGIN SOLUTION\n    return", "    return", 1), "without a"),
    (LESSON.rsplit("    ### END SOLUTION", 1)[0], "never closed"),
])
def test_unbalanced_markers_are_refused_with_their_line(bad, message):
    with pytest.raises(ValueError, match=message):
        course.student_source(bad)


def _run(nb, tmp_path):
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"], outputs
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    shown = "".join(o.get("data", {}).get("text/plain", "") for o in outputs if o.output_type == "execute_result")
    return text + shown


def test_a_built_lesson_runs_as_teacher_and_as_student(tmp_path):
    src = tmp_path / "lessons"
    src.mkdir()
    (src / "01_tiny.py").write_text(LESSON)
    written = course.build(src, tmp_path / "build")
    assert sorted(p.relative_to(tmp_path / "build").as_posix() for p in written) == [
        "student/01_tiny.py", "teacher/01_tiny.py"]
    teacher = nbformat.read(tmp_path / "build" / "teacher" / "01_tiny.ipynb", as_version=4)
    student = nbformat.read(tmp_path / "build" / "student" / "01_tiny.ipynb", as_version=4)
    assert "teacher_mode(True)" in teacher.cells[1].source and "teacher_mode" not in student.cells[1].source
    # each .ipynb stands alone: no jupytext pairing that JupyterLab would refuse to open it by
    assert "formats" not in teacher.metadata.get("jupytext", {}) and "formats" not in student.metadata.get("jupytext", {})
    taught = _run(teacher, tmp_path)
    assert "passed\n" in taught and "✓ L01.index_to_offset: passed" in taught
    learning = _run(student, tmp_path)
    assert "not solved yet" in learning and "passed" not in learning


def test_the_shipped_lessons_build():
    lessons = Path(__file__).resolve().parent.parent / "lessons"
    for path in sorted(lessons.glob("[0-9][0-9]_*.py")):
        course.solution_blocks(path.read_text())          # balanced markers in every lesson
        student, teacher = course.notebooks(path)
        assert len(teacher.cells) == len(student.cells) + 1
