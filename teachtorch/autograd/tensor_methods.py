"""The autograd side of `Tensor`: backward, grad, grad_fn, hooks, detach_.

These live with autograd rather than in _tensor.py because they mean something only once the engine
exists (PyTorch splits them the same way: torch/_tensor.py and python_variable.cpp over AutogradMeta).
"""

from .._tensor import Tensor, typename
from . import api, views
from .grad_mode import is_inference_mode_enabled
from .node import add_hook
from .python_hook import PostAccumulateGradHook, TensorPreHook


def _grad_fn(self):
    """The node that made this tensor; a view's may be rebuilt if its base was changed in place."""
    if self._base is None:
        return self._grad_fn
    return views.view_grad_fn(self)


def _requires_grad(self):
    return self._requires_grad or (self._base is not None and self._base._requires_grad) or (
        self._base is not None and self.grad_fn is not None)


def _set_requires_grad(self, value):
    if not isinstance(value, bool):
        raise RuntimeError("requires_grad must be a bool")
    if value and not self.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    self.requires_grad_(value)


def requires_grad_(self, requires_grad=True):
    if type(requires_grad) is not bool:   # the parser takes True or False only: not 1, 'yes' or numpy.bool
        raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                        f"{typename(requires_grad)}")
    if requires_grad and not self.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    # An inference tensor has no version counter and no autograd metadata: outside inference mode it may
    # not join a graph (TensorImpl::set_requires_grad).
    if requires_grad and self.is_inference() and not is_inference_mode_enabled():
        raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
    if self.grad_fn is not None and not requires_grad:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed "
            "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    self._requires_grad = bool(requires_grad)
    return self


def _get_grad(self):
    g = self.__dict__.get("_grad")
    if g is None and self._grad_fn is not None and not self.__dict__.get("_retains_grad"):
        import warnings
        warnings.warn(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
            "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
            "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
            "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
            "for more information.", UserWarning, stacklevel=2)
    return g


def _set_grad(self, g):
    if g is not None:
        if not isinstance(g, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(g).__name__}")
        if g.dtype is not self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_c_name(g.dtype)}' to a tensor with grad_dtype "
                f"'{_legacy_type_name(self.dtype)}'. The gradient must match the tensor's grad_dtype (defaults to the "
                "tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
                "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                "may break downstream systems that assume they match.")
        if tuple(g._sizes) != tuple(self._sizes):
            raise RuntimeError(
                f"attempting to assign a gradient of size '[{', '.join(map(str, g._sizes))}]' to a tensor of size "
                f"'[{', '.join(map(str, self._sizes))}]'. Please ensure that the gradient and the tensor are the "
                "same size")
        if g._storage.device != self._storage.device:
            raise RuntimeError("attempting to assign a gradient located on device with index '-1' to a tensor "
                               "located on device with index '0'. Please ensure that the gradient and the "
                               "tensor are on the same device")
    self.__dict__["_grad"] = g


def _del_grad(self):
    self.__dict__["_grad"] = None


def _c_name(dtype):
    from .._dtype import TYPEMETA_NAMES
    return TYPEMETA_NAMES[dtype.name]


def _legacy_type_name(dtype):
    return {"float16": "Half", "float32": "Float", "float64": "Double"}.get(dtype.name, dtype.name)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor with respect to the leaves; see autograd.backward."""
    api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self, hook):
    """`hook(grad)` runs when the gradient of this tensor is computed; it may return a replacement.

    On a non-leaf the hook is attached to its grad_fn *now* (an in-place op later does not move it); on a
    leaf it runs on its AccumulateGrad, before accumulation.
    """
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hook = TensorPreHook(hook)    # checks that a replacement is a tensor like the gradient
    fn = self.grad_fn
    if fn is None:
        return add_hook(self.__dict__.setdefault("_leaf_hooks", {}), hook)
    return fn._register_tensor_pre_hook(self._output_nr, hook)


def retain_grad(self):
    """Keep `.grad` for this non-leaf too (a hook on its grad_fn that stores the incoming gradient)."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self.__dict__.get("_retains_grad"):
        return          # a leaf keeps .grad anyway (PyTorch asks the grad_fn field, without rebuilding it)
    fn = self.grad_fn
    self._retains_grad = True
    me = _WeakTensor(self)

    def retain_grad_hook(grad):
        t = me()
        if t is None or grad is None:
            return
        if t.__dict__.get("_grad") is None:
            t.__dict__["_grad"] = grad.clone(memory_format="contiguous_format")
        else:
            t.__dict__["_grad"] = t.__dict__["_grad"] + grad
    if fn._retains_grad_hooks is None:
        fn._retains_grad_hooks = {}
    fn._retains_grad_hooks[self._output_nr] = retain_grad_hook


class _WeakTensor:
    def __init__(self, t):
        import weakref
        self.ref = weakref.ref(t)

    def __call__(self):
        return self.ref()


def register_post_accumulate_grad_hook(self, hook):
    """`hook(tensor)` after this leaf's `.grad` has been updated (an optimizer step per parameter)."""
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", {})
    return add_hook(hooks, PostAccumulateGradHook(hook))


def detach_(self):
    """Make this tensor a leaf that doesn't require grad, in place."""
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
            "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
            "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    self._grad_fn = None
    self._requires_grad = False
    self.__dict__.pop("_output_nr", None)
    return self


def _data(self):
    """`x.data`: the same memory without autograd history, and with a version counter of its own."""
    from .._tensor import VersionCounter
    out = self.detach()
    out._vc = VersionCounter()
    return out


def _set_data(self, new):
    if not isinstance(new, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
    if new.dtype is not self.dtype or new._storage.device != self._storage.device:
        self.dtype = new.dtype
    self._set_metadata(new._storage, new._offset, new._sizes, new._strides)
    self._keys = new._keys        # the new data's device decides which kernels run (Module.to("cuda"))


for _name, _value in {
    "grad_fn": property(_grad_fn),
    "requires_grad": property(_requires_grad, _set_requires_grad),
    "requires_grad_": requires_grad_,
    "grad": property(_get_grad, _set_grad, _del_grad),
    "is_leaf": property(lambda self: self.grad_fn is None),
    "output_nr": property(lambda self: self._output_nr),
    "retains_grad": property(lambda self: bool(self.__dict__.get("_retains_grad")) and self.grad_fn is not None),
    "backward": backward,
    "register_hook": register_hook,
    "retain_grad": retain_grad,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "detach_": detach_,
    "data": property(_data, _set_data),
    "is_inference": lambda self: bool(self.__dict__.get("_is_inference")),
}.items():
    setattr(Tensor, _name, _value)
