"""`funcgrad.optim` is PyTorch's `torch.optim`: optimizers that update tensors in place.

`Optimizer` and its subclasses (`SGD`, `Adam`, `AdamW`, `RMSprop`,
`Adagrad`, `Adadelta`, `Adamax`, `NAdam`, `RAdam`, `LBFGS`) step leaf
tensors under `no_grad`; `lr_scheduler` changes their learning rates. For
pure optimizers over pytrees (optax's style) see `funcgrad.optimizers`.
Layer: training (it may import everything below it: tensors, autograd,
numpy, transforms, ops).
"""

from funcgrad.optim import lr_scheduler
from funcgrad.optim.adadelta import Adadelta
from funcgrad.optim.adagrad import Adagrad
from funcgrad.optim.adam import Adam, AdamW
from funcgrad.optim.adamax import Adamax
from funcgrad.optim.lbfgs import LBFGS
from funcgrad.optim.nadam import NAdam
from funcgrad.optim.optimizer import Optimizer
from funcgrad.optim.radam import RAdam
from funcgrad.optim.rmsprop import RMSprop
from funcgrad.optim.sgd import SGD

__all__ = [
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "lr_scheduler",
]
