"""Learning-rate schedules for `funcgrad.optim` optimizers (PyTorch's `torch.optim.lr_scheduler`).

A scheduler changes `group["lr"]` of its optimizer's parameter groups each
time its `step()` is called, after `optimizer.step()`. The schedules follow
PyTorch's recurrences (each step scales the current learning rates, so
schedulers compose: `ChainedScheduler`, `SequentialLR`, or two schedulers on
one optimizer) and its closed forms when an epoch is passed to `step`.
`state_dict()` holds the scheduler's attributes under PyTorch's names, so a
checkpoint loads into either library.

Examples:
    >>> import funcgrad as torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     opt.step()
    ...     lrs.append(sched.get_last_lr()[0])
    ...     sched.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.25]
"""

from __future__ import annotations

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial, wraps
from typing import Any, SupportsFloat

from funcgrad.optim.optimizer import Optimizer
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


def _scalar(x: Any) -> Any:
    return x.item() if isinstance(x, Tensor) else x


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: `param` repeated, or a list checked for its length."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
    else:
        param = [param] * len(optimizer.param_groups)
    return [p.clone() if isinstance(p, Tensor) else p for p in param]


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """`group[key]` of every group (tensors copied, so the list never aliases a group)."""
    return [
        g[key].clone() if isinstance(g[key], Tensor) else g[key] for g in optimizer.param_groups
    ]


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Set `group[key]`; a tensor learning rate is filled in place (optimizers hold it)."""
    if isinstance(group[key], Tensor):
        group[key].fill_(_scalar(value))
    else:
        group[key] = value


def _warn_get_lr_called_within_step(scheduler: LRScheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


class _GetLrCall:
    """Mark the scheduler as inside `step` (so `get_lr()` does not warn)."""

    def __init__(self, scheduler: LRScheduler) -> None:
        self.scheduler = scheduler

    def __enter__(self) -> _GetLrCall:
        self.scheduler._get_lr_called_within_step = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self.scheduler._get_lr_called_within_step = False


class _InitialMode:
    """Mark the scheduler's first step, made by its constructor."""

    def __init__(self, scheduler: LRScheduler) -> None:
        self.scheduler = scheduler

    def __enter__(self) -> None:
        self.scheduler._is_initial = True

    def __exit__(self, *exc: Any) -> None:
        self.scheduler._is_initial = False


