"""Lesson 7, derivatives and a scalar autograd (micrograd's `Value`): the exercises, and a picture of a Value graph.

    L07.central_difference   central_difference(f, x, h) -> the slope of f at x, (f(x+h) - f(x-h)) / 2h
    L07.value_ops            the `_backward` closures of Value's +, *, **, tanh and exp
    L07.topo_backward        Value.backward(): a topological order, a seed of 1, the closures in reverse

The first is checked against the analytic derivative of seeded random smooth functions (sums of sin, cos,
exp, tanh and powers), within a tolerance a forward difference misses. The other two get the student's
Value *class* (`check("L07.value_ops", Value)`) and build expressions with it: value_ops runs one op's
`_backward` on leaves that may already hold a gradient (so `=` instead of `+=` shows); topo_backward runs
`out.backward()` on micrograd's own tests (test/test_engine.py in karpathy/micrograd: test_more_ops gives
g = 24.7041, a.grad = 138.8338, b.grad = 645.5773) and on seeded random expressions whose nodes are used
more than once. Both compare with teachtorch's autograd on the same expression in float64. PyTorch's
counterparts: `torch.autograd.gradcheck` (torch/autograd/gradcheck.py, central differences in float64)
and the engine (torch/csrc/autograd/engine.cpp), which orders backward by counting dependencies.

`value_view(root)` draws a Value graph (anything with data, grad, _prev and _op) in the explorer's
GraphView, with the explorer's Graphviz helpers; `value_view(root, backward=True)` runs `root.backward()`
first, watching which `_backward` runs when, so the widget's stepper replays it.
"""

import math
import re
import sys

import numpy as np

from .. import _dtype
from ..ops.tensor_new import tensor
from .core import Exercise

# ---- L07.central_difference ---------------------------------------------------------------------------


class Smooth:
    """A smooth function of one number, a sum of terms (kind, a, b): a*sin(b*x), a*cos(b*x), a*exp(b*x),
    a*tanh(b*x) or a*x**b; callable, with its exact derivative, and shown as its formula in a report."""

    def __init__(self, *terms):
        self.terms = terms

    def __call__(self, x):
        f = {"sin": lambda a, b: a * math.sin(b * x), "cos": lambda a, b: a * math.cos(b * x),
             "exp": lambda a, b: a * math.exp(b * x), "tanh": lambda a, b: a * math.tanh(b * x),
             "pow": lambda a, b: a * x ** b}
        return sum(f[kind](a, b) for kind, a, b in self.terms)

    def derivative(self, x):
        d = {"sin": lambda a, b: a * b * math.cos(b * x), "cos": lambda a, b: -a * b * math.sin(b * x),
             "exp": lambda a, b: a * b * math.exp(b * x), "tanh": lambda a, b: a * b * (1 - math.tanh(b * x) ** 2),
             "pow": lambda a, b: a * b * x ** (b - 1)}
        return float(sum(d[kind](a, b) for kind, a, b in self.terms))

    def __repr__(self):
        show = {"sin": "{a}*sin({b}*x)", "cos": "{a}*cos({b}*x)", "exp": "{a}*exp({b}*x)",
                "tanh": "{a}*tanh({b}*x)", "pow": "{a}*x**{b}"}
        return "f(x) = " + " + ".join(show[kind].format(a=a, b=b) for kind, a, b in self.terms)


def _random_smooth_case(rng):
    terms = []
    for _ in range(int(rng.integers(1, 4))):
        kind = str(rng.choice(["sin", "cos", "exp", "tanh", "pow"]))
        a = round(float(rng.uniform(-2, 2)), 2)
        b = int(rng.integers(2, 4)) if kind == "pow" else round(float(rng.uniform(-1.5, 1.5)), 2)
        terms.append((kind, a, b))
    x = round(float(rng.uniform(-2, 2)), 3)
    h = float(10 ** rng.uniform(-5, -4))          # small enough for the central difference, not for others
    return Smooth(*terms), x, h


SQUARE, SIN, EXP, CUBE = (Smooth(("pow", 1.0, 2)), Smooth(("sin", 1.0, 1.0)), Smooth(("exp", 1.0, 1.0)),
                          Smooth(("pow", 1.0, 3)))

# ---- Value: the solution, as the student writes it (solution() shows it; the checks run its source) ----

VALUE_SOURCE = '''import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data ** k, (self,), f"**{k}")
        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")
        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")
        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(0 if self.data < 0 else self.data, (self,), "relu")
        def _backward():
            self.grad += (out.data > 0) * out.grad
        out._backward = _backward
        return out

    def __neg__(self): return self * -1
    def __sub__(self, other): return self + (-other)
    def __truediv__(self, other): return self * other ** -1
    def __radd__(self, other): return self + other
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __rtruediv__(self, other): return other * self ** -1
'''

