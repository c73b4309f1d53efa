"""Gradebooks: the course's exercises as an nbgrader course, graded by the very checks the students run.

nbgrader (https://nbgrader.readthedocs.io) works on one folder per course:

    nbgrader_config.py
    source/<assignment>/<notebook>.ipynb      the teacher's notebooks, solutions and all (this file writes them)
    release/<assignment>/                     `nbgrader generate_assignment`: the students' copy, solutions cleared
    submitted/<student>/<assignment>/         `nbgrader collect` (or a copy by hand): what each student handed in
    autograded/<student>/<assignment>/        `nbgrader autograde`: each submission run again, its grades in
    gradebook.db                              the gradebook (nbgrader.api.Gradebook reads it; so does formgrader)

It goes by each cell's `metadata.nbgrader`:

* an **autograded answer** cell (solution: true) is the student's to write: generate_assignment replaces
  what lies between `### BEGIN SOLUTION` and `### END SOLUTION` with a stub (its ClearSolutions step);
* an **autograder tests** cell (grade: true, points, locked) earns its points if it runs without an error;
* a **read-only** cell (locked) is put back as the teacher wrote it before grading, so editing it changes no grade.

How the course maps onto that: one lesson is one assignment of one notebook (source/01_storage/01_storage.ipynb).
A cell with the solution markers (the lesson writes them already: course.py) is an answer cell. A check,
`check("L01.contiguous_strides", contiguous_strides)`, becomes a tests cell worth one point:

    result = check("L01.contiguous_strides", contiguous_strides)
    assert result.passed, result.report()
    result

so the grade comes from the same cases and the same verdict the student sees, a wrong answer's feedback is
the check's own report, and an unsolved exercise ("not solved yet") scores 0. Where a lesson writes the check
in its function's cell (lesson 1), the cell is split in two. Every other cell is read-only. The stub is the
course's own (course.STUB), so the released notebook reads as `make course`'s student notebook.

    python -m teachtorch.exercises.gradebook lessons build/gradebook [01_storage ...]
    cd build/gradebook && nbgrader generate_assignment 01_storage      # then collect, autograde, formgrader
"""

import re
import sys
from pathlib import Path

from .course import BEGIN, STUB

CHECK = re.compile(r'^check\("(?P<name>[^"]+)", *(?P<answer>\w+)\) *$', re.M)
TESTS = 'result = check("{name}", {answer})\nassert result.passed, result.report()\nresult'
CONFIG = f'''\
# nbgrader's settings for the teachtorch course (written by teachtorch.exercises.gradebook)
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "teachtorch"
c.ClearSolutions.code_stub = {{"python": {STUB!r}}}   # the course's stub
c.Execute.timeout = 600              # seconds a cell may run when autograde runs a submission
'''


def grade_id(name):
    """The tests cell's id in the gradebook: "L01.contiguous_strides" -> "L01-contiguous_strides"."""
    return name.replace(".", "-")                    # nbgrader allows letters, digits, - and _


def _nbgrader(cell_id, solution=False, grade=False, points=None):
    meta = {"grade": grade, "grade_id": cell_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def _split(cell):
    """A code cell holding both a function and its check, as two cells; any other cell as itself."""
    import nbformat

    found = CHECK.search(cell.source) if cell.cell_type == "code" else None
    if found is None or not cell.source[:found.start()].strip():
        return [cell]
    head, tail = cell.source[:found.start()].rstrip(), cell.source[found.start():]
    return [nbformat.v4.new_code_cell(head), nbformat.v4.new_code_cell(tail)]


def source_notebook(path):
    """The nbgrader source notebook of one lesson (lessons/NN_name.py): answer, tests and read-only cells."""
    import jupytext

    nb = jupytext.reads(Path(path).read_text(encoding="utf-8"), fmt="py:percent")
    nb.metadata.get("jupytext", {}).pop("formats", None)      # a stand-alone .ipynb (as course.build)
    nb.cells = [part for cell in nb.cells for part in _split(cell)]
    for n, cell in enumerate(nb.cells):
        found = CHECK.search(cell.source) if cell.cell_type == "code" else None
        if found:
            cell.source = CHECK.sub(lambda m: TESTS.format(**m.groupdict()), cell.source)
            cell.metadata["nbgrader"] = _nbgrader(grade_id(found["name"]), grade=True, points=1)
        elif cell.cell_type == "code" and BEGIN in cell.source:
            cell.metadata["nbgrader"] = _nbgrader(f"answer-{n}", solution=True)
        else:
            cell.metadata["nbgrader"] = _nbgrader(f"cell-{n}")
    return nb


def release_source(lessons_dir, course_dir, lessons=None):
    """Write course_dir/source/<lesson>/<lesson>.ipynb for each lesson with exercises (or those named in
    `lessons`, as "01_storage"), and an nbgrader_config.py if there is none; returns the notebooks written."""
    import nbformat

    course_dir = Path(course_dir)
    course_dir.mkdir(parents=True, exist_ok=True)
    config = course_dir / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG, encoding="utf-8")
    written = []
    for src in sorted(Path(lessons_dir).glob("[0-9][0-9]_*.py")):
        if lessons is not None and src.stem not in lessons:
            continue
        if lessons is None and not CHECK.search(src.read_text(encoding="utf-8")):
            continue                                 # a lesson without exercises has nothing to grade
        folder = course_dir / "source" / src.stem
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(src), folder / f"{src.stem}.ipynb")
        written.append(folder / f"{src.stem}.ipynb")
    return written


if __name__ == "__main__":
    lessons_dir, course_dir = (sys.argv[1:3] + ["lessons", "build/gradebook"][len(sys.argv[1:3]):])[:2]
    for path in release_source(lessons_dir, course_dir, sys.argv[3:] or None):
        print(path)
