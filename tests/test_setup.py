"""The set-up a student and a contributor get: the pinned environment, the student's working copy of the
course (`make work`, `make lab-reset`), lessons that open as notebooks from their .py files, the lazy
explorer import, and the README's first look printing what it says it prints."""

import doctest
import hashlib
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import jupytext
import pytest

from teachtorch.exercises import course

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"


# ---- pinned packages --------------------------------------------------------------------------------------


def _pins():
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def _extras():
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["optional-dependencies"], project["dependencies"]


def test_constraints_pin_every_dependency_of_the_package_and_its_extras():
    pins = _pins()
    extras, deps = _extras()
    for requirement in deps + [r for name in ("lab", "test", "cuda12", "cuda13") for r in extras[name]]:
        name = re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0]).lower()
        assert name in pins, f"{requirement!r} (pyproject.toml) has no pin in requirements/constraints.txt"


def test_the_suite_runs_in_the_pinned_environment():
    """`make test` installs with the constraints: what runs is what was pinned (a drifted venv fails here)."""
    pins = _pins()
    for name in ("numpy", "torch", "hypothesis", "pytest", "pytest-xdist", "jupyterlab", "jupytext", "playwright"):
        installed = metadata.version(name).split("+")[0]
        assert installed == pins[name], (f"{name} {installed} is installed but constraints.txt pins {pins[name]}: "
                                         f"run `make test` (it reinstalls when the pins change)")


# ---- the student's working copy ---------------------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path):
    """A copy of what `make work` and `make lab-reset` read: the Makefile, lessons, examples and slides."""
    for name in ("Makefile", "teachtorch/exercises/course.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("lessons", "examples", "slides"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


def _make(cwd, *args):
    return subprocess.run(["make", "-s", *args], cwd=cwd, capture_output=True, text=True)


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_work_copies_the_course_once_and_never_overwrites_a_students_edit(checkout):
    assert _make(checkout, "work").returncode == 0
    lessons = sorted(p.name for p in (checkout / "lessons").glob("*.py"))
    assert sorted(p.name for p in (checkout / "work" / "lessons").glob("*.py")) == lessons
    assert (checkout / "work" / "examples" / "digits_mlp.py").exists()
    assert (checkout / "work" / "slides" / "README.md").exists()

    # the student's form: the solutions are stubs, and nothing else changed
    handed = (checkout / "work" / "lessons" / "01_storage.py").read_text()
    assert "### BEGIN SOLUTION" not in handed and handed.count("your turn: write this") >= 2
    assert handed == course.student_source((checkout / "lessons" / "01_storage.py").read_text())
    assert (checkout / "work" / "lessons" / "index.py").read_text() == (checkout / "lessons" / "index.py").read_text()
    mine = checkout / "work" / "lessons" / lessons[1]
    mine.write_text(mine.read_text() + "\n# %%\nprint('my own cell')\n")
    shipped = _digest(checkout / "lessons" / lessons[1])
    (checkout / "lessons" / "99_new.py").write_text("# %%\nprint('new lesson')\n")
    assert _make(checkout, "work").returncode == 0
    assert "my own cell" in mine.read_text()                       # the edit survives a second run
    assert (checkout / "work" / "lessons" / "99_new.py").exists()   # a lesson added later arrives
    assert _digest(checkout / "lessons" / lessons[1]) == shipped      # the shipped lesson is untouched


def test_lab_reset_restores_one_lesson_and_keeps_the_students_version(checkout):
    _make(checkout, "work")
    lesson = sorted((checkout / "lessons").glob("01_*.py"))[0]
    mine = checkout / "work" / "lessons" / lesson.name
    other = sorted((checkout / "work" / "lessons").glob("00_*.py"))[0]
    mine.write_text("# broken beyond repair\n")
    other.write_text(other.read_text() + "\n# kept\n")
    result = _make(checkout, "lab-reset", "LESSON=01")
    assert result.returncode == 0, result.stderr
    assert mine.read_text() == course.student_source(lesson.read_text())
    assert other.read_text().endswith("# kept\n")                     # only the one lesson
    backups = list((checkout / "work" / ".backup").glob("01_*.py"))
    assert len(backups) == 1 and backups[0].read_text() == "# broken beyond repair\n"


@pytest.mark.parametrize("args", [("lab-reset",), ("lab-reset", "LESSON=42")])
def test_lab_reset_says_what_was_wrong(checkout, args):
    result = _make(checkout, *args)
    assert result.returncode == 2
    assert ("usage: make lab-reset LESSON=03" in result.stderr if len(args) == 1
            else "there is no lesson 42 in lessons/" in result.stderr)


def test_lessons_open_as_notebooks_without_an_ipynb_beside_them():
    """jupytext pairs a .py with an .ipynb when its header lists both formats: the lessons list only py."""
    for lesson in sorted((ROOT / "lessons").glob("*.py")):
        nb = jupytext.read(lesson)
        formats = nb.metadata.get("jupytext", {}).get("formats", "py:percent")
        assert "ipynb" not in formats, f"{lesson.name} is paired with an .ipynb ({formats})"
        assert sum(c.cell_type == "code" for c in nb.cells) >= (1 if lesson.name == "index.py" else 3), lesson.name


def test_jupyterlab_opens_python_files_with_jupytext():
    overrides = json_load(ROOT / "requirements" / "jupyterlab-overrides.json")
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["python"] == "Jupytext Notebook"
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert installed.exists() and json_load(installed) == overrides, "make lab / make test installs the overrides"
    labextension = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-jupytext"
    assert any("Jupytext Notebook" in p.read_text(errors="ignore") for p in labextension.rglob("*.js"))


def json_load(path):
    import json
    return json.loads(path.read_text())


# ---- import teachtorch: no Jupyter, explorer on first use ---------------------------------------------------


def test_explorer_is_a_lazy_attribute_and_the_core_imports_no_jupyter():
    code = (
        "import sys, teachtorch as tt\n"
        "heavy = ('IPython', 'ipywidgets', 'anywidget', 'graphviz', 'matplotlib', 'jupyter_client', 'comm')\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "assert loaded() == [], loaded()\n"
        "assert 'teachtorch.explorer' not in sys.modules\n"
        "svg = tt.explorer.storage_svg(tt.arange(6.).reshape(2, 3).t())\n"
        "assert svg.startswith('<svg') and 'teachtorch.explorer' in sys.modules\n"
        "assert loaded() == [], loaded()\n"
        "try:\n    tt.no_such_thing\nexcept AttributeError as e:\n"
        "    assert str(e) == \"module 'teachtorch' has no attribute 'no_such_thing'\"\n"
        "else:\n    raise SystemExit('no AttributeError')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ---- README -------------------------------------------------------------------------------------------------


def _readme_examples():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```pycon\n(.*?)```", text, flags=re.S)


def test_readme_first_look_prints_what_it_says():
    blocks = _readme_examples()
    assert len(blocks) >= 2, "README's first look is written as >>> examples"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: pytest.fail("README.md:\n" + s))
    assert runner.summarize(verbose=False).failed == 0


def test_no_test_asserts_a_timing():
    """Tests never assert timings (a loaded CI machine is many times slower); bench/ measures speed."""
    clock = re.compile(r"perf_counter|time\.time\(\)|monotonic|elapsed|wall_s")
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith("assert") and clock.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
