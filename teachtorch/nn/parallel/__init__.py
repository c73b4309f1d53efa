"""`torch.nn.parallel`: DataParallel and DistributedDataParallel, wrappers that run a module on several devices.

PyTorch's `DataParallel(module)` splits each batch across the visible GPUs, runs a replica of the module on
each, and gathers the outputs; with no GPU it does nothing but call the module (torch/nn/parallel/data_parallel.py:
`if not self.device_ids: return self.module(*inputs, **kwargs)`). teachtorch does the same on CPU: it wraps
the module, so `state_dict` keys gain the `module.` prefix exactly as in PyTorch, and forwards every call.
On GPUs it still runs the one module on the current device (there is no multi-GPU scatter here).

`DistributedDataParallel` needs a process group (`torch.distributed.init_process_group`), which teachtorch
never has (see teachtorch/distributed): constructing one raises PyTorch's error for that case.
"""

from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, **kwargs):
        super().__init__()
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
