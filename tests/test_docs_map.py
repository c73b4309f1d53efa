"""The map stays true: every path and every function name that a document points at exists.

The lessons, README, CONTRIBUTING and docs/ send readers into the source ("`record` in
`autograd/variable_type.py`"). Code moves (issue 15 reshapes the layout); this test fails on a pointer
that was left behind, and lists every stale one at once, as `file:line: what is missing`.

What is read
    documents  README.md, CONTRIBUTING.md, docs/*.md, widgets/README.md, lessons/*.md, slides/**, deploy/**/*.md:
               the whole text;
    sources    lessons/*.py, examples/*.py, bench/*.py, teachtorch/**/*.py: comments and docstrings only (a
               lesson's markdown cells are comments); code and other strings are not read.

Paths (letters, digits and `_ . - / *`; `*` is a glob). Each may end with `:123` (a line, which must be in
the file) or `:name` / `::name` (a name the file must define, see N1).
    P1  A path in backticks or in a table cell whose first folder is one of the repository's
        (teachtorch/ tests/ lessons/ slides/ widgets/ bench/ examples/ docs/ requirements/ .ci/ deploy/), or a
        top-level file (`README.md`, `pyproject.toml`, `Makefile`, ...): the file or folder exists. A
        folder that only the wheel has (pyproject.toml's force-include) counts.
    P2  A `.py` path anywhere, quoted or not, that starts with `teachtorch/` or with a folder of teachtorch/
        (`ops/pointwise.py`, `autograd/derivatives/*.py`): it exists (the short form under teachtorch/).
    P3  A `.py` path in backticks with no known first folder (`engine.py`, `derivatives/*.py`), and in the
        library's own comments also unquoted (`see _define.py`): it is found next to the file, under
        teachtorch/, or as the end of some file's path. NOT_OURS lists other projects' files and
        placeholders the text names (`train.py` of nanoGPT, `script.py`).
    P4  A path of PyTorch's Python package (`torch/nn/modules/conv.py`, `torch/optim/`): it exists in the
        PyTorch installed as the tests' oracle (C++ paths, `torch/csrc/...`, `aten/...`, are not checked).

Names tied to a file (a name is `foo`, `foo()`, `foo(args)` or `Class.member`)
    N1  `path.py:name` or `path.py::name`                   the file defines the name
    N2  `path.py` `name`, `path.py`: `a`, `b` and `path.py` (`a`, `b`); unquoted, only as
        folder/file.py `name` (a folder in the path, a space before the name): the file defines each name
    N3  `name` in `path.py` (the path quoted or not)      the file defines the name
    N4  a dotted name in backticks starting with `teachtorch.` or `tt.` or, outside the library's own
        comments (where `linalg.x` is often PyTorch's), with a top-level module or package of teachtorch (`backends.write(dst, value)`, `autograd.graph.walk`):
        the longest prefix that is a module file is found and the next part is defined in it (and for a
        class, the part after it in the class). Names a package makes at run time (re-exported in a loop,
        bound onto Tensor) are looked up on the imported package instead.
    "Defines" is read with `ast`: a top-level def, class, assignment or import of the file, or a def or
    assignment in a class's body.

The checker is plain functions over a root folder: the tests at the end run it on small made-up
repositories and show it failing.
"""

import ast
import fnmatch
import functools
import importlib
import importlib.util
import os
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

REPO_ROOTS = ("teachtorch", "tests", "lessons", "slides", "widgets", "bench", "examples", "docs",
              "requirements", ".ci", "deploy")
# Paths in PyTorch's (or TensorBoard's) source tree, cited as counterparts: never files of this repository.
PYTORCH_ROOTS = ("torch", "c10", "aten", "tools", "caffe2", "third_party", "tensorboard", "torchgen",
                 "functorch", "test")
# Other projects' files that README.md runs unchanged, and placeholders in usage lines.
NOT_OURS = {"train.py", "makemore.py", "word_language_model/main.py", "time_sequence_prediction/train.py",
            "regression/main.py", "config/train_shakespeare_char.py", "script.py",
            "nbgrader_config.py"}   # nbgrader_config.py: the file gradebook.py writes into a course folder
