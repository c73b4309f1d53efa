"""The wrapper around every CUDA kernel: all tensors on one device, and that device made current.

Why a wrapper: the dispatcher picks the CUDA kernel when *any* argument is a cuda tensor (the CUDA key is
above CPU), so `cuda_tensor @ cpu_tensor` reaches the CUDA kernel with a cpu tensor in hand. PyTorch's code
generator wraps each CUDA kernel in a function (`wrapper_CUDA_mm` in the generated RegisterCUDA.cpp) that
first runs `check_and_update_common_device` on every tensor argument and then sets a `DeviceGuard`, so the
kernel runs on the GPU its tensors live on. Ops marked `device_check: NoCheck` in native_functions.yaml skip
the check and do their own: TensorIterator ops (add, mul, where, ...) let a 0-dim cpu tensor join a cuda op
as a scalar, and copy_ moves data between devices. Here those kernels carry `device_check = False`.
"""

from .._tensor import Tensor
from ..dispatch.dispatcher import kernel_name


def wrapper_name(op):
    schema = op.schema
    return f"wrapper_CUDA_{schema.overload}_{schema.name}" if schema.overload else f"wrapper_CUDA__{schema.name}"


class DeviceCheck:
    """A CUDA kernel wrapped with the device check and `guard(index)`, PyTorch's `OptionalDeviceGuard`,
    entered when the op's device is not the current one (`current[0]`). An op with no tensor argument (a
    factory) runs on the device of its `device=` argument. A trace shows `DeviceCheck(mm_kernel)`; PyTorch's
    generated function is `wrapper_CUDA__mm`, the name its error message quotes."""

    def __init__(self, op, kernel, current, guard):
        self.kernel, self.current, self.guard = kernel, current, guard
        self.checks = [(i, op.schema.arguments[i].name, is_list) for i, is_list in op.tensor_args]
        self.name = wrapper_name(op)
        self.device_arg = next((i for i, a in enumerate(op.schema.arguments) if a.name == "device"), None)

    def __repr__(self):
        return f"DeviceCheck({kernel_name(self.kernel)})"

    def __call__(self, ks, *args):
        common = None
        for i, arg_name, is_list in self.checks:
            for t in (args[i] if is_list else (args[i],)):
                if isinstance(t, Tensor):
                    d = t._storage.device
                    if common is None:
                        common = d
                    elif d != common:
                        raise RuntimeError(
                            f"Expected all tensors to be on the same device, but found at least two devices, "
                            f"{common} and {d}! (when checking argument for argument {arg_name} in method "
                            f"{self.name})")
        if common is None and self.device_arg is not None and args[self.device_arg] is not None:
            common = args[self.device_arg]
        if common is not None and common.index != self.current[0]:     # another GPU: make it current
            with self.guard(common.index):
                return self.kernel(ks, *args)
        return self.kernel(ks, *args)


def cuda_kernel(op, kernel, current, guard):
    """`kernel` wrapped with the device check (see DeviceCheck)."""
    return DeviceCheck(op, kernel, current, guard)
