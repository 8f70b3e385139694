"""PyTorch's collectives (`torch.distributed.all_reduce` ...) on Tensors, arrays and pytrees.

Where PyTorch writes into a tensor argument, a `Tensor` there is written in
place (under `no_grad`, as PyTorch's collectives are not recorded); an
array or a pytree there is left as it is (funcgrad's values are
immutable) and the call returns the result instead. With `async_op=True`
every call returns a `Work` whose `wait()` finishes the writes and returns
the same result. Lists that PyTorch fills (`tensor_list` of `all_gather`,
`gather_list` of `gather`) are filled for arrays too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad.backend import device_of, xp_of
from funcgrad.distributed._group import (
    DistError,
    ProcessGroup,
    ReduceOp,
    Work,
    check_agree,
    empty_for,
    on_device_of,
    resolve,
)
from funcgrad.tensors import Tensor, no_grad
from funcgrad.tensors.base import _new_like
from funcgrad.transforms.pytree import tree_flatten, tree_unflatten

_CODES = {
    "all_reduce": 1,
    "broadcast": 2,
    "all_gather": 3,
    "reduce_scatter": 4,
    "gather": 5,
    "scatter": 6,
    "reduce": 7,
}
_OPS = list(ReduceOp)


def _code(what: str, op: ReduceOp | None = None) -> int:
    return _CODES[what] * 16 + (0 if op is None else _OPS.index(op))


def _op(op: Any, what: str) -> ReduceOp:
    try:
        return ReduceOp(op.value if isinstance(op, ReduceOp) else str(op).lower())
    except ValueError:
        raise ValueError(
            f"funcgrad.distributed.{what}: op must be a ReduceOp (SUM, AVG, MAX, MIN, PRODUCT), "
            f"got {op!r}"
        ) from None


def _array(x: Any) -> Any:
    """The array of a leaf: a Tensor's value, an array, or a number as a 0-d array."""
    if isinstance(x, Tensor):
        return x._value
    if isinstance(x, np.ndarray) or device_of(x) != "cpu" or hasattr(x, "__array_namespace__"):
        return x  # NOTE: a CuPy array (NCCL) may lack __array_namespace__; np.asarray refuses it
    return np.asarray(x)


def _write(t: Tensor, value: Any) -> None:
    with no_grad():
        t.copy_(_new_like(Tensor, value, None))


def _check_avg(op: ReduceOp, dtype: Any, what: str) -> None:
    if op is ReduceOp.AVG and np.dtype(dtype).kind not in "fc":
        raise ValueError(
            f"funcgrad.distributed.{what}: ReduceOp.AVG needs a float tensor, got {dtype}; "
            f"use SUM and divide"
        )


def _leaves(obj: Any) -> tuple[list[Any], Any]:
    return tree_flatten(obj, is_leaf=lambda x: isinstance(x, Tensor))


def _done(g: ProcessGroup, reqs: list[Any], what: str, finish: Callable[[], Any], async_op: bool):
    work = Work(g, reqs, what, finish)
    return work if async_op else work.wait()


def all_reduce(
    tensor: Any, op: Any = ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False
) -> Any:
    """Combine `tensor` across the ranks of `group` with `op`, so every rank holds the result.

    Args:
        tensor: A `Tensor` (reduced in place), an array or a pytree of them
            (the result is returned).
        op: A `ReduceOp`: SUM (default), AVG, MAX, MIN or PRODUCT.
        group: The process group (default: the world).
        async_op: Return a `Work` handle instead of waiting.

    Returns:
        None for a Tensor (as PyTorch), else the reduced value; a `Work`
        with `async_op=True`.

    Raises:
        CollectiveMismatchError: If the ranks pass different shapes or dtypes.
        DistTimeoutError: If a peer does not take part within the timeout.
    """
    g, op = resolve(group), _op(op, "all_reduce")
    leaves, treedef = _leaves(tensor)
    bufs, reqs = [], []
    for leaf in leaves:
        a = _array(leaf)
        check_agree(g, "all_reduce", _code("all_reduce", op), a.shape, a.dtype)
        _check_avg(op, a.dtype, "all_reduce")
        buf = on_device_of(g, a)
        reqs += g.comm.iallreduce(buf, op)
        bufs.append(buf)

    def finish() -> Any:
        for buf in bufs:
            if op is ReduceOp.AVG:
                buf /= g.size
        if isinstance(tensor, Tensor):
            _write(tensor, bufs[0])
            return None
        return tree_unflatten(treedef, bufs)

    return _done(g, reqs, "all_reduce", finish, async_op)


