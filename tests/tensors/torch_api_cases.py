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

from funcgrad.tensors.inplace_functions import __all__ as _INPLACE_FUNCTIONS
from tests.differential.torch_cases import (
    FLOATS,
    REAL,
    TIES,
    Builder,
    Case,
    Dim,
    Domain,
    DtypeRef,
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
            call=r":float\d+\[(\d+, )*0(, \d+)*\]",
        )
        for name in ("torch.cummax", "Tensor.cummax", "torch.cummin", "Tensor.cummin")
    },
    **{
        name: Difference(
            "values",
            "addmv with an empty matrix: PyTorch 2.13 resizes its output to the input's shape "
            "(with a deprecation warning); funcgrad broadcasts the input to the product's shape",
            match=r"out: shape \(\d*,?\), torch \(\d*,?\)",
            call=r":float\d+\[\d+, 0\]|:float\d+\[0, \d+\]",
        )
        for name in ("torch.addmv", "Tensor.addmv")
    },
    **{
        name: Difference(
            "raises",
            "an in-place product of empty operands whose result has another shape: PyTorch "
            "resizes the tensor (deprecated, with a warning); funcgrad keeps in-place operations "
            "to the tensor's shape",
            match=r"doesn't match the broadcast shape",
            call=r"~?, t\d:float\d+\[(\d+, )*0(, \d+)*\]",
        )
        for name in ("Tensor.addmm_", "Tensor.addmv_", "Tensor.addr_")
    },
    "Tensor.addbmm_": Difference(
        "raises",
        "an in-place addbmm_ whose result has another shape than the tensor: PyTorch 2.13 "
        "resizes the tensor (addmm_ refuses: 'Bad in-place call'); funcgrad refuses, as for "
        "every in-place operation",
        match=r"doesn't match the broadcast shape",
    ),
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


def _unique(b):
    # small integers, so that values (and slices) repeat; no NaN: under dim= PyTorch's order
    # of NaN slices is unspecified (tests/tensors/test_unique.py checks NaN without dim)
    shape = b.shape()
    dtype = b.g.choice(("float32", "int64", "bool"))
    values = b.g.rng().integers(0, 3, size=shape).astype(dtype)
    x = b.tensor(shape, dtype, array=values, grad=False)
    kwargs = {k: True for k in ("return_inverse", "return_counts") if b.g.boolean()}
    if shape and b.g.boolean():
        kwargs["dim"] = b.g.choice(range(-len(shape), len(shape)))
    return (x,), kwargs


op("unique", _unique, grads=False)


def _legacy_type(name):
    def draw_fn(b):
        args = b.g.choice(((2, 3), ([1.0, 2.5],), ([[1, 0]],), (0,), ()))

        def fn(lib, ts):
            t = getattr(lib, name)(*args)
            shaped = args and isinstance(args[0], int)  # PyTorch leaves those uninitialised
            return (tuple(t.shape), t.dtype) if shaped else t

        return fn, f"{name}{args!r}"

    return draw_fn


