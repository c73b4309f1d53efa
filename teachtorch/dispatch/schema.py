"""Operator schemas: an op's signature as one line of text, as in PyTorch's `native_functions.yaml`.

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
    transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)

The name is `op.overload`. Arguments after `*` are keyword-only. An *alias annotation* says how outputs relate
to inputs: `Tensor(a!)` is written to (mutated), `Tensor(a)` is aliased (a view shares its storage). The
dispatcher reads these annotations to decide what the ADInplaceOrView layer must do for the op (bump a version
counter, or link a view to its base), exactly as PyTorch's codegen does (torchgen/model.py `FunctionSchema`).
"""

import re
from dataclasses import dataclass, field

from .._dtype import bool_
from .._strides import INT64_MAX, INT64_MIN   # what an `int` argument holds in C++
from .._tensor import Tensor, typename

_ARG = re.compile(
    r"^(?P<type>[A-Za-z]+)(?:\((?P<alias>[^)]*)\))?(?P<suffix>[\[\]\d?]*)\s+(?P<name>\w+)(?:=(?P<default>.+))?$"
)
_NO_DEFAULT = object()


def unpack_int64(value):
    """An int argument as PyTorch's parser unpacks it (`THPUtils_unpackLong`): a Python int must fit in int64.
    (Anything else is passed on as it is: NumPy ints always fit, tensors are checked where they are read.)"""
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return value


def check_scalar_int(value):
    """A Python int given as a Scalar (or as a number for a Tensor, `x * 2`) is an int64 or, failing that, a
    uint64 in C++ (python_arg_parser.cpp): outside [-2**63, 2**64) it is PyTorch's OverflowError."""
    if not INT64_MIN <= value < 1 << 64:
        raise OverflowError("can't convert negative int to unsigned" if value < 0 else "int too big to convert")
    return value


@dataclass
class Argument:
    name: str
    type: str                  # "Tensor", "Tensor?", "Tensor[]", "int[]", "Scalar", ...
    alias: str | None = None   # "a", "a!", ...
    default: object = _NO_DEFAULT
    kwarg_only: bool = False

    @property
    def is_tensor(self):
        return self.type.startswith("Tensor")

    @property
    def is_mutable(self):
        return self.alias is not None and self.alias.endswith("!")

    @property
    def has_default(self):
        return self.default is not _NO_DEFAULT

    @property
    def is_int(self):
        """`int`, `SymInt`, their lists (`int[]`, `SymInt[1]`) and optionals: held as int64 in C++."""
        return self.type.startswith(("int", "SymInt"))

    def __str__(self):
        base, suffix = (self.type[:6], self.type[6:]) if self.is_tensor else (self.type, "")
        t = f"{base}({self.alias}){suffix}" if self.alias else self.type
        return f"{t} {self.name}" + (f"={_show(self.default)}" if self.has_default else "")


