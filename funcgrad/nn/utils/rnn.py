"""`funcgrad.nn.utils.rnn`: padding and packing variable-length sequences (as PyTorch's).

`pad_sequence` stacks sequences of different lengths into one padded
tensor (differentiable). `PackedSequence` holds the time steps of sorted
sequences back to back, with `batch_sizes`, exactly as PyTorch lays them
out; the recurrent modules accept one and return one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from funcgrad.tensors.base import _new_like
from funcgrad.tensors.creation import full
from funcgrad.tensors.functions import cat, stack
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def _int_tensor(values) -> Tensor:
    return _new_like(Tensor, np.asarray(values, dtype=np.int64), None)


class PackedSequence(NamedTuple):
    """Time steps of a batch of sequences, packed (PyTorch's layout).

    Attributes:
        data: `(sum of lengths, *)`: step 0 of every sequence (longest
            first), then step 1 of those long enough, and so on.
        batch_sizes: How many sequences have each time step (int64, on the CPU).
        sorted_indices: The batch order used for packing (None if sorted).
        unsorted_indices: Its inverse.
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """Move or cast `data` (the indices stay)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    def double(self) -> PackedSequence:
        """`data` as float64."""
        return self._replace(data=self.data.double())

    def float(self) -> PackedSequence:
        """`data` as float32."""
        return self._replace(data=self.data.float())

    @property
    def is_cuda(self) -> bool:
        """Whether `data` is on a GPU."""
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """Return the inverse of a permutation (None stays None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation.numpy() if isinstance(permutation, Tensor) else permutation)
    out = np.empty_like(p)
    out[p] = np.arange(p.size)
    return _int_tensor(out)


def _lengths(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths.numpy(), dtype=np.int64).ravel()
    return np.asarray(list(lengths) if not isinstance(lengths, np.ndarray) else lengths).astype(
        np.int64
    )


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Pack a padded batch `(T, B, *)` (or `(B, T, *)`) of sequences of the given lengths.

    Raises:
        RuntimeError: If `enforce_sorted` and the lengths are not decreasing,
            or a length is 0 or longer than the padded input.
    """
    lens = _lengths(lengths)
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        order = None
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        input = input.index_select(0 if batch_first else 1, _int_tensor(order))
    if lens.size and lens.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    if lens.size and lens[0] > input.shape[0]:
        raise RuntimeError(
            f"Expected sequence length to be at most {input.shape[0]}, but got {lens[0]}"
        )
    steps = int(lens[0]) if lens.size else 0
    batch_sizes = np.array([(lens > t).sum() for t in range(steps)], dtype=np.int64)
    data = cat([input[t, : int(b)] for t, b in enumerate(batch_sizes)])
    sorted_indices = None if order is None else _int_tensor(order)
    return PackedSequence(
        data, _int_tensor(batch_sizes), sorted_indices, invert_permutation(sorted_indices)
    )


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
):
    """Unpack a `PackedSequence` into a padded batch and the lengths (the inverse of packing).

    Returns:
        `(padded, lengths)`: `(T, B, *)` (or `(B, T, *)`) and an int64 tensor.

    Raises:
        ValueError: If `total_length` is shorter than the longest sequence.
    """
    data, batch_sizes = sequence.data, np.asarray(sequence.batch_sizes.numpy())
    steps = batch_sizes.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
    else:
        total_length = steps
    batch = int(batch_sizes[0]) if steps else 0
    feature = tuple(data.shape[1:])
    rows = []
    start = 0
    for t in range(total_length):
        b = int(batch_sizes[t]) if t < steps else 0
        step = data[start : start + b]
        start += b
        if b < batch:
            pad = full((batch - b, *feature), padding_value, dtype=data.dtype)
            step = cat([step, pad]) if b else pad
        rows.append(step)
    padded = stack(rows)  # (T, B, *)
    lengths = np.array([(batch_sizes > i).sum() for i in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(sequence.unsorted_indices.numpy())]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _int_tensor(lengths)


def pad_sequence(
    sequences,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences `(L_i, *)` into `(max L, B, *)` (or `(B, max L, *)`), padding the short ones.

    Differentiable in every sequence.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.nn.utils.rnn import pad_sequence
        >>> pad_sequence([torch.ones(2), torch.ones(3) * 2], batch_first=True)
        tensor([[1., 1., 0.],
                [2., 2., 2.]])
    """
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if isinstance(sequences, Tensor):
        sequences = [sequences[i] for i in range(sequences.shape[0])]
    sequences = list(sequences)
    longest = max(int(s.shape[0]) for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - int(s.shape[0])
        if missing:
            pad = full((missing, *tuple(s.shape[1:])), padding_value, dtype=s.dtype)
            s = cat([s, pad] if padding_side == "right" else [pad, s])
        rows.append(s)
    return stack(rows, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """Split a padded batch back into its sequences (the inverse of `pad_sequence`)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, : int(n)] for i, n in enumerate(_lengths(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences `(L_i, *)` (`pad_sequence`, then `pack_padded_sequence`)."""
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """Unpack a `PackedSequence` into its list of sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
