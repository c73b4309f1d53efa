"""Build the course: each lesson's student and teacher notebooks from its one jupytext source.

A lesson (lessons/NN_name.py, jupytext's percent format) writes each exercise's solution between nbgrader's
solution markers:

    def contiguous_strides(shape):
        ### BEGIN SOLUTION
        strides, running = [1] * len(shape), 1
        ...
        ### END SOLUTION

    check("L01.contiguous_strides", contiguous_strides)

* The **teacher** notebook is the source as written (the markers are comments), with teacher mode on, so
  `solution(name)` answers.
* The **student** notebook has each solution replaced by a stub that raises NotImplementedError, indented
  as the solution was: it runs top to bottom, and every check reports "not solved yet" until the student
  writes the code.

The markers are nbgrader's own, so a teacher can also give the sources to nbgrader. Run by `make course`:

    python -m teachtorch.exercises.course lessons build/course
        -> build/course/student/NN_name.py and .ipynb, build/course/teacher/NN_name.py and .ipynb

`make work` hands out the student form of one lesson at a time, with this file run as a plain script (it
needs nothing but Python's standard library for that):

    python3 teachtorch/exercises/course.py --student lessons/01_storage.py > work/lessons/01_storage.py
"""

import copy
import sys
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = 'raise NotImplementedError("your turn: write this, then run the check below it")'
TEACHER_CELL = "import teachtorch.exercises\nteacher = teachtorch.exercises.teacher_mode(True)   # the teacher's copy: solution() answers"


def solution_blocks(text):
    """[(begin line, end line)] of the solution blocks (numbered from 1); ValueError for unbalanced markers."""
    blocks, start = [], None
    for n, line in enumerate(text.splitlines(), 1):
        mark = line.strip()
        if mark == BEGIN:
            if start is not None:
                raise ValueError(f"line {n}: {BEGIN} inside the solution that starts at line {start}")
            start = n
        elif mark == END:
            if start is None:
                raise ValueError(f"line {n}: {END} without a {BEGIN} before it")
            blocks.append((start, n))
            start = None
    if start is not None:
        raise ValueError(f"line {start}: {BEGIN} is never closed by {END}")
    return blocks


def student_source(text):
    """The lesson with each solution block replaced by a stub (at the indentation of its BEGIN marker)."""
    solution_blocks(text)                            # the markers must be balanced
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        mark = line.strip()
        if mark == BEGIN:
            inside = True
            out.append(line[:len(line) - len(line.lstrip())] + STUB + "\n")
        elif mark == END:
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def notebooks(path):
    """(student notebook, teacher notebook) of one lesson source, as nbformat notebooks."""
    import jupytext                                  # (the lab tools: only the build needs them)
    import nbformat

    text = Path(path).read_text(encoding="utf-8")
    student = jupytext.reads(student_source(text), fmt="py:percent")
    teacher = jupytext.reads(text, fmt="py:percent")
    first_code = next((i for i, c in enumerate(teacher.cells) if c.cell_type == "code"), len(teacher.cells))
    teacher.cells.insert(first_code, nbformat.v4.new_code_cell(TEACHER_CELL))
    return student, teacher


def build(source_dir, out_dir):
    """Write every lesson of `source_dir` as student and teacher .py and .ipynb under `out_dir`."""
    import jupytext

    out_dir = Path(out_dir)
    written = []
    for src in sorted(Path(source_dir).glob("[0-9][0-9]_*.py")):
        student, teacher = notebooks(src)
        for kind, nb in (("student", student), ("teacher", teacher)):
            folder = out_dir / kind
            folder.mkdir(parents=True, exist_ok=True)
            jupytext.write(nb, folder / src.name, fmt="py:percent")
            # the .ipynb stands alone: the source's "formats: py:percent" would make JupyterLab's jupytext
            # refuse to open it ("matches none of the export formats")
            alone = copy.deepcopy(nb)
            alone.metadata.get("jupytext", {}).pop("formats", None)
            jupytext.write(alone, folder / (src.stem + ".ipynb"))
            written.append(folder / src.name)
    return written


if __name__ == "__main__":
    if sys.argv[1:2] == ["--student"]:
        sys.stdout.write(student_source(Path(sys.argv[2]).read_text(encoding="utf-8")))
        sys.exit(0)
    source, target = (sys.argv[1:3] + ["lessons", "build/course"][len(sys.argv[1:3]):])[:2]
    for path in build(source, target):
        print(path)