BACKWARD_SOURCE = '''

def backward(self):
    topo, visited = [], set()
    def build(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build(child)
            topo.append(v)
    build(self)
    self.grad = 1.0
    for v in reversed(topo):
        v._backward()


Value.backward = backward
'''


def value_class(source=VALUE_SOURCE + BACKWARD_SOURCE):
    """The Value class a source defines (the solution's, by default; tests make wrong ones from it)."""
    space = {}
    exec(source, space)
    return space["Value"]


# ---- L07.value_ops: one op's _backward, against teachtorch's autograd ----------------------------------

def _float64(x):
    return tensor(x, dtype=_dtype.float64, requires_grad=True)


def _autograd_op(expr, inputs, start, upstream):
    """What one op does to its inputs' .grad, by teachtorch's autograd: (out, grads)."""
    leaves = [_float64(x) for x in inputs]
    for t, g in zip(leaves, start):
        t.grad = _float64(g).detach()
    out = eval(expr, dict(zip("ab", leaves)))
    out.backward(_float64(upstream).detach())
    return out.item(), tuple(t.grad.item() for t in leaves)


def _run_op(answer, args):
    """The student's class: make the leaves (with their starting .grad), run the op, then only its _backward."""
    expr, inputs, start, upstream = args
    leaves = [answer(x) for x in inputs]
    for v, g in zip(leaves, start):
        v.grad = g
    out = eval(expr, dict(zip("ab", leaves)))
    out.grad = upstream
    out._backward()
    return float(out.data), tuple(float(v.grad) for v in leaves)


_OPS = ["a + b", "a * b", "a + a", "a * a", "a + {c}", "{c} * a", "a ** 2", "a ** 3", "a ** -1", "a ** 0.5",
        "a.tanh()", "a.exp()", "a * b", "a.tanh()", "a ** 3"]


def _random_op_case(rng):
    expr = str(rng.choice(_OPS)).format(c=round(float(rng.uniform(-3, 3)), 1) or 1.5)
    n = 2 if "b" in expr else 1
    signs = [1.0 if "0.5" in expr else float(rng.choice([-1.0, 1.0])) for _ in range(n)]
    inputs = tuple(round(s * float(rng.uniform(0.3, 2.0)), 2) for s in signs)
    start = tuple(0.0 if rng.random() < 0.4 else round(float(rng.uniform(-2, 2)), 2) for _ in range(n))
    upstream = round(float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0)), 2)
    return expr, inputs, start, upstream


# ---- L07.topo_backward: out.backward() on whole expressions --------------------------------------------

MICROGRAD_SANITY = ("x = V(-4.0); z = 2 * x + 2 + x; q = z.relu() + z * x; h = (z * z).relu(); "
                    "out = h + q + q * x")
MICROGRAD_MORE_OPS = ("a = V(-4.0); b = V(2.0); c = a + b; d = a * b + b**3; c += c + 1; c += 1 + c + (-a); "
                      "d += d * 2 + (b + a).relu(); d += 3 * d + (b - a).relu(); e = c - d; f = e**2; "
                      "g = f / 2.0; g += 10.0 / f; out = g")
NEURON = ("x1 = V(2.0); x2 = V(0.0); w1 = V(-3.0); w2 = V(1.0); b = V(6.881373587019543); "
          "n = x1 * w1 + x2 * w2 + b; out = n.tanh()")


def _run_program(answer, args):
    """The student's class: run the program (its leaves made with V), then out.backward(): (out, leaf grads)."""
    leaves = []

    def V(x):
        leaves.append(answer(x))
        return leaves[-1]
    space = {"V": V}
    exec(args[0], space)
    out = space["out"]
    out.backward()
    return float(out.data), tuple(float(v.grad) for v in leaves)


def _autograd_program(program):
    """The same program on float64 teachtorch tensors (`c += x` written `c = c + (x)`: no in-place op)."""
    leaves = []

    def V(x):
        leaves.append(_float64(x))
        return leaves[-1]
    space = {"V": V}
    exec(re.sub(r"(\w+) \+= ([^;]+)", r"\1 = \1 + (\2)", program), space)
    out = space["out"]
    out.backward()
    return out.item(), tuple(0.0 if t.grad is None else t.grad.item() for t in leaves)


# the ops of a random program: (template, float function, is it safe for these operands)
_STEPS = [("{x} + {y}", lambda x, y: x + y, lambda x, y: True),
          ("{x} * {y}", lambda x, y: x * y, lambda x, y: True),
          ("{x} - {y}", lambda x, y: x - y, lambda x, y: True),
          ("{x} / {y}", lambda x, y: x / y, lambda x, y: abs(y) > 0.3),
          ("{x}.tanh()", lambda x, y: math.tanh(x), lambda x, y: True),
          ("{x}.exp()", lambda x, y: math.exp(x), lambda x, y: x < 2),
          ("{x} ** 2", lambda x, y: x ** 2, lambda x, y: abs(x) < 5),
          ("{x} ** -1", lambda x, y: 1 / x, lambda x, y: abs(x) > 0.3),
          ("{x}.relu()", lambda x, y: max(x, 0.0), lambda x, y: abs(x) > 1e-3),
          ("{c} * {x}", None, lambda x, y: True),
          ("{x} + {c}", None, lambda x, y: True)]