@dataclass
class FunctionSchema:
    name: str                   # "add"
    overload: str               # "Tensor" ("" for the default overload)
    arguments: list = field(default_factory=list)
    returns: list = field(default_factory=list)   # list of Argument (names may be "")

    @property
    def full_name(self):
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def mutable_positions(self):
        return [i for i, a in enumerate(self.arguments) if a.is_mutable]

    @property
    def is_view(self):
        """An op whose output aliases an input without writing to it: `Tensor(a) self -> Tensor(a)`."""
        return any(r.alias and not r.alias.endswith("!") for r in self.returns)

    @property
    def tensor_positions(self):
        return [i for i, a in enumerate(self.arguments) if a.is_tensor]

    @property
    def int_positions(self):
        """(position, kind) of the arguments `check_int64` looks at: "int" and "int[]" (int, SymInt, their lists
        and optionals), and "number" for a Scalar or a Tensor after `self`, which may be given a Python number
        (`x * 2`)."""
        kinds = []
        for i, a in enumerate(self.arguments):
            if a.is_int:
                kinds.append((i, ("int[]" if "[" in a.type else "int") + ("?" if a.type.endswith("?") else "")))
            elif a.type.startswith("Scalar") or (i > 0 and a.type in ("Tensor", "Tensor?")):
                kinds.append((i, "number"))
        return tuple(kinds)

    def check_int64(self, args, positions):
        """Check Python numbers as PyTorch's argument parser does when it unpacks them (python_arg_parser.cpp).

        * An `int` argument takes an int (not a bool), a NumPy integer or an integer tensor of one element; a
          Python int must fit in int64 (THPUtils_unpackLong): a lone int raises ValueError, an element of a list
          a TypeError naming the argument and the element's position. Without this, `x.tril(10**20)` would
          quietly mean "everything" and `x.tril(1.5)` round.
        * A Scalar (or a number given for a Tensor) is an int64 or, failing that, a uint64 in C++: a Python int
          outside [-2**63, 2**64) raises OverflowError, as PyLong_AsUnsignedLongLong does.

        Returns `args`, with an integer tensor given for an int replaced by its value.
        """
        for i, kind in positions:
            value = args[i]
            if type(value) is int:
                if kind == "number":
                    check_scalar_int(value)
                elif not INT64_MIN <= value <= INT64_MAX:
                    raise ValueError("Overflow when unpacking long long")
            elif kind == "number" or (value is None and kind[-1] == "?"):
                continue
            elif kind.startswith("int[]") and isinstance(value, (list, tuple)):
                for pos, v in enumerate(value):
                    if isinstance(v, int) and not INT64_MIN <= v <= INT64_MAX:
                        raise TypeError(
                            f"{self.name}(): argument '{self.arguments[i].name}' failed to unpack the "
                            f"object at pos {pos + 1} with error \"Overflow when unpacking long long\"")
                    if isinstance(v, (float, complex, str, bool)):
                        raise TypeError(f"{self.name}(): argument '{self.arguments[i].name}' must be tuple of "
                                        f"ints, but found element of type {type(v).__name__} at pos {pos}")
            elif kind.startswith("int[]") and hasattr(value, "__len__") and not isinstance(value, Tensor):
                continue                              # a NumPy array of sizes: read where used
            else:
                converted = self._as_int(i, value, "tuple of ints" if kind.startswith("int[]") else "int")
                if converted is not value:
                    args = args[:i] + (converted,) + args[i + 1:]
        return args

    def _as_int(self, i, value, expected):
        """A non-int value given for int argument `i`: a NumPy integer passes, an integer tensor of one element
        becomes its value, anything else (a float, a bool, a string) is PyTorch's TypeError."""
        if isinstance(value, Tensor):
            if value.numel() == 1 and not value.is_floating_point() and not value.is_complex() \
                    and value.dtype is not bool_:
                return int(value.item())
        elif hasattr(value, "__index__") and not isinstance(value, bool):
            return value
        type_name = typename(value)
        raise TypeError(f"{self.name}(): argument '{self.arguments[i].name}' must be {expected}, not {type_name}")

    def bind(self, args, kwargs, op_name=None):
        """Normalise a call to a tuple with every argument in schema order, defaults filled in."""
        params = self.arguments
        if not kwargs:
            if len(args) == len(params):
                return tuple(args)      # every argument given, in order: nothing to bind
            tails = self.__dict__.get("_default_tails") or self._make_default_tails()
            if len(args) < len(tails) and tails[len(args)] is not None:
                return tuple(args) + tails[len(args)]     # `x.add_(y)`: the rest are defaults (alpha=1)
        n_positional = sum(not a.kwarg_only for a in params)
        who = op_name or self.name
        if len(args) > n_positional:
            raise TypeError(f"{who}() takes {n_positional} positional arguments but {len(args)} were given")
        out = list(args)
        for a in params[len(args):]:
            if a.name in kwargs:
                out.append(kwargs[a.name])
            elif a.has_default:
                out.append(a.default)
            else:
                raise TypeError(f"{who}() missing required argument '{a.name}'")
        unknown = set(kwargs) - {a.name for a in params[len(args):]}
        if unknown:
            raise TypeError(f"{who}() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        return tuple(out)

    def _make_default_tails(self):
        """For each count k of positional arguments a call may give, the defaults of the arguments after them
        (None where one of those has no default): worked out once per schema, used on every call."""
        params = self.arguments
        n_positional = sum(not a.kwarg_only for a in params)
        tails = []
        for k in range(n_positional + 1):
            rest = params[k:]
            tails.append(tuple(a.default for a in rest) if all(a.has_default for a in rest) else None)
        self._default_tails = tails
        return tails

    def __str__(self):
        parts, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        rets = [str(r).strip() for r in self.returns]
        ret = rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"
        return f"{self.full_name}({', '.join(parts)}) -> {ret}"


def _split_top(s):
    """Split at commas that are not inside brackets or parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _parse_default(text):
    text = text.strip()
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    if text.startswith("[") and text.endswith("]"):
        return [_parse_default(x) for x in _split_top(text[1:-1])]
    if text[:1] in "'\"":
        return text[1:-1]
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _show(v):
    if isinstance(v, list):
        return "[" + ", ".join(map(_show, v)) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def _parse_arg(text, kwarg_only):
    m = _ARG.match(text)
    if m is None:
        raise ValueError(f"cannot parse schema argument '{text}'")
    default = _parse_default(m["default"]) if m["default"] is not None else _NO_DEFAULT
    return Argument(m["name"], m["type"] + m["suffix"], m["alias"], default, kwarg_only)


def _parse_return(text):
    m = re.match(r"^(?P<type>[A-Za-z]+)(?:\((?P<alias>[^)]*)\))?(?P<suffix>[\[\]\d?]*)\s*(?P<name>\w*)$", text)
    if m is None:
        raise ValueError(f"cannot parse schema return '{text}'")
    return Argument(m["name"], m["type"] + m["suffix"], m["alias"])


def parse_schema(text):
    """`parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")`."""
    m = re.match(r"^\s*(?P<name>[\w:]+)(?:\.(?P<overload>\w+))?\((?P<args>.*)\)\s*->\s*(?P<ret>.+?)\s*$", text)
    if m is None:
        raise ValueError(f"cannot parse schema '{text}'")
    args, kwarg_only = [], False
    for part in _split_top(m["args"]):
        if part == "*":
            kwarg_only = True
            continue
        args.append(_parse_arg(part, kwarg_only))
    ret = m["ret"].strip()
    if ret.startswith("(") and ret.endswith(")"):
        returns = [_parse_return(r) for r in _split_top(ret[1:-1])]
    else:
        returns = [_parse_return(ret)]
    return FunctionSchema(m["name"], m["overload"] or "", args, returns)
