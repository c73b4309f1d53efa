"""Names for the tensors in the pictures, as the student wrote them: `x`, `x.t()`, `W.grad`, `0.weight`.

A picture that says `$179` or `t2` makes the student work out which tensor that is. The explorer names a
tensor, in this order:

1. by the text of the argument it was passed as: `StorageView(x, x.t(), x[1:, ::2])` and `ex.show(W, W.grad)`
   label their tensors `x`, `x.t()`, `x[1:, ::2]`, `W`, `W.grad` (`argument_texts`: the call's source,
   found by the `executing` package that IPython itself uses for its tracebacks);
2. by a variable of the code being watched that holds it (`x`), or whose `.grad` it is (`W.grad`), and by a
   model's parameter path (`0.weight`, `fc1.bias.grad`) when the model was given: `explore(model)`
   (`scope_names`);
3. otherwise by its `$n` in the dispatch trace, which numbers tensors in order of first appearance.

PyTorch has no such thing; its tools print `$0`-style names (LoggingTensorMode) or none at all.
"""

import ast

from .._tensor import Tensor
from .svg import clean


def argument_texts(frame, count):
    """The source text of the first `count` positional arguments of the call now running in `frame` (the
    caller of a function that calls this with `sys._getframe(1)`), or None where it cannot be found (no
    source: a `python -c` string; `*args`; the `executing` package missing)."""
    try:
        import executing
        found = executing.Source.executing(frame)
    except Exception:
        return [None] * count
    node, source = found.node, found.source
    if not isinstance(node, ast.Call):
        return [None] * count
    texts = []
    for arg in node.args[:count]:
        if isinstance(arg, ast.Starred):
            break                                  # positions after *args are unknown
        try:
            text = ast.get_source_segment(source.text, arg)
        except Exception:
            text = None
        texts.append(None if text is None else clean(" ".join(text.split())))   # one line, safe anywhere
    return texts + [None] * (count - len(texts))


def scope_names(frame, params=None):
    """{id(tensor): (tensor, name)} for the tensors the code can name: the variables of `frame` (the code
    being watched) that hold a tensor, their `.grad`, and the parameters of `params` (a Module, or a dict of
    name -> tensor) with their `.grad`. A variable's name wins over a parameter path: it is what the
    student typed. Names starting with `_` (IPython's `_`, `_3`, ...) are left out."""
    names = {}

    def add(t, name):
        if isinstance(t, Tensor) and id(t) not in names:
            names[id(t)] = (t, clean(name))      # any name is safe in SVG and JSON (svg.clean)

    variables = {}
    if frame is not None:
        try:
            variables = dict(frame.f_locals)
        except Exception:
            variables = {}
    for name, v in variables.items():
        if isinstance(v, Tensor) and not name.startswith("_"):
            add(v, name)
    for name, v in variables.items():
        if isinstance(v, Tensor) and not name.startswith("_"):
            add(v.__dict__.get("_grad"), f"{name}.grad")     # (not .grad: it warns for a non-leaf)
    if params is not None:
        items = params.named_parameters() if hasattr(params, "named_parameters") else params.items()
        for name, p in items:
            add(p, name)
            add(p.__dict__.get("_grad"), f"{name}.grad")
    return names


def lookup(names, t):
    """The name of `t` in a `scope_names` table (checked to be the same object), or None."""
    entry = names.get(id(t))
    return entry[1] if entry is not None and entry[0] is t else None