def _random_program(rng):
    """A short program whose nodes are used more than once: `a = V(0.53); b = V(-1.2); d = a * b; ...`."""
    names = ["a", "b", "c"][:int(rng.integers(2, 4))]
    values = {n: round(float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.0)), 2) for n in names}
    lines = [f"{n} = V({values[n]})" for n in names]
    for k in range(int(rng.integers(4, 8))):
        name = "out" if k == 6 else "defghi"[k]
        while True:
            template, fn, ok = _STEPS[int(rng.integers(len(_STEPS)))]
            x = names[-1] if rng.random() < 0.5 else str(rng.choice(names))
            y = str(rng.choice(names))
            c = round(float(rng.uniform(-2, 2)), 1) or 0.5
            if fn is None:
                fn = (lambda p, q: c * p) if template.startswith("{c}") else (lambda p, q: p + c)
            if ok(values[x], values[y]) and abs(fn(values[x], values[y])) < 100:
                break
        values[name] = fn(values[x], values[y])
        lines.append(f"{name} = " + template.format(x=x, y=y, c=c))
        names.append(name)
    if names[-1] != "out":
        lines.append(f"out = {names[-1]} * {rng.choice(names[:-1])}")       # one more use of an earlier node
    return ("; ".join(lines),)


EXERCISES = [
    Exercise(
        name="L07.central_difference",
        title="central_difference(f, x, h): the slope of f at x, from f(x + h) and f(x - h)",
        reference=lambda f, x, h: f.derivative(x),
        known=[((SQUARE, 3.0, 1e-3), 6.0), ((EXP, 1.0, 1e-4), math.e), ((SIN, 0.0, 1e-4), 1.0),
               ((CUBE, -2.0, 1e-4), 12.0)],
        random_args=_random_smooth_case,
        rtol=1e-6, atol=1e-6,
        hints=["The slope of the line through the points at x - h and x + h.",
               "Rise over run: the points are 2h apart.",
               "(f(x + h) - f(x - h)) / (2 * h): mind the brackets around 2 * h."],
        solution='''def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)''',
    ),
    Exercise(
        name="L07.value_ops",
        title="Value's _backward closures for +, *, ** (a constant), tanh and exp: check('L07.value_ops', Value)",
        reference=_autograd_op,
        known=[(("a + b", (2.0, -3.0), (0.0, 0.0), 1.0), (-1.0, (1.0, 1.0))),
               (("a * b", (2.0, -3.0), (0.0, 0.0), 1.0), (-6.0, (-3.0, 2.0))),
               (("a ** 3", (2.0,), (0.0,), 1.0), (8.0, (12.0,))),
               (("a.tanh()", (0.0,), (0.0,), 1.0), (0.0, (1.0,))),
               (("a.exp()", (0.0,), (0.0,), 1.0), (1.0, (1.0,))),
               (("a + a", (3.0,), (0.0,), 1.0), (6.0, (2.0,))),
               (("a * b", (2.0, -3.0), (0.5, 1.0), 2.0), (-6.0, (-5.5, 5.0)))],
        random_args=_random_op_case,
        call=_run_op, rtol=1e-9, atol=1e-12,
        hints=["Each closure adds (+=) into its inputs' .grad: the local derivative times out.grad (the chain "
               "rule). The case shows (expression, inputs, their .grad before, out.grad) and expects "
               "(out.data, the inputs' .grad after).",
               "Local derivatives: a + b -> 1 and 1; a * b -> b and a; a ** k -> k * a ** (k - 1); "
               "tanh -> 1 - tanh(a) ** 2; exp -> exp(a), which is out.data.",
               "+=, never =: in a + a, `self` and `other` are the same Value, and it must get both gradients; "
               "a leaf used elsewhere already holds some gradient."],
        solution=VALUE_SOURCE,
    ),
    Exercise(
        name="L07.topo_backward",
        title="Value.backward(): sort the graph topologically, seed grad 1, run each _backward from the output down",
        reference=_autograd_program,
        known=[(("a = V(3.0); b = V(-2.0); c = a * b; out = c + a",), (-3.0, (-1.0, 3.0))),
               ((NEURON,), (0.7071067811865476, (-1.5, 0.5, 1.0, 0.0, 0.5))),
               ((MICROGRAD_SANITY,), (-20.0, (46.0,))),
               ((MICROGRAD_MORE_OPS,), (24.70408163265306, (138.83381924198252, 645.5772594752186)))],
        random_args=_random_program,
        call=_run_program, rtol=1e-7, atol=1e-9,
        hints=["The case is a program; `out.backward()` should leave in each leaf's .grad the derivative of out "
               "with respect to it (the expected tuple is (out, the leaves' .grad)). Make L07.value_ops pass "
               "first: this check uses your closures too.",
               "out.grad must start at 1.0 (d out / d out), and a node's _backward may run only once every node "
               "that uses it has run: its .grad is complete then.",
               "Depth-first from out, appending a node after all its children (visit each node once): that list "
               "has every node after its inputs. Run the _backward closures in reverse order."],
        solution=VALUE_SOURCE + BACKWARD_SOURCE,
    ),
]


