"""`teachtorch.ops.aten.add.Tensor`: every registered operator, by namespace, name and overload.

PyTorch exposes its operator registry the same way (`torch.ops.aten.add.Tensor` is an `OpOverload`,
`torch.ops.aten.add` an `OpOverloadPacket` whose call picks an overload). Here calling a packet runs its
default overload, or the only one it has.
"""

from . import dispatcher


class OpOverloadPacket:
    def __init__(self, ns, name):
        self._ns, self._name = ns, name
        self._pick, self._pick_seen = None, -1    # the overload a call runs, as of that many operators

    def overloads(self):
        prefix = f"{self._ns}::{self._name}"
        return [n.split(".", 1)[1] if "." in n else "default" for n in dispatcher.OPERATORS
                if n == prefix or n.startswith(prefix + ".")]

    def __getattr__(self, overload):
        name = f"{self._ns}::{self._name}" + ("" if overload == "default" else f".{overload}")
        if name not in dispatcher.OPERATORS:
            raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload name '{overload}'")
        return dispatcher.OPERATORS[name]

    def __call__(self, *args, **kwargs):
        # the pick is remembered: finding it scans every operator's name; a library that registers more
        # operators later (teachtorch.library) makes it look again
        if self._pick_seen != len(dispatcher.OPERATORS):
            overloads = self.overloads()
            self._pick = getattr(self, "default" if "default" in overloads else overloads[0])
            self._pick_seen = len(dispatcher.OPERATORS)
        return self._pick(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"


class _Namespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        # (only called for a name not yet looked up: the packet is then kept as an attribute, as PyTorch's is)
        prefix = f"{self._ns}::{name}"
        if not any(n == prefix or n.startswith(prefix + ".") for n in dispatcher.OPERATORS):
            raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'")
        packet = OpOverloadPacket(self._ns, name)
        setattr(self, name, packet)
        return packet


class _Ops:
    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = _Namespace(ns)
        setattr(self, ns, namespace)
        return namespace


ops = _Ops()
