"""The course build (`make course`, teachtorch/exercises/course.py): one lesson source gives a teacher notebook
whose checks pass and a student notebook whose checks all say "not solved yet", both running top to bottom in a
kernel; unbalanced solution markers are refused with the line."""

import re
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


# ---- every lesson says where its concepts live in PyTorch ----------------------------------------------------

WHERE_TITLE = "**Where this is in PyTorch**"
PYTORCH_PREFIXES = ("torch/", "aten/", "c10/")


def _markdown_cells(text):
    """The markdown cells of a jupytext percent source, each as its text without the leading `# `."""
    cells, current = [], None
    for line in text.splitlines():
        if line.startswith("# %%"):
            current = [] if "[markdown]" in line else None
            if current is not None:
                cells.append(current)
        elif current is not None:
            current.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return ["\n".join(cell) for cell in cells]


def where_in_pytorch_problems(text):
    """What a lesson's "Where this is in PyTorch" box lacks: [] when a markdown cell has one that names at
    least 2 of PyTorch's files (`torch/`, `aten/`, `c10/`) and 1 of teachtorch's, all in backticks. The box
    runs from its bold title to the next heading of its cell (a recap may follow in the same cell)."""
    for cell in _markdown_cells(text):
        if WHERE_TITLE not in cell:
            continue
        box = re.split(r"\n#+ ", cell[cell.index(WHERE_TITLE):])[0]
        quoted = [q.strip() for q in re.findall(r"`([^`\n]+)`", box)]
        problems = []
        if len([q for q in quoted if q.startswith(PYTORCH_PREFIXES)]) < 2:
            problems.append("its box names fewer than 2 PyTorch files (`torch/...`, `aten/...`, `c10/...`)")
        if not any(q.startswith("teachtorch/") for q in quoted):
            problems.append("its box names no `teachtorch/...` file")
        return problems
    return [f"no markdown cell with {WHERE_TITLE}"]


def test_every_lesson_says_where_its_concepts_are_in_pytorch():
    lessons = Path(__file__).resolve().parent.parent / "lessons"
    paths = sorted(lessons.glob("[0-9][0-9]_*.py")) + [lessons / "explorer_tour.py"]
    assert len(paths) > 10
    problems = [f"{p.name}: {problem}" for p in paths for problem in where_in_pytorch_problems(p.read_text())]
    assert not problems, "\n".join(problems)


def test_the_where_in_pytorch_check_fails_without_a_box():
    text = (Path(__file__).resolve().parent.parent / "lessons" / "01_storage.py").read_text()
    assert where_in_pytorch_problems(text) == []
    start = text.index("# %% [markdown]\n# " + WHERE_TITLE)
    end = text.index("# %%", start + 1)
    assert where_in_pytorch_problems(text[:start] + text[end:]) == [f"no markdown cell with {WHERE_TITLE}"]
    only_ours = "# %% [markdown]\n# " + WHERE_TITLE + "\n# | a | `c10/core/TensorImpl.h` | `teachtorch/_tensor.py` |\n"
    assert where_in_pytorch_problems(only_ours) == [
        "its box names fewer than 2 PyTorch files (`torch/...`, `aten/...`, `c10/...`)"]
    # a recap after the box, in the same cell, does not count as the box
    recap = ("# %% [markdown]\n# " + WHERE_TITLE + "\n# - `torch/library.py`\n#\n# ## Recap\n#\n"
             "# `aten/src/ATen/native/TensorShape.cpp`, `teachtorch/library.py`\n")
    assert len(where_in_pytorch_problems(recap)) == 2
