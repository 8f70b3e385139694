"""`funcgrad.distributed` is PyTorch's `torch.distributed`: collectives across processes.

Processes join a group with `init_process_group(backend="mpi" | "nccl")`
(MPI through mpi4py on CPUs and clusters, NCCL through CuPy on GPUs) and
run collectives on Tensors, arrays and pytrees (`all_reduce`, `broadcast`,
`all_gather`, `reduce_scatter`, `gather`, `scatter`, `send`/`recv`).
`functional` holds the differentiable ones (registry primitives) and
`psum`/`pmean`. Layer: distributed (imports tensors and everything below;
`nn.parallel` and `utils.data.distributed` build on it).
"""

from funcgrad.distributed import functional
from funcgrad.distributed._api import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from funcgrad.distributed._group import (
    Backend,
    CollectiveMismatchError,
    DistBackendError,
    DistError,
    DistTimeoutError,
    ProcessGroup,
    ReduceOp,
    Work,
    barrier,
    destroy_process_group,
    get_backend,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    new_group,
)
from funcgrad.distributed.functional import pmean, psum

__all__ = [
    "Backend",
    "CollectiveMismatchError",
    "DistBackendError",
    "DistError",
    "DistTimeoutError",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "functional",
    "gather",
    "get_backend",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "irecv",
    "is_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "isend",
    "new_group",
    "pmean",
    "psum",
    "recv",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]