for _name in ("Double", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool"):
    custom(f"torch.{_name}Tensor", _legacy_type(f"{_name}Tensor"), grads=False)


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


# === priority 2: products ======================================================================


def _scalars(b):
    kwargs = {}
    if b.g.integers(0, 2) == 0:
        kwargs["beta"] = b.g.choice((0, 0.5, 2))
    if b.g.integers(0, 2) == 0:
        kwargs["alpha"] = b.g.choice((0.5, -1, 2))
    return kwargs


def _bias(b, shape):
    """The added input: the result's shape, or a shape that broadcasts to it."""
    s = b.g.choice((tuple(shape), tuple(shape[1:]), (1,) * len(shape), ()))
    x = b.tensor(s)
    if b.g.integers(0, 7) == 0 and b.arrays[x.i].size:
        b.arrays[x.i].flat[0] = np.nan  # beta=0 ignores it, NaN included
    return x


def _addmm(b):
    n, k, m = (b.g.integers(0, 3) for _ in range(3))
    k2 = k if b.g.integers(0, 9) else k + 1
    return (_bias(b, (n, m)), b.tensor((n, k)), b.tensor((k2, m))), _scalars(b)


op("addmm", _addmm, inplace_name="addmm_")


def _mv(b):
    n, k = b.g.integers(0, 3), b.g.integers(0, 3)
    k2 = k if b.g.integers(0, 9) else k + 1
    return (b.tensor((n, k)), b.tensor((k2,))), {}


op("mv", _mv)


def _addmv(b):
    (m, v), _ = _mv(b)
    n = b.arrays[m.i].shape[0]
    return (_bias(b, (n,)), m, v), _scalars(b)


op("addmv", _addmv, inplace_name="addmv_")


def _batches(b):
    bs, n, k, m = (b.g.integers(1 if i == 0 else 0, 3) for i in range(4))
    k2 = k if b.g.integers(0, 9) else k + 1
    return b.tensor((bs, n, k)), b.tensor((bs, k2, m)), (bs, n, m)


def _baddbmm(b):
    x, y, shape = _batches(b)
    return (_bias(b, shape), x, y), _scalars(b)


def _addbmm(b):
    x, y, shape = _batches(b)
    return (_bias(b, shape[1:]), x, y), _scalars(b)


op("baddbmm", _baddbmm, inplace_name="baddbmm_")
op("addbmm", _addbmm, inplace_name="addbmm_")


def _addr(b):
    n, m = b.g.integers(0, 3), b.g.integers(0, 3)
    return (_bias(b, (n, m)), b.tensor((n,)), b.tensor((m,))), _scalars(b)


op("addr", _addr, inplace_name="addr_")


def _vectors(b):
    n = b.g.integers(0, 4)
    m = n if b.g.integers(0, 7) else n + 1
    return (b.tensor((n,)), b.tensor((m,))), {}


op("vdot", _vectors)
op("ger", _vectors)


def _inner(b):
    s1 = b.shape()
    k = s1[-1] if s1 else b.g.integers(1, 3)
    s2 = (*b.shape(max_dims=2), k) if s1 else b.shape()
    return (b.tensor(s1), b.tensor(s2)), {}


op("inner", _inner)
op("kron", lambda b: ((b.tensor(b.shape(max_dims=2)), b.tensor(b.shape(max_dims=3))), {}))


def _cross(b):
    shape = list(b.shape(min_dims=1, max_dims=3))
    i = b.g.integers(0, len(shape) - 1)
    shape[i] = 3
    other = list(shape)
    if b.g.boolean():
        other[b.g.integers(0, len(shape) - 1)] = 1 if other[0] != 3 else other[0]
    kwargs = {}
    if b.g.boolean():
        kwargs["dim"] = Dim(i - len(shape) if b.g.boolean() else i)
    return (b.tensor(tuple(shape)), b.tensor(tuple(other))), kwargs


op("cross", _cross)


def _tensordot(b):
    k = b.g.integers(0, 2)
    shared = b.shape(min_dims=k, max_dims=k)
    a = (*b.shape(max_dims=2), *shared)
    c = (*shared, *b.shape(max_dims=2))
    if b.g.boolean():
        dims = ([d - len(a) for d in range(len(a) - k, len(a))], list(range(k)))
        return (b.tensor(a), b.tensor(c)), {"dims": dims}
    return (b.tensor(a), b.tensor(c)), {"dims": k} if b.g.boolean() else (
        {} if k == 2 else {"dims": k}
    )


function("tensordot", _tensordot)


def _chain(b):
    sizes = [b.g.integers(1, 3) for _ in range(b.g.integers(2, 4))]
    ms = [b.tensor((sizes[i], sizes[i + 1])) for i in range(len(sizes) - 1)]
    return tuple(ms), {}


function("chain_matmul", _chain)


# === priority 2: shapes ==========================================================================


def _stack_spec(min_dims=0):
    def spec(b):
        shape = b.shape(min_dims=min_dims, max_dims=3)
        ts = [b.tensor(shape) for _ in range(b.g.integers(1, 3))]
        return ((ts if b.g.boolean() else tuple(ts)),), {}

    return spec


for _name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
    function(_name, _stack_spec())
function("concat", _stack_spec(min_dims=1))
for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    function(_name, lambda b: ((b.tensor(b.shape()),), {}))


def _split(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    d = b.dim(len(shape), forms=("int", "neg"), bad=False)
    n = shape[d.value]
    if b.g.boolean():
        size = b.g.integers(1, max(n, 1))
    else:
        cuts = sorted(b.g.integers(0, n) for _ in range(b.g.integers(0, 2)))
        bounds = [0, *cuts, n]
        size = [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)]
        if b.g.integers(0, 9) == 0:
            size = [*size, 1]  # does not sum to the size
    return ((x, size, d) if b.g.boolean() else (x, size)), {}


op("split", _split)


def _chunk(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    args = (x, b.g.integers(1 - (b.g.integers(0, 9) == 0), 5))
    if b.g.boolean():
        args = (*args, b.dim(len(shape), forms=("int", "neg")))
    return args, {}


op("chunk", _chunk)


def _tensor_split(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    n = shape[0]
    what = b.g.choice(("sections", "indices", "tensor"))
    if what == "sections":
        arg = b.g.integers(1, 4)
    else:
        arg = sorted(b.g.integers(-n - 1, n + 1) for _ in range(b.g.integers(0, 3)))
        if what == "tensor":
            arg = b.tensor((len(arg),), "int64", array=np.asarray(arg, np.int64), grad=False)
    return (x, arg), ({"dim": 0} if b.g.boolean() else {})


op("tensor_split", _tensor_split)


def _hvd_split(name, min_dims, axis):
    def spec(b):
        shape = list(b.shape(min_dims=min_dims, max_dims=3))
        along = 0 if name == "hsplit" and len(shape) == 1 else axis
        if shape and along < len(shape):
            shape[along] = b.g.choice((2, 4, 3))
        x = b.tensor(tuple(shape))
        return (x, b.g.choice((2, [1], [1, 2]))), {}

    return spec


op("hsplit", _hvd_split("hsplit", 1, 1))
op("vsplit", _hvd_split("vsplit", 2, 0))
op("dsplit", _hvd_split("dsplit", 3, 2))


def _unbind(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    if b.g.boolean():
        return (x, b.dim(len(shape), forms=("int", "neg"))), {}
    return (x,), {}


op("unbind", _unbind)
op("fliplr", lambda b: ((b.tensor(b.shape(min_dims=1)),), {}))
op("flipud", lambda b: ((b.tensor(b.shape()),), {}))


def _roll(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    nd = len(shape)
    if b.g.boolean():
        return (x, b.g.integers(-5, 5)), {}
    k = b.g.integers(1, nd)
    dims = b.g.permutation(nd)[:k]
    shifts = tuple(b.g.integers(-5, 5) for _ in dims)
    if k == 1 and b.g.boolean():
        return (x, shifts[0], dims[0]), {}
    return (x, shifts, tuple(dims)), {}


op("roll", _roll)


def _rot90(b):
    shape = b.shape(min_dims=2)
    x = b.tensor(shape)
    args = (x, b.g.integers(-5, 5))
    if b.g.boolean():
        d = b.g.permutation(len(shape))[:2]
        args = (*args, d)
    return args, {}


op("rot90", _rot90)


def _tile(b):
    x = b.tensor(b.shape())
    reps = tuple(b.g.integers(0, 3) for _ in range(b.g.integers(0, 4)))
    return (x, reps), {}


op("tile", _tile)


def _repeat(b):
    shape = b.shape()
    x = b.tensor(shape)
    reps = tuple(b.g.integers(0, 3) for _ in range(len(shape) + b.g.integers(0, 2)))
    if not reps:
        reps = (2,)
    return ((x, reps) if b.g.boolean() else (x, *reps)), {}


method("repeat", _repeat)


def _repeat_interleave(b):
    shape = b.shape()
    x = b.tensor(shape)
    if b.g.boolean() or not shape:
        reps = b.g.integers(0, 3)
        return ((x, reps, 0) if shape and b.g.boolean() else (x, reps)), {}
    d = b.g.integers(0, len(shape) - 1)
    counts = b.g.rng().integers(0, 3, size=shape[d])
    r = b.tensor(counts.shape, "int64", array=counts.astype(np.int64), grad=False)
    return (x, r), {"dim": d}


op("repeat_interleave", _repeat_interleave)


def _repeat_counts(b):
    counts = b.g.rng().integers(0, 3, size=b.g.integers(0, 4))
    return (b.tensor(counts.shape, "int64", array=counts.astype(np.int64), grad=False),), {}


function(
    "repeat_interleave", _repeat_counts, case_name="torch.repeat_interleave[counts]", grads=False
)


def _broadcast_to(b):
    shape = b.shape()
    x = b.tensor(shape)
    target = [n if n != 1 else b.g.choice((1, 2, 3)) for n in shape]
    target = [b.g.integers(1, 3) for _ in range(b.g.integers(0, 2))] + target
    if target and b.g.integers(0, 4) == 0:
        target[-1] = -1
    return (x, tuple(target)), {}


op("broadcast_to", _broadcast_to)


def _broadcast_tensors(b):
    shapes = b.g.broadcast_shapes(b.g.integers(1, 3), 0, 3)
    return tuple(b.tensor(s) for s in shapes), {}


function("broadcast_tensors", _broadcast_tensors)


def _broadcast_shapes(b):
    shapes = b.g.broadcast_shapes(b.g.integers(1, 3), 0, 3)
    return (lambda lib, ts: lib.broadcast_shapes(*shapes)), repr(shapes)


custom("torch.broadcast_shapes", _broadcast_shapes, grads=False)


def _unflatten(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape)
    d = b.g.integers(0, len(shape) - 1)
    n = shape[d]
    sizes = b.g.choice(((n,), (1, n), (n, 1), (-1, 1), (n, -1)))
    return (x, b.g.choice((d, d - len(shape))), sizes), {}


op("unflatten", _unflatten)
op("ravel", lambda b: ((b.tensor(b.shape()),), {}))


def _movedim(b):
    shape = b.shape(min_dims=1, max_dims=4)
    x = b.tensor(shape)
    nd = len(shape)
    k = b.g.integers(1, nd)
    src = b.g.permutation(nd)[:k]
    dst = b.g.permutation(nd)[:k]
    if k == 1 and b.g.boolean():
        return (x, src[0], dst[0] - nd), {}
    return (x, tuple(src), tuple(dst)), {}


op("movedim", _movedim)
op("moveaxis", _movedim)


def _swap(b):
    shape = b.shape(min_dims=1, max_dims=4)
    x = b.tensor(shape)
    return (x, b.dim(len(shape)), b.dim(len(shape))), {}


op("swapaxes", _swap)
op("swapdims", _swap)


def _diag(b):
    shape = b.shape(min_dims=0, max_dims=3)
    x = b.tensor(shape)
    if b.g.boolean():
        return (x, b.g.integers(-3, 3)), {}
    return (x,), {}


op("diag", _diag)


def _diag_embed(b):
    x = b.tensor(b.shape(min_dims=1))
    kwargs = {}
    if b.g.boolean():
        kwargs["offset"] = b.g.integers(-2, 2)
    if b.g.boolean():
        nd = b.arrays[x.i].ndim + 1
        d1, d2 = b.g.permutation(nd)[:2]
        kwargs["dim1"], kwargs["dim2"] = d1, d2 - nd
    return (x,), kwargs


op("diag_embed", _diag_embed)
op(
    "diagflat",
    lambda b: ((b.tensor(b.shape()),), {"offset": b.g.integers(-2, 2)} if b.g.boolean() else {}),
)
op("trace", lambda b: ((b.tensor(b.shape(min_dims=1, max_dims=3)),), {}))


def _cumulative_dim(b):
    x = b.tensor(b.shape(), "int64" if b.g.integers(0, 7) == 0 else None)
    nd = b.arrays[x.i].ndim
    kwargs = {}
    if b.kind != "inplace" and b.g.integers(0, 4) == 0:
        kwargs["dtype"] = DtypeRef(b.g.choice(FLOATS))
    return (x, b.dim(nd)), kwargs


op("cumprod", _cumulative_dim, inplace_name="cumprod_")
inplace("cumsum_", _cumulative_dim)


def _logcumsumexp(b):
    x = b.tensor(b.shape(), dom=Domain(-30.0, 30.0, TIES))
    return (x, b.dim(b.arrays[x.i].ndim)), {}


op("logcumsumexp", _logcumsumexp)


def _diff(b):
    shape = b.shape(min_dims=1)
    x = b.tensor(shape, b.g.choice((None, None, "bool")))
    nd = len(shape)
    d = b.g.integers(0, nd - 1)
    kwargs = {}
    if b.g.boolean():
        kwargs["n"] = b.g.integers(0, 3)
    if b.g.boolean():
        kwargs["dim"] = d
    dim = kwargs.get("dim", nd - 1)
    for key in ("prepend", "append"):
        if b.g.integers(0, 3) == 0 and b.arrays[x.i].dtype != np.bool_:
            s = list(shape)
            s[dim] = b.g.integers(1, 2)
            kwargs[key] = b.tensor(tuple(s))
    return (x,), kwargs


op("diff", _diff)


# --- torch.sin_(x) and the other in-place functions of the torch namespace ------------------

_ACOSH = Domain(1.05, 3.0)
_INPLACE_DOMAINS = {
    **dict.fromkeys(
        ("acos_", "arccos_", "asin_", "arcsin_", "atanh_", "arctanh_", "logit_"), Domain(0.05, 0.95)
    ),
    **dict.fromkeys(("acosh_", "arccosh_"), _ACOSH),
    **dict.fromkeys(
        ("log_", "log2_", "log10_", "sqrt_", "rsqrt_", "reciprocal_"), Domain(0.2, 3.0)
    ),
    "log1p_": Domain(-0.9, 3.0),
}


def _inplace_function(name):
    def spec(b):
        x = b.tensor((3,), dom=_INPLACE_DOMAINS.get(name, REAL), grad=b.g.integers(0, 5) == 0)
        args = {
            "addmv_": lambda: (b.tensor((3, 2), grad=False), b.tensor((2,), grad=False)),
            "clamp_": lambda: (-0.5, 0.5),
            "clip_": lambda: (-0.5, 0.5),
            "clamp_max_": lambda: (0.3,),
            "clamp_min_": lambda: (-0.3,),
            "fill_": lambda: (2.5,),
            "index_put_": lambda: (
                (b.tensor((2,), "int64", array=np.array([2, 0]), grad=False),),
                b.tensor((2,), grad=False),
            ),
            "xlogy_": lambda: (b.tensor((3,), dom=Domain(0.2, 3.0), grad=False),),
        }.get(name, tuple)()
        return (x, *args), {}

    return spec


for _name in _INPLACE_FUNCTIONS:
    function(_name, _inplace_function(_name), grads=False)


# --- in-place shape changes (unsqueeze_, t_ ...) ------------------------------------------


def _shape_change(name):
    def spec(b):
        shape = b.shape(min_dims=2 if name in ("transpose_", "swapdims_", "swapaxes_") else 0)
        if name == "t_":
            shape = shape[:2]
        x = b.tensor(shape)
        n = len(shape)
        if name == "unsqueeze_":
            return (x, b.g.integers(-n - 1, n)), {}
        if name == "squeeze_":
            return ((x, b.g.integers(-n, n - 1)) if n and b.g.boolean() else (x,)), {}
        if name == "t_":
            return (x,), {}
        return (x, b.g.integers(-n, n - 1), b.g.integers(-n, n - 1)), {}

    return spec


for _name in ("unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_"):
    inplace(_name, _shape_change(_name))


# the cases of linalg, fft, special, elementwise math and operators
from tests.tensors import torch_api_cases_more as _more  # noqa: E402, F401  (registers them)
