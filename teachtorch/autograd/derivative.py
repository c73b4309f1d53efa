"""Derivative formulas, and the backward node each one becomes.

PyTorch lists the backward formula of every op in tools/autograd/derivatives.yaml:

    - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
      self: mul_tensor_backward(grad, other, self.scalar_type())
      other: mul_tensor_backward(grad, self, other.scalar_type())
      result: other_t * self_p + self_t * other_p

and a code generator turns each entry into a node class (`MulBackward0`) and an autograd kernel. The
generator reads which names a formula uses and saves exactly those in forward: `other` and `self` here.

teachtorch writes the same table in Python (teachtorch/autograd/derivatives/*.py):

    derivative("mul.Tensor",
               self=lambda grad, other: grad * other,
               other=lambda grad, self: grad * self)

and this module does the generator's job at import time, by reading each lambda's parameter names:

    grad, grads         the incoming gradient (of output 0), or all of them (multi-output ops)
    self, other, ...    an argument of the op, saved at forward time (tensors as SavedVariables)
    self_sym_sizes      only the shape of `self` (also _sym_strides, _geometry, _scalar_type, _args_sizes):
                        saves metadata instead of keeping the whole tensor alive
    result, result1     an output of the op (or its name in the schema, e.g. `indices`)
    grad_input_mask     which of the inputs an entry covers need a gradient at all

An entry for several inputs at once is written with a string key: `{"self, other": fn}`; it returns one
gradient per name. Gradients need not have the input's shape if they broadcast to it: the engine sums them
back (engine.validate_outputs), as PyTorch's does.
"""

import inspect

from ..dispatch import dispatcher
from .node import Node
from .saved_variable import SavedVariable

FORMULAS = {}          # "mul.Tensor" -> Formula

_DERIVED = ("_sym_sizes", "_sym_strides", "_geometry", "_scalar_type", "_args_sizes", "_args_scalartypes",
            "_sym_numel", "_dim", "_options")


def derived_value(kind, value):
    """What `self_sym_sizes`-style names save: metadata of the argument, not the argument."""
    if kind == "_sym_sizes":
        return tuple(value._sizes)
    if kind == "_sym_strides":
        return tuple(value._strides)
    if kind == "_geometry":
        return (tuple(value._sizes), tuple(value._strides), value._offset)
    if kind == "_scalar_type":
        return value.dtype
    if kind == "_sym_numel":
        return value.numel()
    if kind == "_dim":
        return len(value._sizes)
    if kind == "_options":
        return (value.dtype, value._storage.device)
    if kind == "_args_sizes":
        return [tuple(t._sizes) for t in value]
    if kind == "_args_scalartypes":
        return [t.dtype for t in value]
    raise AssertionError(kind)


class FormulaNode(Node):
    """A backward node generated from a Formula. `self._saved` holds what the formulas read."""

    formula = None         # set on each generated subclass

    def apply(self, grads):
        n = len(self.next_edges)
        if all(g is None for g in grads):
            return [None] * n
        out = [None] * n
        # Unpack every saved value first, inputs then outputs, each sorted by name, as PyTorch's generated
        # apply() does: the version checks (and which tensor an error names) do not depend on the formulas.
        saved = {name: self._value(name, grads, ()) for name in self.formula.saved_order if name in self._saved}
        for names, fn, params in self.formula.entries:
            mask = [self._needs(name) for name in names]
            if not any(mask):
                continue
            args = [saved[p] if p in saved else self._value(p, grads, mask) for p in params]
            r = fn(*args)
            for name, value in zip(names, (r,) if len(names) == 1 else r):
                start, count = self._slots[name]
                if count is None:
                    out[start] = value
                elif value is not None:
                    out[start:start + count] = value
        return out

    def _needs(self, name):
        start, count = self._slots[name]
        if count is None:
            return self.next_edges[start] is not None
        return any(e is not None for e in self.next_edges[start:start + count])

    def _value(self, p, grads, mask):
        if p == "grad":
            return grads[0] if grads[0] is not None else self._zeros(0)
        if p == "grads":
            return [g if g is not None or self._input_metadata[i] is None else self._zeros(i)
                    for i, g in enumerate(grads)]
        if p == "grad_input_mask":
            return mask
        v = self._saved[p]
        if isinstance(v, SavedVariable):
            return v.unpack(self)
        if isinstance(v, list) and v and isinstance(v[0], SavedVariable):
            return [s.unpack(self) for s in v]
        return v

    def _zeros(self, i):
        from ..ops.factories import zeros
        sizes, dtype, device = self._input_metadata[i]
        return zeros(sizes, dtype=dtype, device=device)

    def release_variables(self):
        for v in self._saved.values():
            if isinstance(v, SavedVariable):
                v.release()
            elif isinstance(v, list) and v and isinstance(v[0], SavedVariable):
                for s in v:
                    s.release()

    def __getattr__(self, name):
        # `_saved_self` unpacks (with the version check); `_raw_saved_self` is the SavedVariable itself.
        saved = self.__dict__.get("_saved")
        if saved is not None:
            if name.startswith("_raw_saved_") and name[11:] in saved:
                return saved[name[11:]]
            if name.startswith("_saved_") and name[7:] in saved:
                return self._value(name[7:], [None], [])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        names = [f"_saved_{k}" for k in self._saved] + [f"_raw_saved_{k}" for k in self._saved
                                                         if isinstance(self._saved[k], SavedVariable)]
        return sorted(set(super().__dir__()) | set(names))

    def _saved_tensor_infos(self):
        out = []
        for k, v in self._saved.items():
            if isinstance(v, SavedVariable):
                out.append((k, v))
            elif isinstance(v, list) and v and isinstance(v[0], SavedVariable):
                out.extend((f"{k}[{i}]", s) for i, s in enumerate(v))
        return out


