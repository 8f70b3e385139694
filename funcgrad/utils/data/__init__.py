"""`funcgrad.utils.data` is PyTorch's `torch.utils.data`: datasets, samplers and `DataLoader`.

Map-style datasets (`Dataset`, `TensorDataset`, `StackDataset`,
`ConcatDataset`, `Subset`, `random_split`) and iterable ones
(`IterableDataset`, `ChainDataset`); samplers that order the indices;
`DataLoader`, which batches samples with `default_collate` (in worker
processes with `num_workers > 0`). Random orders come from
`funcgrad.Generator`s (`generator=`) or the global generator
(`funcgrad.manual_seed`). Layer: training.
"""

from funcgrad.utils.data._collate import default_collate, default_convert
from funcgrad.utils.data._worker import get_worker_info
from funcgrad.utils.data.dataloader import DataLoader
from funcgrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from funcgrad.utils.data.distributed import DistributedSampler
from funcgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
