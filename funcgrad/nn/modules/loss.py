"""The loss modules of `funcgrad.nn` (PyTorch's `torch.nn` losses), each a thin `Module` over its `F` function.

As in PyTorch, the options are plain attributes (`reduction`, `ignore_index`,
`label_smoothing`, ...), and class weights are buffers (`weight`,
`pos_weight`): they move with `.to()`/`.double()` and appear in the
`state_dict` when given. The deprecated `size_average`/`reduce` arguments
are mapped to `reduction`, with PyTorch's warning.
"""

from __future__ import annotations

from funcgrad.nn import functional as F
from funcgrad.nn.functional._loss import _legacy_reduction
from funcgrad.nn.modules.module import Module

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]


class _Loss(Module):
    """The base of the loss modules: holds `reduction` (from the legacy arguments if given)."""

    reduction: str

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:  # noqa: A002
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with a per-class `weight`, registered as a buffer (None when not given)."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean absolute error `|input - target|` (`F.l1_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.L1Loss()(torch.tensor([1.0, -1.0]), torch.zeros(2))
        tensor(1.)
    """

    def forward(self, input, target):  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """The mean squared error `(input - target) ** 2` (`F.mse_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.MSELoss()(torch.tensor([1.0, -1.0]), torch.zeros(2))
        tensor(1.)
        >>> nn.MSELoss(reduction="sum")
        MSELoss()
    """

    def forward(self, input, target):  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """The smooth L1 loss with threshold `beta` (`F.smooth_l1_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.SmoothL1Loss(beta=2.0)(torch.tensor([1.0]), torch.zeros(1))
        tensor(0.2500)
    """

    def __init__(
        self,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):  # noqa: A002
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """The Huber loss with threshold `delta` (`F.huber_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.HuberLoss(delta=0.5)(torch.tensor([2.0]), torch.zeros(1))
        tensor(0.8750)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):  # noqa: A002
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """The negative log likelihood loss of log-probabilities and class indices (`F.nll_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.NLLLoss()(torch.tensor([[-0.5, -1.0]]), torch.tensor([1]))
        tensor(1.)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    """The cross entropy of logits and class indices or probabilities (`F.cross_entropy`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> loss = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0]), label_smoothing=0.1)
        >>> loss
        CrossEntropyLoss()
        >>> loss.weight
        tensor([1., 2.])
        >>> loss(torch.tensor([[0.0, 1.0]]), torch.tensor([1]))
        tensor(0.3304)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """The binary cross entropy of probabilities (`F.binary_cross_entropy`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.BCELoss()(torch.tensor([0.5]), torch.tensor([1.0]))
        tensor(0.6931)
    """

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """The binary cross entropy of logits, stable (`F.binary_cross_entropy_with_logits`).

    `weight` and `pos_weight` are buffers.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))
        >>> loss(torch.tensor([0.0]), torch.tensor([1.0]))
        tensor(2.0794)
    """

    def __init__(
        self,
        weight=None,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
        pos_weight=None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(
            input,
            target,
            self.weight,
            pos_weight=self.pos_weight,
            reduction=self.reduction,
        )


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence loss of log-probabilities (`F.kl_div`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.KLDivLoss(reduction="batchmean", log_target=True)(torch.zeros(1, 2), torch.zeros(1, 2))
        tensor(0.)
    """

    def __init__(
        self,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):  # noqa: A002
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """The Poisson negative log likelihood (`F.poisson_nll_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.PoissonNLLLoss()(torch.zeros(2), torch.ones(2))
        tensor(1.)
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average=None,
        eps: float = 1e-8,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log likelihood of means and variances (`F.gaussian_nll_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.GaussianNLLLoss()(torch.zeros(2), torch.ones(2), torch.ones(2))
        tensor(0.5000)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):  # noqa: A002
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """The cosine embedding loss of two inputs and targets of 1 or -1 (`F.cosine_embedding_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.CosineEmbeddingLoss()(torch.ones(1, 2), torch.ones(1, 2), torch.ones(1))
        tensor(0.)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """The margin ranking loss `max(0, -y (x1 - x2) + margin)` (`F.margin_ranking_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.MarginRankingLoss(margin=1.0)(torch.ones(1), torch.ones(1), torch.ones(1))
        tensor(1.)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """The hinge embedding loss of distances and targets of 1 or -1 (`F.hinge_embedding_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.HingeEmbeddingLoss()(torch.tensor([0.25]), torch.tensor([-1.0]))
        tensor(0.7500)
    """

    def __init__(
        self,
        margin: float = 1.0,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """The two-class logistic loss `log(1 + exp(-y x))` (`F.soft_margin_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.SoftMarginLoss()(torch.zeros(1), torch.ones(1))
        tensor(0.6931)
    """

    def forward(self, input, target):  # noqa: A002
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The multi-label one-versus-all logistic loss (`F.multilabel_soft_margin_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.MultiLabelSoftMarginLoss()(torch.zeros(1, 3), torch.ones(1, 3))
        tensor(0.6931)
    """

    def forward(self, input, target):  # noqa: A002
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class MultiLabelMarginLoss(_Loss):
    """The multi-class multi-label hinge loss (`F.multilabel_margin_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.MultiLabelMarginLoss()(torch.zeros(1, 2), torch.tensor([[0, -1]]))
        tensor(0.5000)
    """

    def forward(self, input, target):  # noqa: A002
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss (`F.multi_margin_loss`).

    Raises:
        ValueError: For `p` other than 1 and 2, or a `weight` that is not 1-D.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.MultiMarginLoss()(torch.zeros(1, 2), torch.tensor([0]))
        tensor(0.5000)
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight=None,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                "instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class TripletMarginLoss(_Loss):
    """The triplet margin loss with `p`-norm distances (`F.triplet_margin_loss`).

    Raises:
        ValueError: For `margin <= 0`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> nn.TripletMarginLoss()(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1, 2))
        tensor(1.)
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,  # noqa: A002
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet margin loss with a distance function of your own (`F.triplet_margin_with_distance_loss`).

    Raises:
        ValueError: For `margin <= 0`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> loss = nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: (x - y).abs().sum(-1))
        >>> loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2))
        tensor(0.)
    """

    def __init__(
        self,
        *,
        distance_function=None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (`F.ctc_loss`).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn as nn
        >>> lp = torch.zeros(3, 1, 2).log_softmax(2)
        >>> nn.CTCLoss(reduction="sum")(lp, torch.tensor([[1]]), [3], [1])
        tensor(0.2877)
        >>> nn.CTCLoss(blank=0)
        CTCLoss()
    """

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
