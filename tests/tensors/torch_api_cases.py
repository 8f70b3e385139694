"""The cases of the tensor-API differential test: every name of issue #14's list against PyTorch.

Built on the Tensor-layer fuzzer's machinery (`tests/differential/torch_cases.py`:
`Builder` draws shapes, values with ties and dims in the forms users pass
them; `torch_compare.check` runs a call on both libraries and compares
values, dtypes, errors and first- and second-order gradients). The cases
live in their own table, `API_CASES`, run by `test_torch_api.py`; the
fuzzer's coverage test (`test_every_public_name_has_a_case`) counts them.

For an operation `op`: `torch.op`, `Tensor.op` and `Tensor.op_` (in-place,
in the fuzzer's three modes) are separate cases, added by `op(...)` for
whichever of them funcgrad has. Index arguments are integer tensors drawn
in range (and now and then out of it: both must refuse).

Ties: where PyTorch's choice among tied entries is deterministic (sort,
max(dim), median(dim), mode, cummax, cummin) it is compared exactly; where
it is not (topk, kthvalue), the case draws distinct values, and a
`[ties]` case checks that funcgrad's answer is valid (`valid_selection`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tests.differential.torch_cases import (
    REAL,
    Builder,
    Case,
    Dim,
    T,
    resolve,
    values,
)
from tests.differential.torch_differences import Difference

API_CASES: dict[str, Case] = {}

# Deliberate differences of these cases (see tests/differential/torch_differences.py).
API_DIFFERENCES: dict[str, Difference | tuple[Difference, ...]] = {
    **{
        name: Difference(
            "raises",
            "cummax/cummin of an empty tensor with a dim out of range: PyTorch 2.13 skips its dim "
            "check for an empty tensor and returns it; funcgrad checks the dim first",
            match=r"AxisError: funcgrad.cumm(ax|in): axis",
            call=r"\[0\]",
        )
        for name in ("torch.cummax", "Tensor.cummax", "torch.cummin", "Tensor.cummin")
    },
    "Tensor.masked_fill_": Difference(
        "values",
        "an integer tensor filled in place with a value that requires grad: PyTorch 2.13 marks "
        "the integer result as requiring grad (its out-of-place masked_fill refuses the call); "
        "funcgrad takes the value as a constant, and integer tensors never require grad",
        match=r"requires_grad False, torch True",
        call=r"Tensor.masked_fill_\(t0:int64",
    ),
}


def _add(case: Case) -> None:
    assert case.name not in API_CASES, case.name
    API_CASES[case.name] = case


def function(name: str, spec, *, case_name: str | None = None, **opts) -> None:
    """Add the case `torch.<name>(*args, **kwargs)`."""

    def draw(g):
        b = Builder(g, "function")
        args, kwargs = spec(b)

        def fn(lib, ts):
            return getattr(lib, name)(*resolve(args, lib, ts), **resolve(kwargs, lib, ts))

        return b.call(fn, f"torch.{name}" + b.describe(args, kwargs))

    _add(Case(case_name or f"torch.{name}", draw, **opts))


def method(name: str, spec, *, case_name: str | None = None, **opts) -> None:
    """Add the case `args[0].<name>(*args[1:], **kwargs)`."""

    def draw(g):
        b = Builder(g, "method")
        args, kwargs = spec(b)

        def fn(lib, ts):
            self, *rest = resolve(args, lib, ts)
            return getattr(self, name)(*rest, **resolve(kwargs, lib, ts))

        return b.call(fn, f"Tensor.{name}" + b.describe(args, kwargs))

    _add(Case(case_name or f"Tensor.{name}", draw, **opts))


def inplace(name: str, spec, **opts) -> None:
    """Add the case `Tensor.<name>` (in place) on a non-leaf, a leaf under no_grad, a leaf that requires grad."""

    def draw(g):
        b = Builder(g, "inplace")
        args, kwargs = spec(b)
        x = args[0]
        mode = g.choice(("nonleaf", "nonleaf", "leaf_no_grad", "leaf_grad"))
        if mode == "leaf_grad" and not b.grads[x.i]:
            mode = "nonleaf"

        def fn(lib, ts):
            rest = resolve(args[1:], lib, ts)
            kw = resolve(kwargs, lib, ts)
            t = ts[x.i]
            if mode == "nonleaf":
                y = t * 1
                r = getattr(y, name)(*rest, **kw)
                return y, r is y, y.is_leaf
            if mode == "leaf_no_grad":
                with lib.no_grad():
                    r = getattr(t, name)(*rest, **kw)
                return t * 1, r is t, t.is_leaf, t.requires_grad
            r = getattr(t, name)(*rest, **kw)  # PyTorch: "a leaf Variable that requires grad"
            return t * 1, r is t

        return b.call(fn, f"[{mode}] Tensor.{name}" + b.describe(args, kwargs))

    _add(Case(f"Tensor.{name}", draw, **opts))


def op(name: str, spec, *, inplace_name: str | None = None, function_=True, method_=True, **opts):
    """Add `torch.<name>`, `Tensor.<name>` and the in-place method (each that PyTorch has)."""
    import torch

    if function_ and hasattr(torch, name):
        function(name, spec, **opts)
    if method_ and hasattr(torch.Tensor, name):
        method(name, spec, **opts)
    if inplace_name:
        inplace(inplace_name, spec, **opts)


def custom(name: str, draw_fn: Callable[[Builder], tuple], **opts) -> None:
    """Add a case whose call is written out: `draw_fn(b) -> (fn(lib, ts), text)`."""

    def draw(g):
        b = Builder(g)
        fn, text = draw_fn(b)
        return b.call(fn, f"{name}: {text}  " + b.describe((), {}))

    _add(Case(name, draw, **opts))


# --- drawing helpers ------------------------------------------------------------------------


def _distinct(b: Builder, shape, dtype=None, low=-3.0, high=3.0) -> T:
    """An input tensor of distinct values (no ties: the choice among them is then unique)."""
    dtype = dtype or b.dtype
    size = int(np.prod(shape, dtype=np.int64))
    rng = b.g.rng()
    v = (rng.permutation(size) + rng.uniform(0.1, 0.9, size)) * ((high - low) / max(size, 1)) + low
    return b.tensor(shape, dtype, array=v.reshape(shape).astype(dtype))


def _index(b: Builder, shape, n: int, bad=True, dtype="int64", negative=False) -> T:
    """An integer index tensor of `shape` with entries in `0..n-1` (out of range 1 time in 12)."""
    rng = b.g.rng()
    low = -n if negative else 0
    a = rng.integers(low, max(n, 1), size=shape) if n else np.zeros(shape, np.int64)
    if bad and a.size and b.g.integers(0, 11) == 0:
        a.flat[0] = b.g.choice((n, -n - 1 if negative else -1, n + 3))
    return b.tensor(shape, dtype, array=a.astype(dtype), grad=False)


def _one(b: Builder, ndim: int, forms=("int", "neg")) -> Dim:
    return b.dim(ndim, forms=forms)


def _keepdim(b, args, kwargs):
    if b.g.boolean():
        if b.g.boolean():
            kwargs["keepdim"] = b.g.boolean()
        else:
            args = (*args, b.g.boolean())
    return args, kwargs


def _ties_case(name, spec, keepdim_out=False):
    """A case of topk/kthvalue with ties: the values, and the input read at the indices returned.

    PyTorch's choice among tied entries is its algorithm's, so the indices
    may differ; what they pick from the input must be the values.
    """

    def draw_fn(b):
        args, kwargs = spec(b)

        def fn(lib, ts):
            x, *rest = resolve(args, lib, ts)
            kw = resolve(kwargs, lib, ts)
            r = getattr(lib, name)(x, *rest, **kw)
            dim = kw.get("dim", rest[1] if len(rest) > 1 else -1)
            idx = r.indices
            if x.dim() == 0:
                return r.values, x * 1
            if name == "kthvalue" and not kw.get("keepdim", rest[2] if len(rest) > 2 else False):
                idx = idx.unsqueeze(dim)
            return r.values, lib.take_along_dim(x, idx, dim)

        return fn, b.describe(args, kwargs)

    custom(f"torch.{name}[ties]", draw_fn, grads=False)


# === priority 1: extrema, sorting, order statistics =============================================


def _amax(b):
    x = b.tensor(b.shape(), "int64" if b.g.integers(0, 7) == 0 else None)
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    which = b.g.choice(("none", "one", "tuple"))
    if which == "one":
        args = (x, b.dim(nd))
    elif which == "tuple":
        args = (x, b.dims(nd))
    if which != "none" and b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return args, kwargs


op("amax", _amax)
op("amin", _amax)


def _aminmax(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    kwargs = {}
    if b.g.boolean():
        kwargs["dim"] = b.dim(nd, forms=("int", "neg"))
    if b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return (x,), kwargs


def _aminmax_fields(b):
    args, kwargs = _aminmax(b)

    def fn(lib, ts):
        r = lib.aminmax(*resolve(args, lib, ts), **resolve(kwargs, lib, ts))
        return r.min, r.max, r[0] is r.min

    return fn, b.describe(args, kwargs)


custom("torch.aminmax", _aminmax_fields)
custom(
    "Tensor.aminmax",
    lambda b: (
        lambda args_kwargs: (
            lambda lib, ts: (lambda r: (r.min, r.max))(
                resolve(args_kwargs[0], lib, ts)[0].aminmax(**resolve(args_kwargs[1], lib, ts))
            ),
            b.describe(*args_kwargs),
        )
    )(_aminmax(b)),
)


def _sort(b):
    dtype = b.g.choice((None, None, None, "int64"))
    x = b.tensor(b.shape(), dtype)
    if b.g.integers(0, 5) == 0 and b.arrays[x.i].size:  # NaN: the largest value
        b.arrays[x.i] = b.arrays[x.i].astype(b.dtype)
        b.arrays[x.i].flat[0] = np.nan
        b.grads[x.i] = True
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        args = (x, b.dim(nd))
    if b.g.boolean():
        kwargs["descending"] = b.g.boolean()
    if b.g.integers(0, 3) == 0 and b.kind == "function":
        kwargs["stable"] = b.g.boolean()
        if len(args) > 1:  # torch.argsort takes dim by keyword with `stable`
            args, kwargs = (x,), {**kwargs, "dim": args[1]}
    return args, kwargs


op("sort", _sort)
op("argsort", _sort, grads=False)
op("msort", lambda b: ((b.tensor(b.shape()),), {}))


def _topk(distinct: bool):
    def spec(b):
        shape = b.shape(min_dims=0)
        x = _distinct(b, shape) if distinct else b.tensor(shape)
        nd = len(shape)
        d = b.dim(nd, forms=("int", "neg"))
        n = shape[d.value % nd] if nd and -nd <= d.value < nd else 1
        k = b.g.integers(0, n + (b.g.integers(0, 7) == 0))
        args, kwargs = (x, k), {}
        if b.g.boolean():
            kwargs["dim"] = d
        if b.g.boolean():
            kwargs["largest"] = b.g.boolean()
        if b.g.boolean():
            kwargs["sorted"] = True
        return args, kwargs

    return spec


op("topk", _topk(True))
_ties_case("topk", _topk(False))


def _kthvalue(distinct: bool):
    def spec(b):
        shape = b.shape(min_dims=0)
        x = _distinct(b, shape) if distinct else b.tensor(shape)
        nd = len(shape)
        d = b.dim(nd, forms=("int", "neg"))
        n = shape[d.value % nd] if nd and -nd <= d.value < nd else 1
        k = b.g.integers(1 - (b.g.integers(0, 9) == 0), max(n, 1))
        args, kwargs = (x, k), {}
        if b.g.boolean():
            args = (x, k, d)
            args, kwargs = _keepdim(b, args, kwargs)
        return args, kwargs

    return spec


op("kthvalue", _kthvalue(True))
_ties_case("kthvalue", _kthvalue(False))


def _median(b):
    x = b.tensor(b.shape())
    if b.g.integers(0, 4) == 0 and b.arrays[x.i].size:
        b.arrays[x.i].flat[b.g.integers(0, b.arrays[x.i].size - 1)] = np.nan
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        args = (x, b.dim(nd))
        args, kwargs = _keepdim(b, args, kwargs)
    return args, kwargs


op("median", _median)
op("nanmedian", _median)


def _mode(b):
    x = b.tensor(b.shape(), b.g.choice((None, "int64")))
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        args = (x, b.dim(nd))
        args, kwargs = _keepdim(b, args, kwargs)
    return args, kwargs


op("mode", _mode)


def _cumext(b):
    x = b.tensor(b.shape())
    if b.g.integers(0, 5) == 0 and b.arrays[x.i].size:
        b.arrays[x.i].flat[b.g.integers(0, b.arrays[x.i].size - 1)] = np.nan
    nd = b.arrays[x.i].ndim
    if b.g.boolean():
        return (x,), {"dim": b.dim(nd)}
    return (x, b.dim(nd)), {}


op("cummax", _cumext)
op("cummin", _cumext)


# === priority 1: gathering, scattering, masking =================================================


def _gather(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    nd = len(shape)
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    axis = d.value % nd
    ishape = [b.g.integers(0 if s == 0 else 1, s) for s in shape]
    ishape[axis] = b.g.integers(0, 4)
    idx = _index(b, tuple(ishape), shape[axis])
    return (x, d, idx), {}


op("gather", _gather)


def _take_along_dim_spec(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    nd = len(shape)
    if b.g.integers(0, 3) == 0:
        return (x, _index(b, (b.g.integers(0, 4),), int(np.prod(shape)), negative=True)), {}
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    axis = d.value % nd
    ishape = [b.g.choice((1, s)) for s in shape]
    ishape[axis] = b.g.integers(0, 3)
    idx = _index(b, tuple(ishape), shape[axis], negative=True)
    if b.g.boolean():
        return (x, idx, d), {}
    return (x, idx), {"dim": d}


op("take_along_dim", _take_along_dim_spec)


def _scatter_args(b, unique=False, src_kind="tensor", src_larger=True):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape, b.g.choice((None, None, None, "int64")))
    dtype = str(b.arrays[x.i].dtype)
    nd = len(shape)
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    axis = d.value % nd
    ishape = [b.g.integers(0 if s == 0 else 1, s) for s in shape]
    if unique:
        ishape[axis] = b.g.integers(0, shape[axis])
        rng = b.g.rng()
        others = ishape[:axis] + ishape[axis + 1 :]
        cols = [rng.permutation(shape[axis])[: ishape[axis]] for _ in range(int(np.prod(others)))]
        a = np.stack(cols, axis=-1) if cols else np.zeros((ishape[axis], 0), np.int64)
        moved = np.moveaxis(a.reshape(ishape[axis], *others), 0, axis).astype(np.int64)
        idx = b.tensor(tuple(ishape), "int64", array=moved, grad=False)
    else:
        ishape[axis] = b.g.integers(0, 4)
        idx = _index(b, tuple(ishape), shape[axis])
    sshape = [s + b.g.integers(0, 1) if src_larger else s for s in ishape]
    src_dtype = dtype if b.g.integers(0, 11) else ("float64" if dtype != "float64" else "float32")
    if src_kind == "value":
        return x, d, idx, b.g.choice((1.5, -2, 0.0))
    src = b.tensor(tuple(sshape), src_dtype)
    return x, d, idx, src


def _scatter(b):
    kind = b.g.choice(("tensor", "tensor", "value", "reduce"))
    x, d, idx, src = _scatter_args(
        b, unique=True, src_kind="value" if kind == "value" else "tensor"
    )
    if kind == "value" and b.g.boolean():
        return (x, d, idx), {"value": src}
    if kind == "reduce":
        return (x, d, idx, src), {"reduce": b.g.choice(("add", "multiply"))}
    return (x, d, idx, src), {}


op("scatter", _scatter, inplace_name="scatter_")


def _scatter_add(b):
    x, d, idx, src = _scatter_args(b)
    return (x, d, idx, src), {}


op("scatter_add", _scatter_add, inplace_name="scatter_add_")


def _scatter_reduce(b):
    reduce = b.g.choice(("sum", "prod", "mean", "amax", "amin"))
    # NOTE: a src larger than the index only for sum and mean: for prod, amax and amin
    # PyTorch 2.13 broadcasts the gradient of the entries read over the whole src, so the
    # entries left out get gradients too (funcgrad gives them 0: they take no part)
    x, d, idx, src = _scatter_args(b, src_larger=reduce in ("sum", "mean"))
    kwargs = {}
    if b.g.boolean():
        kwargs["include_self"] = b.g.boolean()
    return (x, d, idx, src, reduce), kwargs


op("scatter_reduce", _scatter_reduce, inplace_name="scatter_reduce_")


def _index_select(b):
    shape = b.shape(min_dims=0)
    x = b.tensor(shape)
    nd = len(shape)
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    n = shape[d.value % nd] if nd else 1
    ishape = b.g.choice(((b.g.integers(0, 4),), (b.g.integers(0, 4),), ()))
    idx = _index(b, ishape, n, dtype=b.g.choice(("int64", "int32")))
    return (x, d, idx), {}


op("index_select", _index_select)


def _index_source(b, unique=False, reduce=None):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape, b.g.choice((None, None, None, "int64")))
    dtype = str(b.arrays[x.i].dtype)
    nd = len(shape)
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    axis = d.value % nd
    n = shape[axis]
    if unique:
        k = b.g.integers(0, n)
        perm = b.g.rng().permutation(n)[:k].astype(np.int64)
        idx = b.tensor((k,), "int64", array=perm, grad=False)
    else:
        k = b.g.integers(0, 4)
        idx = _index(b, (k,), n)
    sshape = list(shape)
    sshape[axis] = k
    src_dtype = dtype if b.g.integers(0, 11) else ("float64" if dtype != "float64" else "float32")
    src = b.tensor(tuple(sshape), src_dtype)
    return x, d, idx, src


def _index_add(b):
    x, d, idx, src = _index_source(b)
    kwargs = {"alpha": b.g.choice((2, -1))} if b.g.integers(0, 3) == 0 else {}
    return (x, d, idx, src), kwargs


op("index_add", _index_add, inplace_name="index_add_")
op(
    "index_copy",
    lambda b: (_index_source(b, unique=True), {}),
    inplace_name="index_copy_",
)


def _index_reduce(b):
    x, d, idx, src = _index_source(b)
    kwargs = {"include_self": b.g.boolean()} if b.g.boolean() else {}
    return (x, d, idx, src, b.g.choice(("prod", "mean", "amax", "amin"))), kwargs


op("index_reduce", _index_reduce, inplace_name="index_reduce_")


def _index_fill(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    nd = len(shape)
    d = b.dim(nd, forms=("int", "neg"), bad=False)
    idx = _index(b, (b.g.integers(0, 4),), shape[d.value % nd])
    value = b.g.choice((1.5, -2, "zd"))
    if value == "zd":
        value = b.tensor((), b.g.choice((b.dtype, b.dtype, "float64")))
    return (x, d, idx, value), {}


op("index_fill", _index_fill, inplace_name="index_fill_")


def _mask(b, shape, grow=False):
    mshape = list(shape)
    for i in range(len(mshape)):
        if b.g.integers(0, 3) == 0:
            mshape[i] = 1
    if mshape and b.g.boolean():
        mshape = mshape[b.g.integers(0, len(mshape)) :]
    if grow and b.g.integers(0, 5) == 0:
        mshape = [2, *mshape] if len(mshape) == len(shape) else mshape
    m = values(b.g, mshape, "float64", REAL, b.ties) > 0
    if b.g.integers(0, 13) == 0:
        return b.tensor(tuple(mshape), "int64", array=m.astype(np.int64), grad=False)
    return b.tensor(tuple(mshape), "bool", array=m, grad=False)


def _masked_fill(b):
    shape = b.shape()
    x = b.tensor(shape, b.g.choice((None, None, None, "int64")))
    m = _mask(b, shape, grow=b.kind != "inplace")
    value = b.g.choice((0.0, -1.5, 2, "zd"))
    if value == "zd":
        value = b.tensor((), b.g.choice((b.dtype, b.dtype, "float64")))
    return (x, m, value), {}


op("masked_fill", _masked_fill, inplace_name="masked_fill_")


def _masked_select(b):
    shape = b.shape()
    x = b.tensor(shape)
    return (x, _mask(b, shape, grow=True)), {}


op("masked_select", _masked_select)


def _masked_scatter(b):
    shape = b.shape()
    x = b.tensor(shape)
    m = _mask(b, shape, grow=b.kind != "inplace")
    n = int(np.prod(shape, dtype=np.int64)) * 2
    src = b.tensor((b.g.integers(max(n - 2, 0), n),), b.dtype if b.g.integers(0, 11) else "float64")
    return (x, m, src), {}


op("masked_scatter", _masked_scatter, inplace_name="masked_scatter_")


def _take(b):
    shape = b.shape()
    x = b.tensor(shape)
    n = int(np.prod(shape, dtype=np.int64))
    ishape = b.shape(max_dims=2)
    return (x, _index(b, ishape, n, negative=True)), {}


op("take", _take)


def _put(b):
    shape = b.shape()
    x = b.tensor(shape)
    n = int(np.prod(shape, dtype=np.int64))
    k = b.g.integers(0, 4)
    if b.g.boolean() and n:
        perm = b.g.rng().permutation(n)[: min(k, n)].astype(np.int64)
        idx = b.tensor(perm.shape, "int64", array=perm, grad=False)
        k = perm.size
    else:
        idx = _index(b, (k,), n, negative=True)
    src = b.tensor((k,))
    kwargs = {"accumulate": True} if b.g.boolean() else {}
    return (x, idx, src), kwargs


op("put", _put, inplace_name="put_")


def _index_put(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    k = b.g.integers(1, len(shape))
    n = b.g.integers(0, 3)
    rng = b.g.rng()
    accumulate = b.g.boolean()
    if accumulate:
        idx = tuple(_index(b, (n,), shape[d], negative=True) for d in range(k))
    else:  # distinct positions: PyTorch's choice among repeated writes is unspecified
        total = int(np.prod(shape[:k]))
        flat = rng.permutation(total)[: min(n, total)]
        parts = np.unravel_index(flat, shape[:k])
        idx = tuple(b.tensor(p.shape, "int64", array=p.astype(np.int64), grad=False) for p in parts)
        n = len(flat)
    vshape = b.g.choice(((n, *shape[k:]), shape[k:], ()))
    v = b.tensor(vshape)
    kwargs = {"accumulate": True} if accumulate else {}
    return (x, idx, v), kwargs


op("index_put", _index_put, inplace_name="index_put_")


def _nonzero(b):
    x = b.tensor(b.shape(), b.g.choice(("float32", "int64", "bool")), grad=False)
    kwargs = {"as_tuple": b.g.boolean()} if b.g.boolean() else {}
    return (x,), kwargs


op("nonzero", _nonzero, grads=False)
op("argwhere", lambda b: ((b.tensor(b.shape(), grad=False),), {}), grads=False)


def _where_cond(b):
    shape = b.shape()
    c = b.tensor(shape, "bool", array=values(b.g, shape, "float64", REAL, b.ties) > 0, grad=False)
    return (c,), {}


function("where", _where_cond, case_name="torch.where[condition]", grads=False)


def _where_scalars(b):
    sc, sx = b.g.broadcast_shapes(2, 0, 3)
    cond = b.tensor(sc, "bool", array=values(b.g, sc, "float64", REAL, b.ties) > 0, grad=False)
    x = b.tensor(sx)
    y = b.g.choice((0.0, 1, -2.5))
    return ((cond, x, y) if b.g.boolean() else (cond, y, x)), {}


function("where", _where_scalars, case_name="torch.where[scalar]")
method(
    "where",
    lambda b: (lambda c, x, y: ((x, c, y), {}))(*_where_scalars(b)[0]),
    case_name="Tensor.where",
)


def _lerp(b):
    sx, se, sw = b.g.broadcast_shapes(3, 0, 3)
    x, e = b.tensor(sx), b.tensor(se)
    w = b.g.choice((0.5, 0.25, 1.0, "t", "zd"))
    if w == "t":
        w = b.tensor(sw)
    elif w == "zd":
        w = b.tensor(())
    return (x, e, w), {}


op("lerp", _lerp, inplace_name="lerp_")
