"""`Flatten` and `Unflatten`."""

from __future__ import annotations

from funcgrad.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims `start_dim` .. `end_dim` into one (default: all but the batch dim).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> nn.Flatten()(torch.ones(32, 1, 5, 5)).shape
        funcgrad.Size([32, 25])
        >>> nn.Flatten(0, 2)
        Flatten(start_dim=0, end_dim=2)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Unflatten dim `dim` into `unflattened_size` (a tuple, or named `(name, size)` pairs).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> nn.Unflatten(1, (2, 5))(torch.ones(3, 10)).shape
        funcgrad.Size([3, 2, 5])
    """

    def __init__(self, dim, unflattened_size) -> None:
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        elif isinstance(dim, str):
            self._require_tuple_tuple(unflattened_size)
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_tuple(self, input) -> None:
        if isinstance(input, tuple):
            for idx, elem in enumerate(input):
                if not isinstance(elem, tuple):
                    raise TypeError(
                        "unflattened_size must be tuple of tuples, "
                        + f"but found element of type {type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            "unflattened_size must be a tuple of tuples, "
            + f"but found type {type(input).__name__}"
        )

    def _require_tuple_int(self, input) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, "
                        + f"but found element of type {type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}"
        )

    def forward(self, input):
        if isinstance(self.dim, str):
            raise NotImplementedError(
                "funcgrad.nn.Unflatten: named dimensions are not supported (funcgrad tensors "
                "have no names); pass an int dim"
            )
        shape = list(input.shape)
        dim = self.dim % len(shape)
        sizes = list(self.unflattened_size)
        if -1 in sizes:
            known = 1
            for s in sizes:
                if s != -1:
                    known *= s
            sizes[sizes.index(-1)] = shape[dim] // known if known else 0
        return input.reshape(*shape[:dim], *sizes, *shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
