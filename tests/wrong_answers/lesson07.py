"""Plausible wrong answers to lesson 7's exercises: each check must reject every one (tests/test_exercises.py).

The Value classes are the solution's source with one line changed, the way a student gets it wrong."""

from teachtorch.exercises.lesson07 import BACKWARD_SOURCE, VALUE_SOURCE, value_class


def forward_difference(f, x, h):                  # one-sided: error of order h, not h**2
    return (f(x + h) - f(x)) / h


def central_over_h(f, x, h):                      # the points are 2h apart, not h
    return (f(x + h) - f(x - h)) / h


def central_precedence(f, x, h):                  # / 2 * h divides by 2, then multiplies by h
    return (f(x + h) - f(x - h)) / 2 * h


def _variant(name, old, new, source=VALUE_SOURCE + BACKWARD_SOURCE):
    assert source.count(old) >= 1, old
    cls = value_class(source.replace(old, new))
    cls.__name__ = cls.__qualname__ = name
    return cls


assign_not_accumulate = _variant("assign_not_accumulate", "grad += ", "grad = ")     # a + a loses one gradient
tanh_uses_tanh = _variant("tanh_uses_tanh", "self.grad += (1 - t ** 2) * out.grad", "self.grad += t * out.grad")
mul_swapped = _variant("mul_swapped", "self.grad += other.data * out.grad", "self.grad += self.data * out.grad")
pow_no_minus_one = _variant("pow_no_minus_one", "k * self.data ** (k - 1)", "k * self.data ** k")
exp_uses_input = _variant("exp_uses_input", "self.grad += out.data * out.grad", "self.grad += self.data * out.grad")

no_seed = _variant("no_seed", "    self.grad = 1.0\n", "")                          # every gradient stays 0
not_reversed = _variant("not_reversed", "for v in reversed(topo):", "for v in topo:")   # leaves first
no_visited_set = _variant("no_visited_set", "        if v not in visited:\n", "        if True:\n")   # shared nodes run twice
breadth_first = _variant("breadth_first", BACKWARD_SOURCE, '''

def backward(self):                               # runs each node as it is met, not after all its users
    self.grad = 1.0
    queue, seen = [self], {self}
    while queue:
        v = queue.pop(0)
        v._backward()
        for child in v._prev:
            if child not in seen:
                seen.add(child)
                queue.append(child)


Value.backward = backward
''')
recursive = _variant("recursive", BACKWARD_SOURCE, '''

def backward(self):                               # each node passes its gradient on at once, recursively
    def run(v):
        v._backward()
        for child in v._prev:
            run(child)
    self.grad = 1.0
    run(self)


Value.backward = backward
''')

WRONG = {
    "L07.central_difference": [forward_difference, central_over_h, central_precedence],
    "L07.value_ops": [assign_not_accumulate, tanh_uses_tanh, mul_swapped, pow_no_minus_one, exp_uses_input],
    "L07.topo_backward": [no_seed, not_reversed, no_visited_set, breadth_first, recursive],
}