# ---- drawing a Value graph in the explorer's GraphView --------------------------------------------------

def _walk(root):
    """Every Value behind root, inputs before the values made from them (depth-first, each once)."""
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for child in v._prev:
                visit(child)
            order.append(v)
    visit(root)
    return order


def _number(x):
    return f"{x:.4f}" if isinstance(x, (int, float, np.floating)) and not isinstance(x, bool) else repr(x)


def value_graph_dot(root, names=None):
    """The DOT source of root's Value graph: a box per Value (its name, data and grad; inputs above), and a
    grey box per op, where that Value's `_backward` lives. Ids: value `v<k>`, op `n<k>`, the edge from an
    input to an op `e<k>_<input k>_<i>` (k: the Value's number in `_walk` order)."""
    from ..explorer import graph_diagram as gd
    names = names or {}
    order = _walk(root)
    number = {id(v): k for k, v in enumerate(order)}
    dot = gd._new_digraph()
    for k, v in enumerate(order):
        name = names.get(id(v))
        if not v._prev:
            colour, cls = (gd.COLOURS["leaf"], "tt-leaf") if name else ("white", "tt-leaf tt-constant")
            name = name or "constant"
        else:
            colour, cls = (gd.COLOURS["output"], "tt-output") if v is root else ("white", "tt-value")
        lines = ([name] if name else []) + [f"data {_number(v.data)}", f"grad {_number(v.grad)}"]
        dot.node(f"v{k}", gd._label(*lines), id=f"v{k}", fillcolor=colour, **{"class": cls})
        if v._prev:
            dot.node(f"n{k}", gd._label(str(v._op) or "?"), id=f"n{k}", fillcolor=gd.COLOURS["fn"],
                     **{"class": "tt-fn"})
            for i, child in enumerate(v._prev):
                c = number[id(child)]
                dot.edge(f"v{c}", f"n{k}", id=f"e{k}_{c}_{i}", **{"class": "tt-edge"})
            dot.edge(f"n{k}", f"v{k}", id=f"r{k}", **{"class": "tt-output-edge"})
    return dot.source


def watch_backward(root):
    """Run root.backward(), noting each `_backward` that runs and the inputs it passes gradients to: the
    steps a GraphView replays ({"kind": "node", ...} then a {"kind": "gradient", ...} per input)."""
    order = _walk(root)
    number = {id(v): k for k, v in enumerate(order)}
    steps, kept = [], [(v, v._backward) for v in order]

    def watched(v, k, closure):
        def run():
            steps.append({"kind": "node", "id": f"n{k}", "name": f"the {v._op} node's _backward"})
            closure()
            for i, child in enumerate(v._prev):
                steps.append({"kind": "gradient", "edge": f"e{k}_{number[id(child)]}_{i}", "from": f"n{k}",
                              "to": f"v{number[id(child)]}", "shape": [],
                              "text": f"{v._op}: input {i + 1}'s grad is now {_number(child.grad)}"})
        return run
    try:
        for k, v in enumerate(order):
            if v._prev:
                v._backward = watched(v, k, v._backward)
        root.backward()
    finally:
        for v, closure in kept:
            v._backward = closure
    return steps


def _names_in(frame, root):
    """{id(value): variable name} for the variables of `frame` that hold a Value of root's graph."""
    inside = {id(v) for v in _walk(root)}
    try:
        variables = dict(frame.f_locals)
    except Exception:
        return {}
    return {id(v): n for n, v in variables.items() if not n.startswith("_") and id(v) in inside}


def value_view(root, backward=False, title=""):
    """A GraphView of root's Value graph, its Values named by your variables. backward=True runs
    root.backward() first (watched: the widget's stepper replays which _backward ran when)."""
    from ..explorer.widgets import GraphView
    names = _names_in(sys._getframe(1), root)
    steps = watch_backward(root) if backward else []
    return GraphView.from_dot(value_graph_dot(root, names), steps, title=title)


__all__ = ["EXERCISES", "Smooth", "value_class", "value_graph_dot", "value_view", "watch_backward"]
