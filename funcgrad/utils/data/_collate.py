"""`default_collate` and `default_convert`: how a `DataLoader` turns samples into a batch.

PyTorch's rules, element type by element type: tensors are stacked; NumPy
arrays and scalars become tensors (then stacked); Python floats become a
float64 tensor, ints an int64 tensor (bools a bool tensor); strings and
bytes stay a list; mappings, namedtuples, tuples and lists are collated
field by field (a tuple or list of samples becomes a list of batches).
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad.tensors import from_numpy, tensor
from funcgrad.tensors.dtypes import float64
from funcgrad.tensors.functions import stack
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtypes that hold strings or objects: not turned into tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _as_tensor(data: Any) -> Tensor:
    """`torch.as_tensor` of an array (shared), a NumPy scalar or a list of NumPy scalars."""
    if isinstance(data, np.ndarray):
        return from_numpy(data) if data.flags.writeable else tensor(data)
    return tensor(np.asarray(data))


def default_convert(data: Any) -> Any:
    """Convert NumPy arrays and scalars (also inside mappings and sequences) to tensors.

    The collate function of a `DataLoader` without automatic batching
    (`batch_size=None`): each sample is converted, not stacked.

    Examples:
        >>> import numpy as np
        >>> default_convert({"x": np.zeros(2), "name": "a"})
        {'x': tensor([0., 0.], dtype=funcgrad.float64), 'name': 'a'}
    """
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if (
        elem_type.__module__ == "numpy"
        and elem_type.__name__ != "str_"
        and elem_type.__name__ != "string_"
    ):
        # arrays of strings and objects are left as they are
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:  # the mapping type cannot be rebuilt this way
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                seq: Any = copy.copy(data)
                for i, d in enumerate(data):
                    seq[i] = default_convert(d)
                return seq
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch: Any, *, collate_fn_map: dict[Any, Callable] | None = None) -> Any:
    """Collate a batch by the rules of `collate_fn_map` (element type -> function), recursively.

    Containers (mappings, namedtuples, sequences) are handled here; each
    leaf type is looked up in `collate_fn_map` (exact type first, then
    `isinstance`). Extend `default_collate_fn_map` to collate a type of your own.

    Raises:
        TypeError: For an element type without a rule.
        RuntimeError: For sequences of different lengths in one batch.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(
                    {
                        key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                        for key in elem
                    }
                )
                return clone
            return elem_type(
                {
                    key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem
                }
            )
        except TypeError:
            return {
                key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
            }
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(
            *(
                collate(samples, collate_fn_map=collate_fn_map)
                for samples in zip(*batch, strict=False)
            )
        )
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=False))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                seq: Any = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    seq[i] = collate(samples, collate_fn_map=collate_fn_map)
                return seq
            return elem_type(
                [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
            )
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    """Stack tensors along a new first dimension."""
    return stack(list(batch), 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    """NumPy arrays become tensors, then are stacked (arrays of strings or objects refused)."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    """NumPy scalars become a tensor of their dtype."""
    return _as_tensor(list(batch))


def collate_float_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    """Python floats become a float64 tensor."""
    return tensor(list(batch), dtype=float64)


def collate_int_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    """Python ints become an int64 tensor (bools a bool tensor)."""
    return tensor(list(batch))


def collate_str_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    """Strings and bytes stay as they are: the batch is their list."""
    return batch


default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """Collate a list of samples into a batch, by PyTorch's rules (see the module's docstring).

    Examples:
        >>> import numpy as np, funcgrad as torch
        >>> default_collate([(torch.tensor([1.0, 2.0]), 0), (torch.tensor([3.0, 4.0]), 1)])
        [tensor([[1., 2.],
                [3., 4.]]), tensor([0, 1])]
        >>> default_collate([{"x": np.float32(1.5), "name": "a"}, {"x": np.float32(2.5), "name": "b"}])
        {'x': tensor([1.5000, 2.5000]), 'name': ['a', 'b']}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
