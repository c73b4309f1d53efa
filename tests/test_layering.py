"""The layers of teachtorch are real: every import, at the top of a file or inside a function, points down.

teachtorch is built in layers, each importing only those below it (docs/architecture.md). This test parses
every import in teachtorch/ (with `ast`, so nothing is executed) and checks the rule. A lazy import inside a
function does not escape it: it is how a cycle hides, and the reader following the code up and down the stack
meets it all the same. Within one layer, modules may import each other.

PyTorch keeps the same discipline by build system: c10 cannot include ATen, ATen cannot include
torch/csrc/autograd, and the Python package imports the C++ extension, never the other way round.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "teachtorch"

# bottom to top; a module is placed by the first name under teachtorch/ (teachtorch/ops/views.py is "ops")
LAYERS = [
    # what everything needs: dtypes, devices, the dispatch keys, grad mode's switches, stride arithmetic
    {"_dtype", "_device", "_dispatch_key", "_grad_mode", "_strides", "_repr", "_checkpoint_file",
     "_out_of_scope"},
    {"_storage"},                                   # a flat buffer of bytes on a device
    {"_tensor"},                                    # a storage seen through (offset, sizes, strides, dtype)
    {"dispatch"},                                   # schemas, dispatch keys, the dispatcher
    {"backends"},                                   # the array libraries: NumPy (cpu), CuPy (cuda)
    {"kernels"},                                    # array code, one family per file
    {"ops", "linalg", "_legacy_tensor_types"},      # the ops: schemas, kernels per key, the public functions
    {"autograd"},                                   # derivatives, the graph, the engine
    {"nn", "optim", "utils", "datasets", "serialization", "_checkpoint_tree", "amp", "cuda", "accelerator",
     "distributed", "_compile", "sparse", "onnx", "ao", "quantization", "library"},   # library: torch.library
    {"explorer", "testing", "run", "_torch_alias", "exercises"},  # what watches or drives the layers below
    {"__init__"},                                   # the package: imports everything
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}
# `import teachtorch as tt`: the public namespace, whose names all come from the layers up to autograd. nn and
# above may use it, as torch/nn/functional.py does `import torch`; below nn it would be a cycle.
PUBLIC = "teachtorch (the public namespace)"
LAYER[PUBLIC] = LAYER["nn"]


def _top(parts):
    return parts[0] if parts else "__init__"


def _imports(path):
    """(line, first name under teachtorch/ of the imported module, whether inside a function) of every
    teachtorch import in `path`."""
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])          # the package the module is in (for __init__: the package itself)
    tree = ast.parse(path.read_text())
    in_function = {id(sub) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for sub in ast.walk(node)}
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            module = base + (node.module.split(".") if node.module else [])
            targets = [module] if module else [[a.name] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("teachtorch"):
            module = node.module.split(".")[1:]
            targets = [module] if module else [[a.name] for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name.split(".")[1:] or [PUBLIC] for a in node.names
                       if a.name == "teachtorch" or a.name.startswith("teachtorch.")]
        for target in targets:
            yield node.lineno, _top(target), id(node) in in_function


def _modules():
    return sorted(p for p in ROOT.rglob("*.py") if "_widgets" not in p.parts)


def test_every_module_has_a_layer():
    missing = {_top(p.relative_to(ROOT).with_suffix("").parts) for p in _modules()} - set(LAYER) - {PUBLIC}
    assert not missing, f"give these a layer in LAYERS (and in docs/architecture.md): {sorted(missing)}"


def test_imports_point_down():
    upward = []
    for path in _modules():
        source = _top(path.relative_to(ROOT).with_suffix("").parts)
        for line, target, lazy in _imports(path):
            if target in LAYER and LAYER[target] > LAYER[source]:
                upward.append(f"teachtorch/{path.relative_to(ROOT)}:{line}: {source} imports {target}"
                              + (" (inside a function)" if lazy else ""))
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)


def test_the_checker_sees_lazy_and_relative_imports(tmp_path, monkeypatch):
    """The test itself can fail: an upward import hidden in a function, written relatively, is found."""
    package = tmp_path / "teachtorch"
    (package / "ops").mkdir(parents=True)
    (package / "ops" / "bad.py").write_text("def f():\n    from ..nn import Module\n    return Module\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", package)
    assert list(_imports(package / "ops" / "bad.py")) == [(2, "nn", True)]
    (package / "ops" / "worse.py").write_text("import teachtorch\n")
    assert list(_imports(package / "ops" / "worse.py")) == [(1, PUBLIC, False)]
    try:
        test_imports_point_down()
    except AssertionError as e:
        assert "teachtorch/ops/bad.py:2: ops imports nn (inside a function)" in str(e)
        assert f"teachtorch/ops/worse.py:1: ops imports {PUBLIC}" in str(e)
    else:
        raise AssertionError("the upward import was not reported")


# ---- size: a file a reader finishes in one sitting, a function they hold in their head -------------------------

MAX_FILE_LINES, MAX_FUNCTION_LINES = 600, 60


def _oversized(path):
    """(what, line) for the file and each function of `path` over the limits that do not say why."""
    source = path.read_text()
    lines = source.splitlines()
    found = []
    if len(lines) > MAX_FILE_LINES and not any(line.startswith("# Over 600 lines: ") for line in lines[:3]):
        found.append((f"file of {len(lines)} lines", 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            head = lines[node.lineno - 1:min(node.end_lineno, node.lineno + 40)]
            if length > MAX_FUNCTION_LINES and not any(line.strip().startswith("# Over 60 lines: ") for line in head):
                found.append((f"{node.name}() of {length} lines", node.lineno))
    return found


def test_long_files_and_functions_say_why():
    """Files over 600 lines and functions over 60 lines are allowed only with a reason a reader can weigh,
    written where they meet it: `# Over 600 lines: ...` at the top of the file, `# Over 60 lines: ...` at the
    top of the function."""
    problems = [f"teachtorch/{path.relative_to(ROOT)}:{line}: {what}"
                for path in _modules() for what, line in _oversized(path)]
    assert not problems, "say why, or split:\n" + "\n".join(problems)


def test_the_size_check_can_fail(tmp_path):
    long_function = "def f():\n" + "    x = 1\n" * 70
    (tmp_path / "a.py").write_text(long_function)
    assert _oversized(tmp_path / "a.py") == [("f() of 71 lines", 1)]
    (tmp_path / "b.py").write_text("def f():\n    # Over 60 lines: a reason.\n" + "    x = 1\n" * 70)
    assert _oversized(tmp_path / "b.py") == []
    (tmp_path / "c.py").write_text("x = 1\n" * 601)
    assert _oversized(tmp_path / "c.py") == [("file of 601 lines", 1)]