# `explorer.js` in backticks is a file name, not a dotted Python name.
FILE_EXTENSIONS = {"py", "js", "css", "md", "json", "txt", "toml", "yaml", "cpp", "h", "html", "ipynb", "svg",
                   "png", "pt", "pth", "cfg", "ini", "sh"}

_PATH = r"[\w.*-]+(?:/[\w.*-]+)*/?"
_SUFFIX = r"(?::\d+|::?[A-Za-z_]\w*(?:\.\w+)?)?"
_NAME = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?(?:\([^`]*\))?"
_PATH_TOKEN_RE = re.compile(r"(" + _PATH + r")(" + _SUFFIX + r")")
# a path not glued to a longer token on its left (so `torch/nn/conv.py` is never read as `nn/conv.py`)
_PY_PATH_RE = re.compile(r"(?<![\w./*-])((?:[\w*-]+/)*[\w*-]+\.py)(" + _SUFFIX + r")")
_TORCH_PATH_RE = re.compile(r"(?<![\w./*-])(torch/(?:[\w-]+/)*(?:[\w-]+\.py|))(?![\w*-])")
_BACKTICK_RE = re.compile(r"`([^`\n]+)`")
_TABLE_CELL_RE = re.compile(r"[^\s|`(),;]+")
_N2_RE = re.compile(r"`(" + _PATH + r"\.py)`\s*(?::|\()?\s*((?:`" + _NAME + r"`(?:\s*,\s*|\s+and\s+|\s+)?)+)"
                    r"|(?<![\w./*-])((?:[\w*-]+/)+[\w*-]+\.py)[ \t]+(`" + _NAME + r"`)")
_N3_RE = re.compile(r"`(" + _NAME + r")`\s+in\s+`?((?:[\w*-]+/)*[\w*-]+\.py)\b")
_DOTTED_RE = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?")


# ---- reading the repository ----------------------------------------------------------------------------


def documents(root):
    """The prose files: read whole."""
    found = [root / "README.md", root / "CONTRIBUTING.md", root / "widgets" / "README.md"]
    found += sorted((root / "docs").glob("*.md"))
    found += sorted((root / "lessons").glob("*.md"))
    found += sorted(p for p in (root / "slides").rglob("*") if p.is_file() and p.suffix in (".md", ".py"))
    found += sorted(p for p in (root / "deploy").rglob("*.md") if "node_modules" not in p.parts)
    return [p for p in found if p.is_file()]


def sources(root):
    """The Python files whose comments and docstrings are read."""
    found = []
    for folder, pattern in (("lessons", "*.py"), ("examples", "*.py"), ("bench", "*.py"), ("teachtorch", "**/*.py")):
        found += sorted((root / folder).glob(pattern))
    return found


# One pass over a Python file: comments, then strings (triple-quoted ones first, so that `"""` is not
# read as an empty string and a quote).
_LEXEME_RE = re.compile(r'#[^\n]*|"""[\s\S]*?"""' + r"|'''[\s\S]*?'''"
                        + r'|"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")


def prose_of_python(text):
    """The comments and docstrings of a Python file, on their own line numbers, everything else blanked.

    A docstring here is a triple-quoted string that starts its line (a lexer pass rather than `ast`: this
    reads every file of the library and must stay fast); other strings are code, and are skipped."""
    out, last = [], 0
    for m in _LEXEME_RE.finditer(text):
        lexeme = m.group(0)
        if not lexeme.startswith("#"):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if lexeme[:3] not in ('"""', "'''") or text[line_start:m.start()].strip(" \trRbBuUfF"):
                continue
        out.append(" " + "\n" * text.count("\n", last, m.start()))
        out.append(lexeme)
        last = m.end()
    out.append("\n" * text.count("\n", last))
    return "".join(out)


def installed_torch():
    """The folder holding the installed `torch` package (the tests' oracle), found without importing it."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent.parent


class Repo:
    """A repository folder: its files and folders, and the names each Python file defines (read once)."""

    def __init__(self, root, torch_site=None):
        self.root = Path(root)
        self.torch_site = torch_site          # where `torch/...` paths are looked up; None: not checked
        skip = {".venv", ".git", "__pycache__", ".hypothesis", ".pytest_cache", "work", "test-artifacts",
                "node_modules", ".venv-constraints", "build", "dist"}
        self.files, self.dirs = set(), set()
        for folder, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in skip and not d.endswith(".egg-info")]
            rel = Path(folder).relative_to(self.root).as_posix()
            if rel != ".":
                self.dirs.add(rel)
            for f in filenames:
                self.files.add(f if rel == "." else f"{rel}/{f}")
        package = self.root / "teachtorch"
        entries = list(package.iterdir()) if package.is_dir() else []
        self.teachtorch_dirs = {p.name for p in entries if p.is_dir() and p.name != "__pycache__"}
        self.teachtorch_modules = {p.stem for p in entries if p.suffix == ".py" and p.stem != "__init__"}
        # folders that only the built wheel has (pyproject.toml's force-include), e.g. the widgets' copy
        self.wheel_paths = set()
        if (self.root / "pyproject.toml").is_file():
            config = tomllib.loads((self.root / "pyproject.toml").read_text(encoding="utf-8"))
            wheel = config.get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
            self.wheel_paths = set(wheel.get("force-include", {}).values())

    def exists(self, rel):
        rel = rel.rstrip("/")
        if any(c in rel for c in "*?["):
            return any(fnmatch.fnmatch(f, rel) for f in self.files)
        return rel in self.files or rel in self.dirs or rel in self.wheel_paths

    def ends_with(self, rel):
        """The repository files whose path ends with `rel`, whole components at a time."""
        return sorted(f for f in self.files if f == rel or fnmatch.fnmatch(f, "*/" + rel))

    @functools.lru_cache(maxsize=None)
    def names(self, rel):
        """{name: set of member names (a class) or None}: what the Python file `rel` defines."""
        return _defined(ast.parse((self.root / rel).read_text(encoding="utf-8")).body, classes=True)

    @functools.lru_cache(maxsize=None)
    def line_count(self, rel):
        return (self.root / rel).read_text(encoding="utf-8").count("\n") + 1


def _defined(body, classes):
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = None
        elif isinstance(node, ast.ClassDef):
            names[node.name] = set(_defined(node.body, classes=False)) if classes else None
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.setdefault(leaf.id, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.setdefault((alias.asname or alias.name).split(".")[0], None)
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For)):   # definitions under `if`, `try`, ...
            inner = list(node.body) + list(getattr(node, "orelse", [])) + list(getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                inner += handler.body
            for name, members in _defined(inner, classes).items():
                names.setdefault(name, members)
    return names


# ---- what a text points at ------------------------------------------------------------------------------


def _first_part(rel):
    return rel.split("/")[0]


def _is_top_level_file(rel):
    return "/" not in rel and (rel.endswith((".md", ".toml")) or rel == "Makefile")


def resolve_path(repo, rel, source):
    """The repository files or folders a path written in `source` means: [] if none, None if not ours."""
    if rel in NOT_OURS or _first_part(rel) in PYTORCH_ROOTS:
        return None
    if _first_part(rel) in REPO_ROOTS:
        return [rel] if repo.exists(rel) else []
    here = Path(source).parent.as_posix()
    if _is_top_level_file(rel):
        found = [p for p in (rel, f"{here}/{rel}") if repo.exists(p)]
        return found[:1]
    candidates = []
    if here.startswith("teachtorch"):
        candidates.append(f"{here}/{rel}")
    if _first_part(rel) in repo.teachtorch_dirs or "/" not in rel:
        candidates.append("teachtorch/" + rel)
    for candidate in candidates:
        if repo.exists(candidate):
            return [candidate]
    if _first_part(rel) in repo.teachtorch_dirs:
        return []
    return repo.ends_with(rel)                # `engine.py`, `derivatives/*.py`: written short


def defined_in(repo, rel, name):
    """Does the Python file `rel` define `name` (`foo` or `Class.member`)?"""
    if not rel.endswith(".py") or rel not in repo.files:
        return False
    names = repo.names(rel)
    first, _, member = name.partition(".")
    if first not in names:
        return False
    return not member or names[first] is None or member in names[first]


def module_file(repo, parts):
    """teachtorch/a/b.py or teachtorch/a/b/__init__.py for parts [a, b], or None."""
    base = "/".join(["teachtorch", *parts])
    for rel in (base + ".py", base + "/__init__.py"):
        if rel in repo.files:
            return rel
    return None


def dotted_ok(repo, parts, import_root):
    """Does `teachtorch.<parts>` name a module, or something defined in one (N4)?"""
    for cut in range(len(parts), -1, -1):
        rel = module_file(repo, parts[:cut])
        if rel is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        names = repo.names(rel)
        if rest[0] in names:
            members = names[rest[0]]
            return len(rest) == 1 or members is None or rest[1] in members
        break
    if not import_root:
        return False
    try:                                      # made at run time: ask the imported package
        obj = importlib.import_module("teachtorch")
        for part in parts:
            obj = getattr(obj, part)
        return True
    except Exception:
        return False


def _line(text, offset):
    return text.count("\n", 0, offset) + 1


def _strip_call(name):
    return name.split("(")[0].strip()


def _table_cells(text):
    """(offset, word) for each word of each markdown table row (in a lesson, rows are `# | ... |`)."""
    offset = 0
    for line in text.split("\n"):
        body = line.lstrip().lstrip("#").lstrip()
        if body.startswith("|"):
            for m in _TABLE_CELL_RE.finditer(line):
                yield offset + m.start(), m.group(0).rstrip(".:")   # a sentence's full stop is not the path's
        offset += len(line) + 1


def check_text(repo, source, text, is_document, import_root=True):
    """Every stale pointer in `text`, the prose of the file `source`, as 'source:line: ...' strings."""
    problems, seen = [], set()
    in_library = source.startswith("teachtorch/")

    def report(offset, message):
        entry = f"{source}:{_line(text, offset)}: {message}"
        if entry not in seen:
            seen.add(entry)
            problems.append(entry)

    def check_path(offset, written, suffix):
        files = resolve_path(repo, written, source)
        if files is None:
            return
        if not files:
            report(offset, f"`{written}` does not exist")
            return
        target = suffix.lstrip(":")
        if target.isdigit():
            if not any(f in repo.files and int(target) <= repo.line_count(f) for f in files):
                report(offset, f"`{written}{suffix}`: {files[0]} has no line {target}")
        elif target and not any(defined_in(repo, f, target) for f in files):
            report(offset, f"`{written}{suffix}`: `{target}` is not defined in {' or '.join(files)}")

    def tied(offset, name, written):
        files = resolve_path(repo, written, source)
        if files and not any(defined_in(repo, f, _strip_call(name)) for f in files):
            report(offset, f"`{_strip_call(name)}` is not defined in {' or '.join(files)}")

    # P1, P3 (and N1): paths in backticks and in table cells
    quoted = [(m.start(1), m.group(1).strip()) for m in _BACKTICK_RE.finditer(text)]
    for offset, token in quoted + list(_table_cells(text)):
        m = _PATH_TOKEN_RE.fullmatch(token)
        if not m or m.group(1).split("/")[-1] == ".py":
            continue
        written, suffix = m.group(1), m.group(2)
        if (_first_part(written) in REPO_ROOTS and "/" in written) or _is_top_level_file(written) \
                or written.endswith(".py"):
            check_path(offset, written, suffix)

    # P2, P3 unquoted (and N1): .py paths anywhere in the prose
    for m in _PY_PATH_RE.finditer(text):
        written = m.group(1)
        first = _first_part(written)
        if first == "teachtorch" or ("/" in written and first in repo.teachtorch_dirs) \
                or (in_library and "/" not in written):
            check_path(m.start(1), written, m.group(2))

    # P4: PyTorch's Python files, against the installed PyTorch
    if repo.torch_site is not None:
        for m in _TORCH_PATH_RE.finditer(text):
            written = m.group(1)
            if not written.startswith("torch/csrc/") and not (repo.torch_site / written).exists():
                report(m.start(1), f"`{written}` is not in PyTorch (the installed torch has no such path)")

    # N2: `path.py` `name`, `path.py`: `a`, `b`, `path.py` (`a`, `b`), dir/path.py `name`
    for m in _N2_RE.finditer(text):
        path, names = (1, 2) if m.group(1) else (3, 4)
        for n in re.finditer(r"`(" + _NAME + r")`", m.group(names)):
            tied(m.start(names) + n.start(1), n.group(1), m.group(path))

    # N3: `name` in path.py
    for m in _N3_RE.finditer(text):
        tied(m.start(1), m.group(1), m.group(2))

    # N4: dotted names in backticks
    top_level = repo.teachtorch_modules | repo.teachtorch_dirs
    for m in _BACKTICK_RE.finditer(text):
        d = _DOTTED_RE.fullmatch(m.group(1).strip())
        if not d:
            continue
        parts = d.group(1).split(".")
        if parts[-1] in FILE_EXTENSIONS:
            continue
        if parts[0] in ("teachtorch", "tt"):
            parts = parts[1:]
        elif parts[0] not in top_level or in_library:
            continue                          # in the library's comments `linalg.x` is often PyTorch's
        if not dotted_ok(repo, parts, import_root):
            report(m.start(1), f"`{d.group(1)}`: `teachtorch.{'.'.join(parts)}` is not defined")
    return sorted(problems, key=lambda entry: int(entry[len(source) + 1:].split(":")[0]))


def stale_references(root=ROOT, torch_site=None, import_root=True):
    """Every stale reference in the repository at `root`, in file order."""
    repo = Repo(root, torch_site)
    problems = []
    for path in documents(repo.root):
        rel = path.relative_to(repo.root).as_posix()
        problems += check_text(repo, rel, path.read_text(encoding="utf-8"), True, import_root)
    for path in sources(repo.root):
        rel = path.relative_to(repo.root).as_posix()
        problems += check_text(repo, rel, prose_of_python(path.read_text(encoding="utf-8")), False, import_root)
    return problems


# ---- the tests -------------------------------------------------------------------------------------------


def test_every_path_and_name_the_documents_point_at_exists():
    problems = stale_references(ROOT, installed_torch())
    assert not problems, f"{len(problems)} stale reference(s):\n" + "\n".join(problems)


def test_the_architecture_map_covers_every_layer():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "tests/test_docs_map.py" in text
    for folder in ("dispatch", "backends", "kernels", "ops", "autograd", "nn", "optim", "utils/data", "explorer"):
        assert f"`teachtorch/{folder}/" in text, folder
    for top in ("lessons/", "slides/", "examples/", "bench/", "tests/", "widgets/", "requirements/", ".ci/"):
        assert f"`{top}`" in text, top


# ---- the checker, shown able to fail ----------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path):
    """A made-up repository: a package with one module, a test helper, and a made-up installed torch."""
    (tmp_path / "teachtorch" / "autograd").mkdir(parents=True)
    (tmp_path / "teachtorch" / "__init__.py").write_text("from . import autograd\n")
    (tmp_path / "teachtorch" / "autograd" / "__init__.py").write_text("from .engine import execute\n")
    (tmp_path / "teachtorch" / "autograd" / "engine.py").write_text(
        "LIMIT = 3\n\n\ndef execute(graph):\n    return graph\n\n\nclass Engine:\n"
        "    depth = 0\n\n    def run(self):\n        pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "parity.py").write_text("def check(): pass\n")
    (tmp_path / "README.md").write_text("# tiny\n")
    (tmp_path / "site" / "torch" / "autograd").mkdir(parents=True)
    (tmp_path / "site" / "torch" / "autograd" / "function.py").write_text("")
    return Repo(tmp_path, torch_site=tmp_path / "site")


def _check_doc(repo, text):
    return check_text(repo, "docs/x.md", text, is_document=True, import_root=False)


def test_checker_passes_good_pointers(tiny):
    good = ("See `teachtorch/autograd/engine.py`, `tests/parity.py`, `teachtorch/autograd/`, `README.md`.\n"
            "`teachtorch/autograd/engine.py:execute` and `teachtorch/autograd/engine.py::Engine.run`, "
            "`teachtorch/autograd/engine.py:4`, `autograd/*.py`.\n"
            "`autograd/engine.py` `execute()`, `autograd/engine.py`: `LIMIT`, `Engine`.\n"
            "`execute` in `autograd/engine.py`; `Engine.run` in teachtorch/autograd/engine.py.\n"
            "`teachtorch.autograd.engine.execute`, `tt.autograd.execute`, `autograd.engine.Engine.depth`.\n"
            "| `engine.py` | see teachtorch/autograd/engine.py. | `torch/csrc/autograd/engine.cpp` |\n"
            "PyTorch's torch/autograd/function.py, `c10/core/TensorImpl.h`; `train.py` is nanoGPT's.\n")
    assert _check_doc(tiny, good) == []


def test_checker_reports_stale_paths(tiny):
    text = ("line one\nthe engine: `teachtorch/autograd/engine2.py`\n| tests/missing.py | x |\n"
            "`engine3.py`, and autograd/gone.py, `CHANGES.md`, torch/autograd/functions.py\n")
    assert _check_doc(tiny, text) == [
        "docs/x.md:2: `teachtorch/autograd/engine2.py` does not exist",
        "docs/x.md:3: `tests/missing.py` does not exist",
        "docs/x.md:4: `engine3.py` does not exist",
        "docs/x.md:4: `CHANGES.md` does not exist",
        "docs/x.md:4: `autograd/gone.py` does not exist",
        "docs/x.md:4: `torch/autograd/functions.py` is not in PyTorch (the installed torch has no such path)",
    ]


def test_checker_reports_every_stale_name_at_once(tiny):
    text = ("`teachtorch/autograd/engine.py:run_backward`\n"
            "`autograd/engine.py` `execute`, `validate_outputs()`\n"
            "`record` in `autograd/engine.py`\n"
            "`teachtorch.autograd.engine.evaluate_function` and `Engine.stop` in autograd/engine.py\n"
            "`teachtorch/autograd/engine.py:99`\n")
    assert _check_doc(tiny, text) == [
        "docs/x.md:1: `teachtorch/autograd/engine.py:run_backward`: `run_backward` is not defined in "
        "teachtorch/autograd/engine.py",
        "docs/x.md:2: `validate_outputs` is not defined in teachtorch/autograd/engine.py",
        "docs/x.md:3: `record` is not defined in teachtorch/autograd/engine.py",
        "docs/x.md:4: `Engine.stop` is not defined in teachtorch/autograd/engine.py",
        "docs/x.md:4: `teachtorch.autograd.engine.evaluate_function`: "
        "`teachtorch.autograd.engine.evaluate_function` is not defined",
        "docs/x.md:5: `teachtorch/autograd/engine.py:99`: teachtorch/autograd/engine.py has no line 99",
    ]


def test_checker_reads_only_the_comments_and_docstrings_of_python_files(tiny):
    source = ('"""Module docstring: see teachtorch/autograd/gone.py."""\n'
              'x = "teachtorch/autograd/also_gone.py"   # but teachtorch/autograd/engine.py exists\n'
              '# | `execute` in autograd/engine.py | `missing` in autograd/engine.py |\n'
              'def f():\n    """`tests/nowhere.py`"""\n')
    problems = check_text(tiny, "lessons/00_x.py", prose_of_python(source), is_document=False, import_root=False)
    assert problems == ["lessons/00_x.py:1: `teachtorch/autograd/gone.py` does not exist",
                        "lessons/00_x.py:3: `missing` is not defined in teachtorch/autograd/engine.py",
                        "lessons/00_x.py:5: `tests/nowhere.py` does not exist"]


def test_checker_resolves_a_library_comment_next_to_its_file(tiny):
    text = prose_of_python("# the engine (engine.py `execute`, autograd/engine.py `stop`), see _gone.py\n")
    assert check_text(tiny, "teachtorch/autograd/api.py", text, is_document=False, import_root=False) == [
        "teachtorch/autograd/api.py:1: `_gone.py` does not exist",
        "teachtorch/autograd/api.py:1: `stop` is not defined in teachtorch/autograd/engine.py",
    ]


def test_checker_asks_the_package_for_names_it_makes_at_run_time():
    repo = Repo(ROOT)      # `teachtorch.add` is re-exported in a loop, `Tensor.add_` bound by bind_method
    good = "`tt.add`, `teachtorch.Tensor.add_`, `tt.nn.Linear`, `teachtorch.dispatch.trace()`\n"
    assert check_text(repo, "docs/x.md", good, is_document=True) == []
    assert check_text(repo, "docs/x.md", "\n`tt.add_everything(x)`\n", is_document=True) == [
        "docs/x.md:2: `tt.add_everything`: `teachtorch.add_everything` is not defined"]


def test_life_of_an_op_is_what_the_live_traces_say():
    """docs/life_of_an_op.md is generated from live traces (docs/life_of_an_op.py): moving code without
    regenerating it fails here, with the command to run."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("life_of_an_op", ROOT / "docs" / "life_of_an_op.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.PAGE.read_text() == script.render(), (
        "docs/life_of_an_op.md is out of date: run `python docs/life_of_an_op.py` and commit it")