def broadcast(
    tensor: Any, src: int = 0, group: ProcessGroup | None = None, async_op: bool = False
) -> Any:
    """Give every rank of `group` the value `tensor` has on rank `src`.

    Args:
        tensor: A `Tensor` (overwritten in place on the other ranks), an
            array or a pytree (the result is returned).
        src: The global rank that sends.
        group: The process group (default: the world).
        async_op: Return a `Work` handle instead of waiting.
    """
    g = resolve(group)
    root = g.rank_of(src)
    leaves, treedef = _leaves(tensor)
    bufs, reqs = [], []
    for leaf in leaves:
        a = _array(leaf)
        check_agree(g, "broadcast", _code("broadcast"), a.shape, a.dtype)
        buf = on_device_of(g, a)
        reqs += g.comm.ibcast(buf, root)
        bufs.append(buf)

    def finish() -> Any:
        if isinstance(tensor, Tensor):
            _write(tensor, bufs[0])
            return None
        return tree_unflatten(treedef, bufs)

    return _done(g, reqs, "broadcast", finish, async_op)


def _gathered(g: ProcessGroup, what: str, leaf: Any) -> tuple[Any, list[Any]]:
    a = _array(leaf)
    check_agree(g, what, _code(what), a.shape, a.dtype)
    send = on_device_of(g, a)
    recv = empty_for(g, (g.size, *send.shape), send.dtype, like=a)
    return recv, g.comm.iallgather(send, recv)


