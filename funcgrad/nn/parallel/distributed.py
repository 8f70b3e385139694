"""`DistributedDataParallel`: one model replica per process, gradients averaged in buckets.

How the overlap works. funcgrad's backward walks the graph in reverse
creation order, so a node is reached right after the last operation that
used it. Before each submodule's forward, a pre-hook swaps the submodule's
parameters for fresh "taps" (`identity(p)`, recorded there and then), and a
hook on each tap sees the parameter's complete gradient as soon as the walk
is past that submodule: the gradient goes into its bucket, and a bucket
whose gradients are all in starts its non-blocking all-reduce while the
walk goes on with the layers below (PyTorch's reducer does the same from
its AccumulateGrad hooks). When the walk is over, the first
post-accumulate hook waits for the buckets and writes the averages into
the parameters' `.grad`. A model whose gradients fit one bucket (the
first is at most 1 MiB, as PyTorch's) has nothing to overlap: it gets no
taps, and the first post-accumulate hook fills the bucket from `.grad`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.distributed import _api
from funcgrad.distributed._group import ProcessGroup, ReduceOp, Work, check_agree, resolve
from funcgrad.nn.modules.module import Module
from funcgrad.ops import identity
from funcgrad.tensors import is_grad_enabled
from funcgrad.tensors.base import _new_like


class _Bucket:
    """Gradients of some parameters in one flat buffer, all-reduced together.

    The buffer and each parameter's view of it (in the parameter's shape)
    are made once, at construction: a step copies each gradient into its
    view, all-reduces the buffer in place and copies the views out, scaled,
    without allocating.
    """

    def __init__(self, indices: list[int], params: list[Any]):
        self.indices = indices
        n = sum(params[i]._value.size for i in indices)
        self.dtype = params[indices[0]]._value.dtype
        self.buf = xp_of(params[indices[0]]._value).zeros(n, dtype=self.dtype)
        self.views = []
        start = 0
        for i in indices:
            v = params[i]._value
            self.views.append(self.buf[start : start + v.size].reshape(v.shape))
            start += v.size
        self.pending = len(indices)
        self.work: Work | None = None
        self.started = 0.0


class DistributedDataParallel(Module):
    """Data parallelism across processes (PyTorch's `torch.nn.parallel.DistributedDataParallel`).

    Each process holds a replica of `module` and feeds it its own shard of
    the data; after `loss.backward()` every replica's `.grad` holds the
    gradients averaged over all ranks, so identical optimizer steps keep
    the replicas identical.

    Args:
        module: The model to replicate.
        device_ids: Accepted for PyTorch compatibility (one device per
            process: the module's).
        output_device: Accepted for PyTorch compatibility.
        dim: Accepted for PyTorch compatibility (batches split on dim 0).
        broadcast_buffers: Broadcast rank 0's buffers (BatchNorm statistics)
            at each forward.
        process_group: The group to average over (default: the world).
        bucket_cap_mb: Size of a gradient bucket in MiB (PyTorch's 25).
        find_unused_parameters: Allow parameters that get no gradient in a
            step (their bucket slot counts as zero); without it such a
            parameter raises a `RuntimeError` naming it.
        init_sync: Broadcast rank 0's parameters and buffers at construction.

    A parameter used outside the wrapped module's forward too (a penalty
    on a weight added to the loss) gets its whole gradient averaged after
    the backward pass, in one more all-reduce, instead of in its bucket.

    Examples:
        >>> import funcgrad as fg
        >>> import funcgrad.distributed as dist
        >>> dist.init_process_group("mpi")                         # doctest: +SKIP
        >>> model = fg.nn.parallel.DistributedDataParallel(fg.nn.Linear(3, 1))  # doctest: +SKIP
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        process_group: ProcessGroup | None = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        init_sync: bool = True,
        **unused: Any,
    ):
        super().__init__()
        self.module = module
        g = resolve(process_group)
        object.__setattr__(self, "process_group", g)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.bucket_cap_mb = 25.0 if bucket_cap_mb is None else float(bucket_cap_mb)
        self.require_backward_grad_sync = True
        params: list[Any] = []
        seen: set[int] = set()
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        names = {id(p): n for n, p in module.named_parameters()}
        object.__setattr__(self, "_params", params)
        object.__setattr__(self, "_names", [names.get(id(p), "?") for p in params])
        object.__setattr__(self, "_index", {id(p): i for i, p in enumerate(params)})
        for i, p in enumerate(params):  # the same model on every rank, or say where not
            check_agree(
                g, f"DistributedDataParallel (parameter {self._names[i]})", 99, p.shape, p.dtype
            )
        if init_sync:
            self._sync_from_rank0(params)
            self._sync_from_rank0([b for b in module.buffers() if b is not None])
        object.__setattr__(self, "_buckets", self._make_buckets(params))
        object.__setattr__(self, "_bucket_of", {})
        for b, bucket in enumerate(self._buckets):
            for k, i in enumerate(bucket.indices):
                self._bucket_of[i] = (b, k)
        object.__setattr__(self, "_armed", False)
        object.__setattr__(self, "_ready", [False] * len(params))
        object.__setattr__(self, "_swapped", [])
        object.__setattr__(self, "_taps", {})
        # per parameter: the id of the gradient array its tap saw (not the array: holding it
        # would make the engine copy it for .grad), and whether the leaf's whole gradient was it
        object.__setattr__(self, "_tap_grads", [0] * len(params))
        object.__setattr__(self, "_whole", [True] * len(params))
        #: Timings of the last synchronized backward (seconds): `wait` blocked after the walk,
        #: `overlap` between the first bucket's start and the end of the walk.
        object.__setattr__(self, "comm_stats", {"wait": 0.0, "overlap": 0.0, "buckets": 0})
        # NOTE: with one bucket nothing can start before the walk is over, so there are no
        # taps: the bucket is filled from the finished `.grad`s by the first post-accumulate
        # hook (no identity per parameter and step, no hooks on the leaves, whose gradients
        # the engine must then copy; `.grad` is the whole gradient, outside uses included).
        tapping = g.size > 1 and len(self._buckets) > 1
        object.__setattr__(self, "_tapping", tapping)
        for sub in module.modules() if tapping else ():
            if any(id(p) in self._index for p in sub._parameters.values() if p is not None):
                sub.register_forward_pre_hook(self._tap_parameters)
                sub.register_forward_hook(self._untap_parameters, always_call=True)
        for i, p in enumerate(params):
            if tapping:
                p.register_hook(self._leaf_hook_for(i))
            if g.size > 1:  # a world of one has nothing to average: the bare module's speed
                p.register_post_accumulate_grad_hook(self._finalize)

    # --- construction ------------------------------------------------------------------------

    def _sync_from_rank0(self, tensors: list[Any]) -> None:
        works = [
            _api.broadcast(
                t, src=self.process_group.ranks[0], group=self.process_group, async_op=True
            )
            for t in tensors
        ]
        for w in works:
            w.wait()

    def _make_buckets(self, params: list[Any]) -> list[_Bucket]:
        # NOTE: in reverse order of registration, which approximates the order in which
        # the backward pass finishes the gradients (PyTorch's first guess too).
        cap = self.bucket_cap_mb * 2**20
        buckets: list[_Bucket] = []
        current: list[int] = []
        size, dtype = 0, None
        for i in reversed(range(len(params))):
            v = params[i]._value
            # the first bucket (the last layers) at most 1 MiB, PyTorch's first_bucket_cap,
            # so that its all-reduce starts early in the walk
            limit = min(cap, 2**20) if not buckets else cap
            if current and (size + v.nbytes > limit or v.dtype != dtype):
                buckets.append(_Bucket(current, params))
                current, size = [], 0
            current.append(i)
            size += v.nbytes
            dtype = v.dtype
        if current:
            buckets.append(_Bucket(current, params))
        return buckets

    # --- forward: taps -----------------------------------------------------------------------

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Run the wrapped module; prepare the gradient averaging of the next backward."""
        if self.broadcast_buffers and self.process_group.size > 1:
            buffers = [b for b in self.module.buffers() if b is not None]
            if buffers:
                self._sync_from_rank0(buffers)
        arm = is_grad_enabled() and self.require_backward_grad_sync and self.process_group.size > 1
        object.__setattr__(self, "_armed", arm)
        self._taps.clear()
        if arm:
            self._ready[:] = [False] * len(self._params)
            self._tap_grads[:] = [0] * len(self._params)
            self._whole[:] = [True] * len(self._params)
            for bucket in self._buckets:
                bucket.pending, bucket.work = len(bucket.indices), None
        return self.module(*inputs, **kwargs)

    def _tap_parameters(self, sub: Module, args: Any) -> None:
        if not self._armed:
            return
        table = sub._parameters
        for name, p in table.items():
            i = self._index.get(id(p)) if p is not None else None
            if i is None:
                continue
            tap = self._taps.get(i)
            if tap is None:
                tap = identity(p)
                tap.register_hook(self._hook_for(i))
                self._taps[i] = tap
            table[name] = tap
            self._swapped.append((table, name, p))

    def _untap_parameters(self, sub: Module, args: Any, output: Any) -> None:
        swapped = self._swapped
        while swapped and swapped[-1][0] is sub._parameters:
            table, name, p = swapped.pop()
            table[name] = p

    # --- backward: buckets -------------------------------------------------------------------

    def _hook_for(self, i: int) -> Any:
        # NOTE: a weight's gradient often comes transposed (a view of `x.T @ g`), which
        # the engine copies into C order for `.grad` after the walk. Made C-ordered here
        # and handed on (the hook's result replaces the gradient), the one transposing
        # copy serves both the bucket (then a plain copy) and `.grad`.
        def hook(grad: Any) -> Any:
            value = grad._value
            fresh = (
                grad._node is None and type(value) is np.ndarray and not value.flags.c_contiguous
            )
            if fresh:
                value = np.ascontiguousarray(value)
            self._gradient_ready(i, value)
            return value if fresh else None

        return hook

    def _leaf_hook_for(self, i: int) -> Any:
        # NOTE: the walk hands a leaf whose only consumer is its tap the tap's own
        # cotangent array (identity's rule passes it through); any other use of the
        # parameter makes the leaf's gradient a new sum, made while the tap's array was
        # alive, so its id differs (the id is kept, not the array). The test is structural,
        # so every rank (running the same program) decides alike, and the collectives stay
        # matched.
        def hook(grad: Any) -> None:
            if self._armed:
                self._whole[i] = id(grad._value) == self._tap_grads[i]

        return hook

    def _gradient_ready(self, i: int, value: Any, add_grad: bool = True) -> None:
        if not self._armed or self._ready[i]:
            return
        self._ready[i] = True
        self._tap_grads[i] = id(value)
        b, k = self._bucket_of[i]
        bucket = self._buckets[b]
        grad = self._params[i].grad if add_grad else None
        # the accumulated gradient (from no_sync steps) is averaged too, as PyTorch's
        if grad is not None:
            np.add(grad._value, value, out=bucket.views[k])
        else:
            bucket.views[k][...] = value
        bucket.pending -= 1
        if bucket.pending == 0:
            self._start(bucket)
        for other in self._buckets:  # let MPI progress the buckets already out
            if other.work is not None:
                other.work.is_completed()

    def _start(self, bucket: _Bucket) -> None:
        g = self.process_group
        bucket.started = time.perf_counter()
        bucket.work = Work(g, g.comm.iallreduce(bucket.buf, ReduceOp.SUM), "all_reduce (DDP)")

    def _finalize(self, _param: Any) -> None:
        """After the walk (the first post-accumulate hook): finish every bucket, write `.grad`."""
        if not self._armed:
            return
        end_of_walk = time.perf_counter()
        if not self._tapping:  # `.grad` is complete now: the one bucket starts
            for i, p in enumerate(self._params):
                if p.grad is not None:
                    self._gradient_ready(i, p.grad._value, add_grad=False)
        object.__setattr__(self, "_armed", False)
        missing = [i for i, r in enumerate(self._ready) if not r]
        used = None
        if missing and not self.find_unused_parameters:
            names = ", ".join(self._names[i] for i in missing)
            raise RuntimeError(
                f"funcgrad.nn.parallel.DistributedDataParallel: parameters got no gradient "
                f"in this backward pass: {names}. Pass find_unused_parameters=True if some "
                f"parameters are not used in every forward, or make the loss depend on them"
            )
        for i in missing:  # unused here: their slot counts as this rank's .grad (or zero)
            b, k = self._bucket_of[i]
            bucket, grad = self._buckets[b], self._params[i].grad
            bucket.views[k][...] = 0 if grad is None else grad._value
            bucket.pending -= 1
            if bucket.pending == 0:
                self._start(bucket)
        if self.find_unused_parameters:  # which parameters some rank used (every step, as PyTorch)
            flags = np.array([0 if r else 1 for r in self._ready], dtype=np.int32)
            used = _api.all_reduce(flags, ReduceOp.MIN, self.process_group) == 0
        first = min(b.started for b in self._buckets)
        for bucket in self._buckets:
            assert bucket.work is not None
            bucket.work.wait()
        done = time.perf_counter()
        self.comm_stats.update(
            wait=done - end_of_walk,
            overlap=max(end_of_walk - first, 0.0),
            buckets=len(self._buckets),
        )
        size = self.process_group.size
        for bucket in self._buckets:
            # the average, folded into the copy-out: a division (as PyTorch), so bit-equal to
            # the sum / size (a product by 1 / size differs by an ulp for size 3)
            divisor = bucket.dtype.type(size)
            for k, i in enumerate(bucket.indices):
                if used is not None and not used[i] and not self._ready[i]:
                    continue  # unused on every rank: .grad stays as it was
                p = self._params[i]
                g = p.grad
                value, by = bucket.views[k], divisor
                if not self._whole[i]:  # used outside the forward too: average all of .grad
                    value = _api.all_reduce(g._value, ReduceOp.AVG, self.process_group)
                    by = value.dtype.type(1)
                if g is not None and type(g._value) is np.ndarray and g._value.flags.writeable:
                    np.divide(value, by, out=g._value)
                else:
                    p.grad = _new_like(type(p.data), value / by, None)

    # --- gradient accumulation -----------------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Context manager: backward passes inside accumulate local gradients, unaveraged.

        The first synchronized backward after it averages the accumulated
        gradients (PyTorch's gradient accumulation).
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