def _track_step_called(optimizer: Optimizer) -> None:
    """Wrap `optimizer.step` (once) to record that it ran, for the out-of-order warning."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class of the learning-rate schedulers (PyTorch's `LRScheduler`).

    Subclasses implement `get_lr()` (the next learning rates, from the
    current ones or from `base_lrs` and `last_epoch`). Creating a scheduler
    records each group's `initial_lr` and takes a first step (epoch 0), so
    the optimizer's learning rates are the schedule's first values.

    Args:
        optimizer: The optimizer whose learning rates are scheduled.
        last_epoch: The index of the last epoch; -1 starts the schedule.
            Other values resume one, and need each group's `initial_lr`.

    Raises:
        TypeError: If `optimizer` is not a `funcgrad.optim.Optimizer`.
        KeyError: When resuming (`last_epoch >= 0`) without `initial_lr`.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125]
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault("initial_lr", initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        f"resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        f"when:\n1. You're trying to resume training from a checkpoint but "
                        f"haven't properly loaded the optimizer state\n2. You're using "
                        f"last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_called(self.optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take the first step."""
        self._step_count = 0
        with _InitialMode(self):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        """Return the scheduler's state: its attributes but the optimizer, under PyTorch's names."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()` (of either library)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """Return the learning rates of the last step, one per parameter group."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """Compute the next learning rates (called by `step`; use `get_last_lr()` to read them)."""
        raise NotImplementedError

    def _times(self, factor: Any) -> list[Any]:
        """Each group's current learning rate times `factor` (a chainable step)."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _base_times(self, factor: Any) -> list[Any]:
        """Each group's initial learning rate times `factor` (a closed form)."""
        return [base_lr * factor for base_lr in self.base_lrs]

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one epoch (call it after `optimizer.step()`).

        Args:
            epoch: Deprecated in PyTorch: jump to this epoch, through the
                closed form where the scheduler has one (warns).

        Warns:
            UserWarning: On the first call when `optimizer.step()` has not
                been called yet (PyTorch's warning: the schedule's first value
                would be skipped).
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _GetLrCall(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


def _lambdas_state(scheduler: Any) -> dict[str, Any]:
    # Functions and lambdas are not saved; callable objects save their attributes.
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [
        None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        for fn in scheduler.lr_lambdas
    ]
    return state


def _load_lambdas_state(scheduler: Any, state_dict: dict[str, Any]) -> None:
    lr_lambdas = state_dict.pop("lr_lambdas")
    scheduler.__dict__.update(state_dict)
    state_dict["lr_lambdas"] = lr_lambdas
    for i, fn in enumerate(lr_lambdas):
        if fn is not None:
            scheduler.lr_lambdas[i].__dict__.update(fn)


class LambdaLR(LRScheduler):
    """Set each group's learning rate to its initial one times `lr_lambda(epoch)`.

    Args:
        optimizer: The optimizer.
        lr_lambda: A function of the epoch giving the factor, or one per group.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
        >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
        >>> opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.25]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """Return the state; lambdas are saved only when they are callable objects (their attributes)."""
        return _lambdas_state(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        _load_lambdas_state(self, state_dict)

    def get_lr(self) -> list[Any]:
        """The initial learning rates times the lambdas at `last_epoch`."""
        _warn_get_lr_called_within_step(self)
        return [
            base_lr * fn(self.last_epoch)
            for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(LRScheduler):
    """Multiply each group's learning rate by `lr_lambda(epoch)` every epoch.

    Args:
        optimizer: The optimizer.
        lr_lambda: A function of the epoch giving the factor, or one per group.
        last_epoch: The index of the last epoch (-1: start).

    Raises:
        TypeError: If a lambda is not callable.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.9)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.9, 0.81, 0.729]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """Return the state; lambdas are saved only when they are callable objects (their attributes)."""
        return _lambdas_state(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        _load_lambdas_state(self, state_dict)

    def get_lr(self) -> list[Any]:
        """The current learning rates times the lambdas at `last_epoch` (unchanged at the start)."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]


class StepLR(LRScheduler):
    """Multiply the learning rates by `gamma` every `step_size` epochs.

    Args:
        optimizer: The optimizer.
        step_size: The period of the decay, in epochs.
        gamma: The factor.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current learning rates, times `gamma` at each multiple of `step_size`."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return self._times(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return self._base_times(self.gamma ** (self.last_epoch // self.step_size))


class MultiStepLR(LRScheduler):
    """Multiply the learning rates by `gamma` at each milestone epoch.

    Args:
        optimizer: The optimizer.
        milestones: Increasing epoch indices (one listed twice decays twice).
        gamma: The factor.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current learning rates, times `gamma` (per occurrence) at a milestone."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        return self._times(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return self._base_times(self.gamma ** bisect_right(milestones, self.last_epoch))


class ConstantLR(LRScheduler):
    """Multiply the learning rates by `factor` for the first `total_iters` epochs.

    Args:
        optimizer: The optimizer.
        factor: The factor, in [0, 1].
        total_iters: How many epochs it applies.
        last_epoch: The index of the last epoch (-1: start).

    Raises:
        ValueError: If `factor` is outside [0, 1].

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """Scaled by `factor` at epoch 0, scaled back at `total_iters`."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return self._times(self.factor)
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return self._times(1.0 / self.factor)

    def _get_closed_form_lr(self) -> list[Any]:
        return self._base_times(
            self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        )


class LinearLR(LRScheduler):
    """Scale the learning rates by a factor going linearly from `start_factor` to `end_factor`.

    Args:
        optimizer: The optimizer.
        start_factor: The factor at epoch 0, in (0, 1].
        end_factor: The factor from epoch `total_iters` on, in [0, 1].
        total_iters: How many epochs the change takes.
        last_epoch: The index of the last epoch (-1: start).

    Raises:
        ValueError: For factors out of range.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current learning rates times the ratio of successive linear factors."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return self._times(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return self._times(ratio)

    def _get_closed_form_lr(self) -> list[Any]:
        return self._base_times(
            self.start_factor
            + (self.end_factor - self.start_factor)
            * min(self.total_iters, self.last_epoch)
            / self.total_iters
        )


class ExponentialLR(LRScheduler):
    """Multiply the learning rates by `gamma` every epoch.

    Args:
        optimizer: The optimizer.
        gamma: The factor.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current learning rates times `gamma` (unchanged at the start)."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return self._times(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return self._base_times(self.gamma**self.last_epoch)


class PolynomialLR(LRScheduler):
    """Decay the learning rates as `(1 - epoch / total_iters) ** power`, then hold them.

    Args:
        optimizer: The optimizer.
        total_iters: How many epochs the decay takes.
        power: The power of the polynomial.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5625, 0.25, 0.0625, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current learning rates times the ratio of successive polynomial factors."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        decay = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return self._times(decay)

    def _get_closed_form_lr(self) -> list[Any]:
        return self._base_times(
            (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
        )


class CosineAnnealingLR(LRScheduler):
    """Anneal the learning rates along a cosine from the initial ones to `eta_min` in `T_max` epochs.

    Past `T_max` the cosine goes on (back up to the initial rates at
    `2 * T_max`), as in PyTorch; use `CosineAnnealingWarmRestarts` for restarts.

    Args:
        optimizer: The optimizer.
        T_max: Half the period, in epochs.
        eta_min: The lowest learning rate.
        last_epoch: The index of the last epoch (-1: start).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The next learning rates by the cosine recurrence (PyTorch's chainable form)."""
        _warn_get_lr_called_within_step(self)
        eta_min, t_max, epoch = self.eta_min, self.T_max, self.last_epoch
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and epoch > 0:  # resumed at last_epoch
            return [
                eta_min + (base_lr - eta_min) * (1 + math.cos(epoch * math.pi / t_max)) / 2
                for base_lr in self.base_lrs
            ]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:  # the bottom of the cosine
            return [
                group["lr"] + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups, strict=True)
            ]
        return [
            (1 + math.cos(math.pi * epoch / t_max))
            / (1 + math.cos(math.pi * (epoch - 1) / t_max))
            * (group["lr"] - eta_min)
            + eta_min
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


def _check_schedulers(owner: str, optimizer: Optimizer, schedulers: Sequence[Any]) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                f"additional kwargs to be specified when calling `step`, but got one at "
                f"index {i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {i} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}."
            )


def _nested_state(scheduler: Any) -> dict[str, Any]:
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_nested_state(scheduler: Any, state_dict: dict[str, Any]) -> None:
    schedulers = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    state_dict["_schedulers"] = schedulers
    for i, s in enumerate(schedulers):
        scheduler._schedulers[i].load_state_dict(s)


class SequentialLR(LRScheduler):
    """Run schedulers one after the other, switching at the milestone epochs.

    Args:
        optimizer: The optimizer (all schedulers must be its).
        schedulers: The schedulers, in order.
        milestones: The epochs at which the next scheduler takes over (one
            fewer than the schedulers).
        last_epoch: The index of the last epoch (-1: start).

    Raises:
        ValueError: For no scheduler, a `ReduceLROnPlateau`, another
            optimizer's scheduler, or a wrong number of milestones.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> from funcgrad.optim.lr_scheduler import ConstantLR, ExponentialLR, SequentialLR
        >>> warmup = ConstantLR(opt, factor=0.1, total_iters=2)
        >>> sched = SequentialLR(opt, [warmup, ExponentialLR(opt, gamma=0.5)], milestones=[2])
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.1, 0.1, 1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the steps the schedulers took when they were made, then start the first.
        for group in self.optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Take back the initial step of every scheduler (nested ones too)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler of the current phase (a new phase starts at its epoch 0)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """Return the state, with each scheduler's own state under `_schedulers`."""
        return _nested_state(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        _load_nested_state(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step several schedulers together each epoch (their factors multiply).

    Args:
        schedulers: The schedulers, all of one optimizer.
        optimizer: That optimizer (default: the first scheduler's).

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> from funcgrad.optim.lr_scheduler import ChainedScheduler, ConstantLR, ExponentialLR
        >>> warmup = ConstantLR(opt, factor=0.1, total_iters=2)
        >>> sched = ChainedScheduler([warmup, ExponentialLR(opt, gamma=0.5)])
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.1, 0.05, 0.25, 0.125]
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def state_dict(self) -> dict[str, Any]:
        """Return the state, with each scheduler's own state under `_schedulers`."""
        return _nested_state(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        _load_nested_state(self, state_dict)


class ReduceLROnPlateau(LRScheduler):
    """Reduce the learning rates by `factor` when a metric stops improving.

    `step(metric)` takes the metric of the epoch (a validation loss, say).
    After `patience` epochs without improvement (by more than `threshold`,
    relative or absolute) the rates are multiplied by `factor` (not below
    `min_lr`), then `cooldown` epochs pass before counting again.

    Args:
        optimizer: The optimizer.
        mode: `"min"` (the metric should decrease) or `"max"`.
        factor: The factor, below 1.
        patience: Epochs without improvement tolerated.
        threshold: The least change that counts as an improvement.
        threshold_mode: `"rel"` (relative to the best) or `"abs"`.
        cooldown: Epochs to wait after a reduction.
        min_lr: The lowest learning rate, or one per group.
        eps: Reductions smaller than this are skipped.

    Raises:
        ValueError: For `factor >= 1`, an unknown mode, or a wrong number of `min_lr`s.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> for loss in [3.0, 2.0, 2.0, 2.0, 2.0]:
        ...     sched.step(loss)
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(self.optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record the epoch's metric and reduce the learning rates if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch: int) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    f"to a new param group being added to the optimizer. Please modify the "
                    f"`min_lrs` field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )


def _set_momentum(group: dict[str, Any], use_beta1: bool, momentum: float) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Cycle the learning rates between `base_lr` and `max_lr` (and the momentum the other way).

    The policy steps once per batch: `step_size_up` steps up, `step_size_down`
    down. `mode` scales each cycle's amplitude: `"triangular"` (constant),
    `"triangular2"` (halved each cycle), `"exp_range"` (`gamma ** step`), or a
    custom `scale_fn`. With `cycle_momentum`, the momentum (or Adam's
    `beta1`) moves between `max_momentum` and `base_momentum`, inversely.

    Args:
        optimizer: The optimizer.
        base_lr: The lower learning rate (or one per group).
        max_lr: The upper learning rate (or one per group).
        step_size_up: Steps in the increasing half of a cycle.
        step_size_down: Steps in the decreasing half (default: `step_size_up`).
        mode: `"triangular"`, `"triangular2"` or `"exp_range"`.
        gamma: The factor of `"exp_range"`.
        scale_fn: A custom scale function of the cycle or the step.
        scale_mode: `"cycle"` or `"iterations"`: what `scale_fn` takes.
        cycle_momentum: Cycle the momentum too.
        base_momentum: The lower momentum (or one per group).
        max_momentum: The upper momentum (or one per group).
        last_epoch: The index of the last batch (-1: start).

    Raises:
        ValueError: For an unknown mode without `scale_fn`, or
            `cycle_momentum` with an optimizer that has no momentum or betas.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=2)
        >>> lrs = []
        >>> for _ in range(6):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.1, 0.55, 1.0, 0.55, 0.1, 0.55]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_ref: Callable[[float], float]
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m_mom, b_mom, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups, strict=True
                ):
                    _set_momentum(group, self.use_beta1, m_mom)
                    group["max_momentum"] = m_mom
                    group["base_momentum"] = b_mom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or step) `x`."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list[Any]:
        """The learning rates at `last_epoch` of the cycle (the momentum is set too)."""
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [
            base_lr + (max_lr - base_lr) * scale_factor * self.scale_fn(at)
            for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True)
        ]
        if self.cycle_momentum:
            for group, base_m, max_m in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums, strict=True
            ):
                momentum = max_m - (max_m - base_m) * scale_factor * self.scale_fn(at)
                _set_momentum(group, self.use_beta1, momentum)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """Return the state; a custom `scale_fn` is saved only as a callable object's attributes."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state returned by `state_dict()`."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial learning rates to `eta_min`, restarting every `T_i` epochs.

    The first period is `T_0` epochs; each next one is `T_mult` times longer.
    `step(epoch)` may take a fractional epoch (`epoch + batch / batches`).

    Args:
        optimizer: The optimizer.
        T_0: The first period, a positive integer.
        T_mult: The growth of the period, an integer >= 1.
        eta_min: The lowest learning rate.
        last_epoch: The index of the last epoch (-1: start).

    Raises:
        ValueError: For a non-positive `T_0`, `T_mult < 1`, or a negative epoch.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        >>> lrs = []
        >>> for _ in range(7):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The learning rates at `T_cur` epochs into the current period."""
        _warn_get_lr_called_within_step(self)
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base_lr in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to `epoch` (which may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _GetLrCall(self):
            for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
                _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to `max_lr`, then anneal far below the start (per batch).

    The learning rate goes from `max_lr / div_factor` up to `max_lr` over
    `pct_start` of the steps, then down to `initial_lr / final_div_factor`
    (cosine or linear annealing); with `three_phase`, it comes back to the
    start before the final descent. The momentum (or `beta1`) cycles inversely
    between `max_momentum` and `base_momentum`. Stepping more than
    `total_steps` times raises.

    Args:
        optimizer: The optimizer.
        max_lr: The peak learning rate (or one per group).
        total_steps: The number of steps; or give `epochs` and `steps_per_epoch`.
        epochs: Epochs (with `steps_per_epoch`).
        steps_per_epoch: Steps per epoch (with `epochs`).
        pct_start: The fraction of the steps spent warming up.
        anneal_strategy: `"cos"` or `"linear"`.
        cycle_momentum: Cycle the momentum too.
        base_momentum: The lower momentum (or one per group).
        max_momentum: The upper momentum (or one per group).
        div_factor: `initial_lr = max_lr / div_factor`.
        final_div_factor: `min_lr = initial_lr / final_div_factor`.
        three_phase: Use the three-phase schedule.
        last_epoch: The index of the last batch (-1: start).

    Raises:
        ValueError: For missing or non-positive step counts, a `pct_start`
            outside [0, 1], an unknown strategy, or too many steps.

    Examples:
        >>> import funcgrad as torch
        >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
        >>> [round(sched.get_last_lr()[0], 3), opt.param_groups[0]["momentum"]]
        [0.04, 0.95]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        up_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                _phase(
                    self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"
                ),
            ]
        else:
            self._schedule_phases = [
                _phase(up_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if "momentum" not in self.optimizer.defaults and "betas" not in self.optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in self.optimizer.defaults
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_mom, b_mom, group in zip(
                    max_momentums, base_momentums, optimizer.param_groups, strict=True
                ):
                    _set_momentum(group, self.use_beta1, m_mom)
                    group["max_momentum"] = m_mom
                    group["base_momentum"] = b_mom
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        if self._anneal_func_type == "linear":
            return self._annealing_linear(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        # Cosine from start (pct = 0) to end (pct = 1).
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        return (end - start) * pct + start

    def get_lr(self) -> list[Any]:
        """The learning rates at step `last_epoch` of the phases (the momentum is set too)."""
        _warn_get_lr_called_within_step(self)
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, momentum)
        return lrs


def _phase(end_step: float, start_lr: str, end_lr: str, start_m: str, end_m: str) -> dict[str, Any]:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_m,
        "end_momentum": end_m,
    }