def all_gather(
    tensor_list: list[Any] | None,
    tensor: Any,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Any:
    """Collect `tensor` from every rank of `group`, in rank order, on every rank.

    Args:
        tensor_list: A list filled with one value per rank (Tensors in it
            are written in place; an empty list is filled), or None.
        tensor: This rank's Tensor, array or pytree (the same shape on
            every rank).
        group: The process group (default: the world).
        async_op: Return a `Work` handle instead of waiting.

    Returns:
        The list of the ranks' values (None for a list of Tensors, as PyTorch).
    """
    g = resolve(group)
    leaves, treedef = _leaves(tensor)
    outs, reqs = [], []
    for leaf in leaves:
        recv, r = _gathered(g, "all_gather", leaf)
        outs.append(recv)
        reqs += r

    def finish() -> Any:
        values = [tree_unflatten(treedef, [o[k] for o in outs]) for k in range(g.size)]
        return _fill(tensor_list, values, "all_gather")

    return _done(g, reqs, "all_gather", finish, async_op)


def _fill(target: list[Any] | None, values: list[Any], what: str) -> Any:
    if target is None:
        return values
    if target and all(isinstance(t, Tensor) for t in target):
        if len(target) != len(values):
            raise ValueError(
                f"funcgrad.distributed.{what}: the list has {len(target)} tensors for "
                f"{len(values)} ranks"
            )
        for t, v in zip(target, values, strict=True):
            _write(t, v)
        return None
    target[:] = values
    return values


def all_gather_into_tensor(
    output_tensor: Any, input_tensor: Any, group: ProcessGroup | None = None, async_op: bool = False
) -> Any:
    """Concatenate every rank's `input_tensor` along dimension 0 into `output_tensor`.

    `output_tensor` is a Tensor of `world_size` times the input's first
    dimension (written in place) or None (the result is returned).
    """
    g = resolve(group)
    recv, reqs = _gathered(g, "all_gather", input_tensor)

    def finish() -> Any:
        a = _array(input_tensor)
        value = recv.reshape((g.size * a.shape[0], *a.shape[1:])) if a.ndim else recv
        if isinstance(output_tensor, Tensor):
            _write(output_tensor, value.reshape(output_tensor.shape))
            return None
        return value

    return _done(g, reqs, "all_gather_into_tensor", finish, async_op)


def _scattered(g: ProcessGroup, what: str, stacked: Any, op: ReduceOp) -> tuple[Any, list[Any]]:
    a = _array(stacked)
    if a.ndim == 0 or a.shape[0] != g.size:
        raise ValueError(
            f"funcgrad.distributed.{what}: the input needs one slice per rank along its first "
            f"dimension ({g.size}), got shape {tuple(a.shape)}"
        )
    _check_avg(op, a.dtype, what)
    check_agree(g, what, _code("reduce_scatter", op), a.shape, a.dtype)
    send = on_device_of(g, a)
    recv = empty_for(g, a.shape[1:], a.dtype, like=a)
    return recv, g.comm.ireduce_scatter(send, recv, op)


def reduce_scatter(
    output: Any,
    input_list: Any,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Any:
    """Reduce `input_list[k]` across ranks with `op`; rank `k` gets the result `k`.

    Args:
        output: A Tensor (written in place) or None (the result is returned).
        input_list: One tensor or array per rank (the same shapes on every
            rank), or an array stacked along a first dimension of world size.
        op: A `ReduceOp`.
        group: The process group (default: the world).
        async_op: Return a `Work` handle instead of waiting.
    """
    g, op = resolve(group), _op(op, "reduce_scatter")
    if isinstance(input_list, (list, tuple)):
        parts = [_array(x) for x in input_list]
        stacked = xp_of(*parts).stack(parts) if parts else None
        if stacked is None or len(input_list) != g.size:
            raise ValueError(
                f"funcgrad.distributed.reduce_scatter: input_list needs one tensor per rank "
                f"({g.size}), got {len(input_list)}"
            )
    else:
        stacked = _array(input_list)
    recv, reqs = _scattered(g, "reduce_scatter", stacked, op)

    def finish() -> Any:
        if op is ReduceOp.AVG:
            recv[...] /= g.size  # in place: the closure's array
        if isinstance(output, Tensor):
            _write(output, recv)
            return None
        return recv

    return _done(g, reqs, "reduce_scatter", finish, async_op)


def reduce_scatter_tensor(
    output: Any,
    input: Any,  # noqa: A002  (PyTorch's name)
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Any:
    """`reduce_scatter` of `input` split into `world_size` equal chunks along dimension 0."""
    g = resolve(group)
    a = _array(input)
    if a.ndim == 0 or a.shape[0] % g.size:
        raise ValueError(
            f"funcgrad.distributed.reduce_scatter_tensor: the first dimension of the input "
            f"(shape {tuple(a.shape)}) must divide into {g.size} ranks"
        )
    stacked = a.reshape((g.size, a.shape[0] // g.size, *a.shape[1:]))
    return reduce_scatter(output, stacked, op, group, async_op)


def gather(
    tensor: Any,
    gather_list: list[Any] | None = None,
    dst: int = 0,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Any:
    """Collect every rank's `tensor` on rank `dst`, in rank order.

    On `dst`, `gather_list` is filled (Tensors in place) and the list of
    values is returned; elsewhere the result is None.
    """
    g = resolve(group)
    root = g.rank_of(dst)
    a = _array(tensor)
    check_agree(g, "gather", _code("gather"), a.shape, a.dtype)
    send = on_device_of(g, a)
    recv = empty_for(g, (g.size, *a.shape), a.dtype, like=a) if g.rank == root else None
    reqs = g.comm.igather(send, recv, root)

    def finish() -> Any:
        if recv is None:  # not the root
            return None
        return _fill(gather_list, list(recv), "gather")

    return _done(g, reqs, "gather", finish, async_op)


def scatter(
    tensor: Any,
    scatter_list: list[Any] | None = None,
    src: int = 0,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Any:
    """Send `scatter_list[k]` from rank `src` to rank `k`.

    Args:
        tensor: The output: a Tensor (written in place) or an array giving
            the shape and dtype (the result is returned).
        scatter_list: On `src`, one value per rank; ignored elsewhere.
        src: The global rank that sends.
    """
    g = resolve(group)
    root = g.rank_of(src)
    out = _array(tensor)
    check_agree(g, "scatter", _code("scatter"), out.shape, out.dtype)
    send = None
    if g.rank == root:
        if scatter_list is None or len(scatter_list) != g.size:
            raise ValueError(
                f"funcgrad.distributed.scatter: rank {src} needs a scatter_list of {g.size} "
                f"tensors, got {None if scatter_list is None else len(scatter_list)}"
            )
        parts = [_array(x) for x in scatter_list]
        bad = [tuple(p.shape) for p in parts if p.shape != out.shape]
        if bad:
            raise ValueError(
                f"funcgrad.distributed.scatter: every tensor of scatter_list must be shaped like "
                f"the output {tuple(out.shape)}, got {bad}"
            )
        send = on_device_of(g, xp_of(*parts).stack(parts).astype(out.dtype, copy=False))
    recv = empty_for(g, out.shape, out.dtype, like=out)
    reqs = g.comm.iscatter(send, recv, root)

    def finish() -> Any:
        if isinstance(tensor, Tensor):
            _write(tensor, recv)
            return None
        return recv

    return _done(g, reqs, "scatter", finish, async_op)


# a point-to-point message of tag t: its shapes with MPI tag 2t + 1, its data with tag 2t
_MAX_DIMS = 16


def isend(tensor: Any, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    """Start sending `tensor` (a Tensor, an array or a pytree) to rank `dst`; returns a `Work`.

    Each leaf goes with its shape and dtype, which the receiver checks.
    """
    g = resolve(group)
    peer = g.rank_of(dst)
    leaves, _ = _leaves(tensor)
    metas, datas = [], []
    for leaf in leaves:
        a = on_device_of(g, _array(leaf))
        meta = np.full(_MAX_DIMS + 2, -1, dtype=np.int64)
        meta[: a.ndim + 2] = [a.ndim, *a.shape, np.dtype(a.dtype).num]
        metas.append(meta)
        datas.append(a)
    meta_reqs = [r for m in metas for r in g._meta.isend(m, peer, 2 * tag + 1)]
    data_reqs = [r for a in datas for r in g.comm.isend(a, peer, 2 * tag)]
    work = Work(g, meta_reqs, "send", comm=g._meta, then=lambda: [(g.comm, data_reqs)])
    work._buffers = (metas, datas)  # type: ignore[attr-defined]  # alive until sent
    return work


def send(tensor: Any, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    """Send `tensor` to rank `dst` (blocking until it is out, within the timeout)."""
    isend(tensor, dst, group, tag).wait()


def irecv(tensor: Any, src: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    """Start receiving from rank `src` into `tensor`; `wait()` returns what `recv` returns.

    Nothing blocks here: the shapes arrive first, then the data is received
    (so `irecv` before `isend` on both sides of a pair is fine, as in MPI).
    """
    g = resolve(group)
    peer = g.rank_of(src)
    leaves, treedef = _leaves(tensor)
    wanted = [_array(leaf) for leaf in leaves]
    metas = [np.empty(_MAX_DIMS + 2, dtype=np.int64) for _ in wanted]
    meta_reqs = [r for m in metas for r in g._meta.irecv(m, peer, 2 * tag + 1)]
    bufs: list[Any] = []

    def receive_data() -> list[tuple[Any, list[Any]]]:
        reqs = []
        for a, meta in zip(wanted, metas, strict=True):
            shape, num = tuple(int(s) for s in meta[1 : 1 + meta[0]]), int(meta[1 + meta[0]])
            if shape != tuple(a.shape) or num != np.dtype(a.dtype).num:
                raise DistError(
                    f"funcgrad.distributed.recv: rank {src} sent {_dtype_name(num)} {shape}, but "
                    f"rank {g.rank} receives into {a.dtype} {tuple(a.shape)}"
                )
            buf = empty_for(g, shape, a.dtype, like=a)
            reqs += g.comm.irecv(buf, peer, 2 * tag)
            bufs.append(buf)
        return [(g.comm, reqs)]

    def finish() -> Any:
        if isinstance(tensor, Tensor):
            _write(tensor, bufs[0])
            return src
        return tree_unflatten(treedef, bufs)

    return Work(g, meta_reqs, "recv", finish, comm=g._meta, then=receive_data)


def _dtype_name(num: int) -> str:
    return next((str(np.dtype(c)) for c in np.typecodes["All"] if np.dtype(c).num == num), "?")


def recv(tensor: Any, src: int, group: ProcessGroup | None = None, tag: int = 0) -> Any:
    """Receive from rank `src`: into a Tensor (returns `src`, as PyTorch), or like an array/pytree.

    Raises:
        DistError: If the sender's shape or dtype differs from `tensor`'s.
    """
    return irecv(tensor, src, group, tag).wait()
