"""`torch.distributed`: training on several processes. Out of reach here, with the answers a script checks first.

PyTorch's torch.distributed runs one process per GPU (or per machine) and joins them in a *process group*
(`init_process_group("nccl" | "gloo")`, which reads RANK, WORLD_SIZE, MASTER_ADDR from the environment);
collectives such as `all_reduce` then sum gradients across processes, which is what DistributedDataParallel does
after each backward.

teachtorch runs in one process and has no communication backend. It answers as PyTorch's Linux CPU wheel does
for a script that has not joined a process group: `is_available()` is True (the package is there; PyTorch's
wheel ships gloo), `is_initialized()` is False, and whatever needs the default group (`get_rank()`,
`DistributedDataParallel`) raises PyTorch's ValueError. Well-written scripts ask `is_initialized()` before they
touch a process group, so they take their single-process path. `init_process_group` raises a RuntimeError that
says why it cannot work here, where PyTorch would start rendezvous.
"""

__all__ = ["barrier", "destroy_process_group", "get_rank", "get_world_size", "init_process_group",
           "is_available", "is_initialized"]

_NO_GROUP = ("Default process group has not been initialized, please make sure to call init_process_group.")


def is_available():
    return True


def is_initialized():
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    raise RuntimeError("torch.distributed.init_process_group: teachtorch runs in a single process and has no "
                       "distributed backend (nccl, gloo, mpi); run the script without torchrun/launch, on one "
                       "process")


def _needs_group(*args, **kwargs):
    # ValueError, as PyTorch raises before init_process_group
    raise ValueError(_NO_GROUP)


get_rank = get_world_size = barrier = destroy_process_group = _needs_group
all_reduce = broadcast = all_gather = reduce = _needs_group
