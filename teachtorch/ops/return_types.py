"""Named tuples: `torch.return_types`, what ops with several outputs return.

`max(x, dim)` returns two tensors as a *named tuple*, `torch.return_types.max(values=..., indices=...)`:
a tuple you can unpack or index, whose fields also have names. PyTorch builds these classes in C++ as
`structseq` types (torch/csrc/utils/structseq.cpp, torch/csrc/autograd/generated/python_return_types.cpp)
and exposes them as the module `torch.return_types`; here `structseq(name, fields)` makes each class once
and puts it in the module `teachtorch.return_types` (the reductions and sorting families make theirs).
"""

import operator
import sys
import types

return_types = types.ModuleType(
    "teachtorch.return_types",
    "Named tuples returned by ops with several outputs, like PyTorch's `torch.return_types` (structseq).")
sys.modules["teachtorch.return_types"] = return_types   # importable by name, so the named tuples pickle


class StructSeq(tuple):
    """A tuple with named fields, PyTorch's `structseq` (torch/csrc/utils/structseq.cpp).

    `r = x.max(0)` is a real tuple: `values, indices = r` and `r[0]` work, and so do `r.values`, `r.indices`.
    """

    _fields = ()
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, sequence):
        sequence = tuple(sequence)
        if len(sequence) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                            f"({len(sequence)}-sequence given)")
        return tuple.__new__(cls, sequence)

    def __repr__(self):
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def structseq(name, fields):
    """Make (once) and return the named-tuple class `return_types.<name>` with these field names."""
    cls = getattr(return_types, name, None)
    if cls is None:
        attrs = {"_fields": tuple(fields), "n_fields": len(fields), "n_sequence_fields": len(fields),
                 "__module__": "teachtorch.return_types"}
        for i, f in enumerate(fields):
            attrs[f] = property(operator.itemgetter(i), doc=f"Alias for field number {i}")
        cls = type(name, (StructSeq,), attrs)
        setattr(return_types, name, cls)
    return cls


__all__ = ["return_types"]