class Formula:
    """One entry of the derivatives table, and what the generator reads from it."""

    def __init__(self, op, node_name, entries):
        self.op = op
        schema = op.schema
        arg_pos = {a.name: i for i, a in enumerate(schema.arguments)}
        self.entries = []
        wanted = set()
        for key, fn in entries.items():
            names = tuple(n.strip() for n in key.split(","))
            for n in names:
                if n not in arg_pos:
                    raise ValueError(f"{op.name}: no argument named {n!r} in {schema}")
            params = tuple(inspect.signature(fn).parameters)
            self.entries.append((names, fn, params))
            wanted.update(params)
        # PyTorch's generator emits a node's formulas sorted by input name ("other" before "self"); with
        # create_graph that order decides which gradient's nodes are made, and so run, first.
        self.entries.sort(key=lambda e: e[0])
        differentiable = {n for names, _, _ in self.entries for n in names}
        # The inputs that get edges, in schema order: (name, position, is_list)
        self.inputs = [(a.name, i, a.type.endswith("[]")) for i, a in enumerate(schema.arguments)
                       if a.name in differentiable]
        self.has_list = any(is_list for _, _, is_list in self.inputs)
        if not self.has_list:
            self.slots = {name: (k, None) for k, (name, _, _) in enumerate(self.inputs)}
        ret_names = [r.name for r in schema.returns]
        # What to save from the arguments (before the op runs) and from the outputs (after).
        self.save_args = []        # (saved name, position, derived kind or None)
        self.save_outputs = []     # (saved name, output index)
        for p in sorted(wanted - {"grad", "grads", "grad_input_mask"}):
            if p in arg_pos:
                # a Tensor argument given as a Python number is saved (and freed) like a tensor
                kind = "tensor" if schema.arguments[arg_pos[p]].is_tensor else None
                self.save_args.append((p, arg_pos[p], kind))
            elif p == "result" or (p.startswith("result") and p[6:].isdigit()):
                self.save_outputs.append((p, int(p[6:] or 0)))
            elif p in ret_names:
                self.save_outputs.append((p, ret_names.index(p)))
            else:
                for kind in _DERIVED:
                    if p.endswith(kind) and p[:-len(kind)] in arg_pos:
                        self.save_args.append((p, arg_pos[p[:-len(kind)]], kind))
                        break
                else:
                    raise ValueError(f"{op.name}: formula parameter {p!r} is not an argument, output or "
                                     f"grad of {schema}")
        self.saved_order = [name for name, _, _ in self.save_args] + [name for name, _ in self.save_outputs]
        self.first_output_only = "grads" not in wanted
        self.node_class = type(node_name, (FormulaNode,), {"formula": self})
        self.node_class.__module__ = "teachtorch.autograd.generated"

    def make_node(self, next_edges, saved, slots=None):
        node = self.node_class(next_edges)
        node._saved = saved
        node._slots = slots if slots is not None else self.slots
        return node


def derivative(op_name, name=None, **entries):
    """Register the backward formulas of `op_name`; `name` is the node's class name if not `<Op>Backward0`.

    Entries are keyword arguments (`self=...`) or, for a formula shared by several inputs, one dict
    passed as `entries={"self, other": fn}`.
    """
    extra = entries.pop("entries", None)
    if extra:
        entries.update(extra)
    op = dispatcher.lookup(op_name)
    base = op.schema.name.lstrip("_")
    node_name = name or "".join(w[:1].upper() + w[1:] for w in base.split("_")) + "Backward0"
    formula = Formula(op, node_name, entries)
    FORMULAS[op.schema.full_name] = formula
    FORMULAS.setdefault(op.schema.name, formula)
    from .variable_type import register_formula_kernels
    register_formula_kernels(op, formula)
    return formula


NO_FORMULA = {}   # op full name -> why it has no formula (its backward records an error node)


def no_formula(*op_names, why):
    """Ops that get no formula on purpose: their results are integers or bools (no gradient can flow), or
    PyTorch has no derivative for them either, so backward fails with "derivative for ... is not implemented"
    as PyTorch's does. Every other op with a tensor argument must have a formula (test_autograd.py checks)."""
    for n in op_names:
        NO_FORMULA[dispatcher.lookup(n).schema.full_name] = why


def not_differentiable(*op_names):
    """Ops whose outputs never require grad (factories like `zeros_like`, `rand_like`)."""
    from .variable_type import register_non_differentiable
    for n in op_names:
        register_non_differentiable(dispatcher.lookup(n))
