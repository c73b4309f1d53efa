"""Lessons run as real notebooks, in a kernel, without errors, and print what their text says they print.
Every lesson runs in both forms `make course` builds: the teacher's (every exercise check passes) and the
student's (every check says "not solved yet", and nothing else fails).

(The explorer tour, lessons/explorer_tour.py, has its own test with its pictures: test_explorer_notebook.py.)"""

import re
import time
from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

from teachtorch.exercises import course

LESSONS = Path(__file__).resolve().parent.parent / "lessons"


def _run(name, tmp_path):
    nb = jupytext.read(LESSONS / name)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    return "".join(o.get("text", "") for o in outputs if o.output_type == "stream")


def test_backends_lesson_finds_the_lost_writeback(tmp_path):
    text = _run("06_devices.py", tmp_path)
    assert "CUDA: DeviceCheck(mm_kernel) [kernel]" in text
    assert "disagrees with cpu first at op" in text and "aten.addcmul_.default" in text
    assert "input 0 (Linear) weight after fn" in text
    # contiguous parameters hide the bug; the fixed kernel agrees
    assert text.count("True") >= 2


def _execute(nb, tmp_path):
    """Run a notebook; (its outputs' text, stream and displayed values alike, seconds it took)."""
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    took = time.perf_counter() - start
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, [(e.ename, e.evalue) for e in errors]
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    return text, took


@pytest.mark.parametrize("name", [p.name for p in sorted(LESSONS.glob("[0-9][0-9]_*.py"))])
def test_every_lesson_runs_as_teacher_and_as_student(name, tmp_path):
    source = (LESSONS / name).read_text()
    checks = re.findall(r'^check\("([^"]+)"', source, flags=re.M)
    student, teacher = course.notebooks(LESSONS / name)
    taught, took = _execute(teacher, tmp_path)
    assert took < 60, f"{name} took {took:.0f} s as the teacher's notebook"
    for exercise in checks:
        assert f"✓ {exercise}: passed" in taught, (exercise, taught[-2000:])
    learnt, _ = _execute(student, tmp_path)
    for exercise in checks:
        assert f"… {exercise}: not solved yet" in learnt
    assert "passed" not in learnt or not checks


def test_lesson_1_checks_and_names_what_it_says():
    source = (LESSONS / "01_storage.py").read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == ["L01.contiguous_strides", "L01.index_to_offset"]
    assert len(course.solution_blocks(source)) == 2
