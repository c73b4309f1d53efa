"""Lesson 7's checks are right: their known answers are PyTorch's (micrograd's own test numbers), their random
cases reject each wrong answer even without the known ones, and the Value graph picture is valid SVG whose
ids the widget's stepper can find, replayed in a topological order."""

import dataclasses
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import torch

from teachtorch.exercises import EXERCISES
from teachtorch.exercises import lesson07 as L
from teachtorch.exercises.core import run_check

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers.lesson07 import WRONG  # noqa: E402


def _torch_program(program):
    leaves = []

    def V(x):
        leaves.append(torch.tensor(x, dtype=torch.float64, requires_grad=True))
        return leaves[-1]
    space = {"V": V}
    exec(re.sub(r"(\w+) \+= ([^;]+)", r"\1 = \1 + (\2)", program), space)
    space["out"].backward()
    return space["out"].item(), tuple(0.0 if t.grad is None else t.grad.item() for t in leaves)


def test_micrograds_numbers_are_pytorchs():
    g, (a, b) = _torch_program(L.MICROGRAD_MORE_OPS)
    assert (round(g, 4), round(a, 4), round(b, 4)) == (24.7041, 138.8338, 645.5773)
    for (program,), (out, grads) in EXERCISES["L07.topo_backward"].known:
        got_out, got_grads = _torch_program(program)
        assert got_out == pytest.approx(out, rel=1e-12) and got_grads == pytest.approx(grads, rel=1e-12, abs=1e-15)


def test_the_known_op_cases_are_teachtorchs():
    for args, expected in EXERCISES["L07.value_ops"].known:
        out, grads = L._autograd_op(*args)
        assert out == pytest.approx(expected[0]) and grads == pytest.approx(expected[1])


def test_random_programs_agree_with_pytorch_and_reuse_values():
    rng = np.random.default_rng(0)
    for _ in range(20):
        (program,) = L._random_program(rng)
        (out, grads), (t_out, t_grads) = L._autograd_program(program), _torch_program(program)
        assert (out, *grads) == pytest.approx((t_out, *t_grads), rel=1e-10, abs=1e-12)
        used = re.findall(r"\b[a-i]\b", program.split(";", 3)[-1])     # names after the leaves
        assert len(used) > len(set(used))                                # some value is used twice


@pytest.mark.parametrize("name, wrong", [(n, w) for n, ws in WRONG.items() for w in ws],
                         ids=lambda v: getattr(v, "__name__", v))
def test_random_cases_alone_reject_each_wrong_answer(name, wrong):
    alone = dataclasses.replace(EXERCISES[name], known=[])
    assert run_check(alone, wrong, "").status == "failed"


def _neuron():
    V = L.value_class()
    x1, x2, w1, w2, b = V(2.0), V(0.0), V(-3.0), V(1.0), V(6.8813735870195432)
    o = (x1 * w1 + x2 * w2 + b).tanh()
    return o, {id(x1): "x1", id(w1): "w1", id(o): "o"}


def test_value_graph_svg_has_the_ids_the_stepper_lights():
    from teachtorch.explorer import graph_diagram
    o, names = _neuron()
    closures = [v._backward for v in L._walk(o)]
    steps = L.watch_backward(o)
    assert [v._backward for v in L._walk(o)] == closures          # the watch is undone
    assert o.grad == 1.0
    svg = graph_diagram.render_svg(L.value_graph_dot(o, names))
    root = ET.fromstring(svg)
    ids = {g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    for s in steps:
        assert (s["edge"] if s["kind"] == "gradient" else s["id"]) in ids
    text = "|".join(t.text for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "x1|data 2.0000|grad -1.5000" in text
    # the op nodes ran after every op that uses their output: n<k> numbers follow the walk (inputs first)
    ran = [int(s["id"][1:]) for s in steps if s["kind"] == "node"]
    assert ran == sorted(ran, reverse=True) and len(ran) == 5


def test_value_view_is_a_graph_view_with_the_steps():
    pytest.importorskip("anywidget")
    neuron_out, _ = _neuron()
    view = L.value_view(neuron_out, backward=True)          # named by this function's variables
    assert view.graph_steps and "<svg" in view.static_html() and "neuron_out" in view.graph_dot
