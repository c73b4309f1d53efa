"""Hand a student their own working copy of the course: the same step as `make work`, for JupyterHub.

`make work` copies lessons/*.py (in the student's form: each solution replaced by a stub, by
teachtorch/exercises/course.py --student), examples/*.py, slides/[a-z]_*.py and slides/*.md into work/,
the first time, and later adds what is new without overwriting a file the student already has. This does
exactly that into a student's notebook folder; jupyterhub_config.py runs it as the spawner's pre-spawn hook,
so it happens at every server start (a lesson added to the course mid-term arrives at the next login, and
nothing the student wrote is ever replaced).

It needs nothing but Python's standard library: the hub's Python may not have teachtorch installed.

    python3 deploy/jupyterhub/course_copy.py COURSE_DIR DEST_DIR    # by hand, e.g. to pre-fill a home
"""

import importlib.util
import os
import sys
from pathlib import Path

# The files `make work` copies (the Makefile's `work` target), relative to the course (repository) root.
PATTERNS = ("lessons/*.py", "examples/*.py", "slides/[a-z]_*.py", "slides/*.md")


def _student_source_function(course_dir):
    """teachtorch/exercises/course.py's student_source, loaded from the course's own checkout."""
    path = Path(course_dir) / "teachtorch" / "exercises" / "course.py"
    spec = importlib.util.spec_from_file_location("_teachtorch_course_for_hub", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.student_source


def copy_course(course_dir, dest, uid=None, gid=None):
    """Copy what is missing of the course into dest (never overwriting); returns the paths it wrote.

    uid/gid: when given (a hub running as root for real system users), every folder and file created is
    handed to that user, so the student can edit and delete their copy.
    """
    course_dir, dest = Path(course_dir), Path(dest)
    student_source = _student_source_function(course_dir)
    written = []

    def own(path):
        if uid is not None:
            os.chown(path, uid, gid if gid is not None else -1)

    if not dest.exists():
        dest.mkdir(parents=True)
        own(dest)
    for pattern in PATTERNS:
        for src in sorted(course_dir.glob(pattern)):
            if not src.is_file():
                continue
            rel = src.relative_to(course_dir)
            target = dest / rel
            if target.exists() or target.is_symlink():     # the student's file: never touched
                continue
            if not target.parent.exists():
                target.parent.mkdir(parents=True)
                own(target.parent)
            text = src.read_text(encoding="utf-8")
            if rel.parts[0] == "lessons":
                text = student_source(text)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            own(tmp)
            os.replace(tmp, target)
            written.append(target)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 course_copy.py COURSE_DIR DEST_DIR")
    for path in copy_course(sys.argv[1], sys.argv[2]):
        print(path)
