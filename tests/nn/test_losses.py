"""The losses of `funcgrad.nn.functional` and `funcgrad.nn`, checked against PyTorch's.

Each case draws (with hypothesis, bounded) shapes, options and a seed for
the values, then calls funcgrad and `torch.nn.functional` on the same
inputs, in every `reduction` the loss takes:

* Tensors, float64: values and the gradients of every input PyTorch
  differentiates (input, target, weight, var ...), tightly;
* Tensors, float32: the same at PyTorch's own float32 tolerance, the
  result and the gradients staying float32;
* arrays and graph nodes (the functional style): the same values, and
  `funcgrad.grad` of the summed loss against PyTorch's gradients;
* the modules (`funcgrad.nn.MSELoss` ...) against `torch.nn`'s.

Then the behaviour around them: errors for bad class indices, dtypes and
shapes (PyTorch's exception types), the legacy `size_average`/`reduce`,
buffers and reprs of the modules, and stability at extreme logits.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn.functional as F
import funcgrad.numpy as fnp
from funcgrad.errors import IndexingError
from tests.references import requires

torch = requires("torch")
TF = torch.nn.functional

REDUCTIONS = ("mean", "sum", "none")
F64 = {"rtol": 1e-9, "atol": 1e-11}
F32 = {"rtol": 1.3e-6 * 10, "atol": 1e-5}  # PyTorch's float32 tolerance, x10 in rtol for sums


# --- drawing the cases ------------------------------------------------------------


class Case:
    """One call: positional `args`, keyword `kwargs`, and which of them are differentiable.

    Float arrays are the values (converted to tensors of either library);
    int64 arrays are class indices; anything else passes through.
    `diff` names the differentiable arguments: positions and keyword names.
    """

    def __init__(self, args, kwargs, diff, reductions=REDUCTIONS):
        self.args, self.kwargs, self.diff, self.reductions = (
            list(args),
            dict(kwargs),
            diff,
            reductions,
        )


class _Rng:
    """NumPy's generator, but every draw an array (a 0-d one for `size=()`)."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)

    def __getattr__(self, name):
        method = getattr(self._rng, name)
        return lambda *a, **k: np.asarray(method(*a, **k))


def _rng(data):
    return _Rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def _shape(data, min_dims=0, max_dims=3, max_side=4):
    return tuple(
        data.draw(st.lists(st.integers(1, max_side), min_size=min_dims, max_size=max_dims))
    )


def _maybe(data, label):
    return data.draw(st.booleans(), label=label)


def _regression(name, extra=None, weighted=False):
    def draw(data):
        rng = _rng(data)
        shape = _shape(data)
        x, t = rng.normal(size=shape) * 2, rng.normal(size=shape) * 2
        kwargs = dict(extra(data)) if extra else {}
        diff = [0, 1]
        if weighted and _maybe(data, "weight"):
            kwargs["weight"] = rng.uniform(0.1, 2.0, size=shape)
        return Case([x, t], kwargs, diff)

    return draw


def _class_input(data, rng, min_dims=1):
    """Logits (C,), (N, C) or (N, C, d1, ...) and the shape of a class-index target."""
    kind = data.draw(
        st.sampled_from(["vector", "batch", "spatial"] if min_dims == 1 else ["batch"])
    )
    c = data.draw(st.integers(1, 5), label="classes")
    if kind == "vector":
        shape = (c,)
    elif kind == "batch":
        shape = (data.draw(st.integers(1, 4)), c)
    else:
        shape = (data.draw(st.integers(1, 3)), c, *_shape(data, 1, 2, 3))
    target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    return rng.normal(size=shape) * 2, c, target_shape


def _indices(data, rng, c, target_shape):
    idx = rng.integers(0, c, size=target_shape).astype(np.int64)
    ignore_index = -100
    if _maybe(data, "ignore"):
        ignore_index = data.draw(st.sampled_from([-100, -1, 0, c - 1]), label="ignore_index")
        # a few targets equal to ignore_index (maybe all of them: the mean is then nan)
        idx = np.where(rng.uniform(size=target_shape) < 0.3, ignore_index, idx).astype(np.int64)
    return idx, ignore_index


def _cross_entropy_indices(data):
    rng = _rng(data)
    x, c, tshape = _class_input(data, rng)
    idx, ignore_index = _indices(data, rng, c, tshape)
    kwargs = {"ignore_index": ignore_index}
    diff = [0]
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=c)
    kwargs["label_smoothing"] = data.draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    return Case([x, idx], kwargs, diff)


def _cross_entropy_probs(data):
    rng = _rng(data)
    x, c, _ = _class_input(data, rng)
    p = rng.uniform(0.01, 1.0, size=x.shape)
    p = p / p.sum(axis=0 if x.ndim == 1 else 1, keepdims=True)
    kwargs = {"label_smoothing": data.draw(st.sampled_from([0.0, 0.2]))}
    diff = [0, 1]
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=c)
        diff.append("weight")
    return Case([x, p], kwargs, diff)


def _nll(data):
    rng = _rng(data)
    x, c, tshape = _class_input(data, rng)
    idx, ignore_index = _indices(data, rng, c, tshape)
    kwargs = {"ignore_index": ignore_index}
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=c)
    return Case([x, idx], kwargs, [0])


def _bce(data):
    rng = _rng(data)
    shape = _shape(data)
    x, t = rng.uniform(0.02, 0.98, size=shape), rng.uniform(0, 1, size=shape)
    kwargs = {}
    if _maybe(data, "weight"):  # any shape that broadcasts to the target's
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=shape[len(shape) // 2 :])
    return Case([x, t], kwargs, [0, 1])


def _bce_logits(data):
    rng = _rng(data)
    shape = _shape(data)
    x, t = rng.normal(size=shape) * 3, rng.uniform(0, 1, size=shape)
    kwargs = {}
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=shape[len(shape) // 2 :])
    if _maybe(data, "pos_weight"):
        kwargs["pos_weight"] = rng.uniform(0.1, 3.0, size=shape[-1:])
    return Case([x, t], kwargs, [0, 1])


def _kl_div(data):
    rng = _rng(data)
    shape = _shape(data)
    x = rng.normal(size=shape)
    log_target = _maybe(data, "log_target")
    t = rng.normal(size=shape) if log_target else rng.uniform(0.05, 1.0, size=shape)
    return Case([x, t], {"log_target": log_target}, [0, 1], (*REDUCTIONS, "batchmean"))


def _poisson(data):
    rng = _rng(data)
    shape = _shape(data)
    log_input = _maybe(data, "log_input")
    x = rng.normal(size=shape) if log_input else rng.uniform(0.1, 3.0, size=shape)
    t = rng.integers(0, 5, size=shape).astype(np.float64)  # 0, 1 and > 1 (Stirling's term)
    kwargs = {"log_input": log_input, "full": _maybe(data, "full")}
    # PyTorch's gradient of Stirling's term at a target of 0 is nan (funcgrad's is 0)
    diff = [0] if kwargs["full"] and (t == 0).any() else [0, 1]
    return Case([x, t], kwargs, diff)


def _gaussian(data):
    rng = _rng(data)
    shape = _shape(data, 1, 3)
    x, t = rng.normal(size=shape), rng.normal(size=shape)
    form = data.draw(st.sampled_from(["same", "short", "broadcast", "number"]), label="var")
    if form == "number":
        var = float(rng.uniform(0.1, 2.0))  # a Python number
        diff = [0, 1]
    else:
        vshape = {
            "same": shape,
            "short": shape[:-1],
            "broadcast": (*shape[:-1], 1),
        }[form]
        var = rng.uniform(0.1, 2.0, size=vshape)
        diff = [0, 1, 2]
    kwargs = {"full": _maybe(data, "full"), "eps": data.draw(st.sampled_from([1e-6, 0.5]))}
    return Case([x, t, var], kwargs, diff)


def _cosine(data):
    rng = _rng(data)
    d = data.draw(st.integers(2, 5))  # d = 1: cos is +-1, its gradient only rounding error
    batch = _maybe(data, "batch")
    shape = (data.draw(st.integers(1, 4)), d) if batch else (d,)
    x1, x2 = rng.normal(size=shape), rng.normal(size=shape)
    y = np.where(rng.uniform(size=shape[:-1]) < 0.5, 1.0, -1.0)
    return Case([x1, x2, y], {"margin": data.draw(st.sampled_from([0.0, 0.3, -0.5]))}, [0, 1])


def _margin_ranking(data):
    rng = _rng(data)
    shape = _shape(data, 1, 2)
    x1, x2 = rng.normal(size=shape), rng.normal(size=shape)
    y = np.where(rng.uniform(size=shape) < 0.5, 1.0, -1.0)
    return Case([x1, x2, y], {"margin": data.draw(st.sampled_from([0.0, 0.5]))}, [0, 1, 2])


def _triplet(data):
    rng = _rng(data)
    shape = (data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5)))
    if not _maybe(data, "batch"):
        shape = shape[1:]
    a, p, n = (rng.normal(size=shape) for _ in range(3))
    kwargs = {
        "margin": data.draw(st.sampled_from([0.5, 1.0, 3.0])),
        "p": data.draw(st.sampled_from([1.0, 2.0, 3.0, 1.5])),
        "swap": _maybe(data, "swap"),
    }
    return Case([a, p, n], kwargs, [0, 1, 2])


def _hinge(data):
    rng = _rng(data)
    shape = _shape(data)
    x = rng.normal(size=shape)
    y = np.where(rng.uniform(size=shape) < 0.5, 1.0, -1.0)
    return Case([x, y], {"margin": data.draw(st.sampled_from([0.5, 1.0, 2.0]))}, [0])


def _soft_margin(data):
    rng = _rng(data)
    shape = _shape(data)
    x = rng.normal(size=shape) * 3
    y = np.where(rng.uniform(size=shape) < 0.5, 1.0, -1.0)
    return Case([x, y], {}, [0])


def _multilabel_soft_margin(data):
    rng = _rng(data)
    shape = _shape(data, 1, 2)
    x = rng.normal(size=shape) * 2
    t = (rng.uniform(size=shape) < 0.5).astype(np.float64)
    kwargs = {}
    diff = [0, 1]
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=shape[-1:])
        diff.append("weight")
    return Case([x, t], kwargs, diff)


def _multi_margin(data):
    rng = _rng(data)
    c = data.draw(st.integers(1, 5))
    batch = _maybe(data, "batch")
    shape = (data.draw(st.integers(1, 4)), c) if batch else (c,)
    x = rng.normal(size=shape)
    idx = rng.integers(0, c, size=shape[:-1] if batch else ()).astype(np.int64)
    kwargs = {
        "p": data.draw(st.sampled_from([1, 2])),
        "margin": data.draw(st.sampled_from([0.5, 1.0, 2.0])),
    }
    if _maybe(data, "weight"):
        kwargs["weight"] = rng.uniform(0.1, 2.0, size=c)
    return Case([x, idx], kwargs, [0])


def _multilabel_margin(data):
    rng = _rng(data)
    c = data.draw(st.integers(1, 5))
    batch = _maybe(data, "batch")
    shape = (data.draw(st.integers(1, 4)), c) if batch else (c,)
    x = rng.normal(size=shape)
    rows = []
    for _ in range(shape[0] if batch else 1):
        k = int(rng.integers(0, c + 1))
        row = list(rng.permutation(c)[:k]) + [-1] * (c - k)
        if k < c - 1:
            row[k + 1] = int(rng.integers(0, c))  # junk after the first -1 is ignored
        rows.append(row)
    idx = np.array(rows if batch else rows[0], dtype=np.int64)
    return Case([x, idx], {}, [0])


CASES = {
    "mse_loss": _regression("mse_loss", weighted=True),
    "l1_loss": _regression("l1_loss", weighted=True),
    "smooth_l1_loss": _regression(
        "smooth_l1_loss", lambda d: {"beta": d.draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))}
    ),
    "huber_loss": _regression(
        "huber_loss", lambda d: {"delta": d.draw(st.sampled_from([0.5, 1.0, 2.0]))}, weighted=True
    ),
    "cross_entropy": _cross_entropy_indices,
    "cross_entropy[probabilities]": _cross_entropy_probs,
    "nll_loss": _nll,
    "binary_cross_entropy": _bce,
    "binary_cross_entropy_with_logits": _bce_logits,
    "kl_div": _kl_div,
    "poisson_nll_loss": _poisson,
    "gaussian_nll_loss": _gaussian,
    "cosine_embedding_loss": _cosine,
    "margin_ranking_loss": _margin_ranking,
    "triplet_margin_loss": _triplet,
    "hinge_embedding_loss": _hinge,
    "soft_margin_loss": _soft_margin,
    "multilabel_soft_margin_loss": _multilabel_soft_margin,
    "multi_margin_loss": _multi_margin,
    "multilabel_margin_loss": _multilabel_margin,
}


# PyTorch's one-kernel losses: funcgrad's primitives give the same grad_fn (unweighted for
# FUSED: PyTorch composes the weighted mse/huber; FUSED_ANY with any option)
FUSED = {"mse_loss", "huber_loss"}
FUSED_ANY = {"soft_margin_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"}


def _fn_name(case_name):
    return case_name.split("[")[0]


# --- running one case in each world -------------------------------------------------


def _to(lib, v, dtype, grad):
    if isinstance(v, (np.ndarray, np.generic)):
        v = np.asarray(v)
        if v.dtype.kind == "f":
            v = v.astype(dtype)
        t = lib.tensor(v)
        if grad:
            t.requires_grad_(True)
        return t
    return v


def _keys(case):
    return [*range(len(case.args)), *case.kwargs]


def _get(case, key):
    return case.args[key] if isinstance(key, int) else case.kwargs[key]


def _run_tensors(lib, fn, case, reduction, dtype):
    """Call `fn` on tensors of `lib`; return the value and the gradients of the `diff` inputs."""
    args = [_to(lib, a, dtype, i in case.diff) for i, a in enumerate(case.args)]
    kwargs = {k: _to(lib, v, dtype, k in case.diff) for k, v in case.kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(*args, reduction=reduction, **kwargs)
    cot = np.linspace(0.5, 1.5, max(out.numel(), 1))[: out.numel()].reshape(tuple(out.shape))
    (out * lib.tensor(cot.astype(dtype))).sum().backward()
    grads = {}
    for key in case.diff:
        t = args[key] if isinstance(key, int) else kwargs[key]
        grads[key] = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
    return out, cot, grads


def _close(actual, expected, tol, what):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), err_msg=what, **tol)


@pytest.mark.parametrize("case_name", list(CASES))
@given(data=st.data())
def test_loss_matches_torch_float64(case_name, data):
    case = CASES[case_name](data)
    name = _fn_name(case_name)
    reduction = data.draw(st.sampled_from(case.reductions), label="reduction")
    expected, cot, t_grads = _run_tensors(torch, getattr(TF, name), case, reduction, np.float64)
    actual, _, f_grads = _run_tensors(fg, getattr(F, name), case, reduction, np.float64)

    assert isinstance(actual, fg.Tensor)
    assert tuple(actual.shape) == tuple(expected.shape), name
    assert actual.dtype == fg.float64
    assert actual.grad_fn is not None
    if name in FUSED and not case.kwargs.get("weight", None) is not None or name in FUSED_ANY:
        assert actual.grad_fn.name() == expected.grad_fn.name(), name
    _close(actual.detach().numpy(), expected.detach().numpy(), F64, f"{name} value")
    for key in case.diff:
        _close(f_grads[key], t_grads[key], F64, f"{name} gradient of {key!r}")

    # the functional style: arrays in, an array out; nodes in, gradients by funcgrad.grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = getattr(F, name)(*case.args, reduction=reduction, **case.kwargs)
        assert isinstance(value, (np.ndarray, np.generic)), type(value)
        _close(value, expected.detach().numpy(), F64, f"{name} on arrays")

        def f(*diffs):
            args, kwargs = list(case.args), dict(case.kwargs)
            for key, d in zip(case.diff, diffs, strict=True):
                if isinstance(key, int):
                    args[key] = d
                else:
                    kwargs[key] = d
            return fnp.sum(getattr(F, name)(*args, reduction=reduction, **kwargs) * cot)

        grads = fg.grad(f, argnums=tuple(range(len(case.diff))))(
            *(_get(case, k) for k in case.diff)
        )
    for key, g in zip(case.diff, grads, strict=True):
        _close(g, t_grads[key], F64, f"{name} functional gradient of {key!r}")


@pytest.mark.parametrize("case_name", list(CASES))
@given(data=st.data())
def test_loss_matches_torch_float32(case_name, data):
    case = CASES[case_name](data)
    name = _fn_name(case_name)
    reduction = data.draw(st.sampled_from(case.reductions), label="reduction")
    expected, _, t_grads = _run_tensors(torch, getattr(TF, name), case, reduction, np.float32)
    actual, _, f_grads = _run_tensors(fg, getattr(F, name), case, reduction, np.float32)
    assert actual.dtype == fg.float32, f"{name}: {actual.dtype}"
    _close(actual.detach().numpy(), expected.detach().numpy(), F32, f"{name} value")
    for key in case.diff:
        assert f_grads[key].dtype == np.float32, f"{name}: gradient of {key!r} not float32"
        _close(f_grads[key], t_grads[key], F32, f"{name} gradient of {key!r}")


# --- the modules --------------------------------------------------------------------

# (funcgrad.nn class name, constructor keywords drawn, forward from the F case)
MODULES = {
    "MSELoss": ("mse_loss", {}),
    "L1Loss": ("l1_loss", {}),
    "SmoothL1Loss": ("smooth_l1_loss", {"beta": 0.5}),
    "HuberLoss": ("huber_loss", {"delta": 0.7}),
    "CrossEntropyLoss": ("cross_entropy", {}),
    "NLLLoss": ("nll_loss", {}),
    "BCELoss": ("binary_cross_entropy", {}),
    "BCEWithLogitsLoss": ("binary_cross_entropy_with_logits", {}),
    "KLDivLoss": ("kl_div", {}),
    "PoissonNLLLoss": ("poisson_nll_loss", {}),
    "GaussianNLLLoss": ("gaussian_nll_loss", {}),
    "CosineEmbeddingLoss": ("cosine_embedding_loss", {}),
    "MarginRankingLoss": ("margin_ranking_loss", {}),
    "TripletMarginLoss": ("triplet_margin_loss", {}),
    "HingeEmbeddingLoss": ("hinge_embedding_loss", {}),
    "SoftMarginLoss": ("soft_margin_loss", {}),
    "MultiLabelSoftMarginLoss": ("multilabel_soft_margin_loss", {}),
    "MultiMarginLoss": ("multi_margin_loss", {}),
    "MultiLabelMarginLoss": ("multilabel_margin_loss", {}),
}


@pytest.mark.parametrize("cls_name", list(MODULES))
@given(data=st.data())
def test_loss_module_matches_torch(cls_name, data):
    fname, fixed = MODULES[cls_name]
    case = CASES[fname](data)
    reduction = data.draw(st.sampled_from(case.reductions), label="reduction")
    takes = inspect.signature(getattr(torch.nn, cls_name)).parameters
    kwargs = {k: v for k, v in {**case.kwargs, **fixed}.items() if k in takes}  # not F's weight=
    kwargs["reduction"] = reduction
    n_forward = 3 if len(case.args) == 3 else 2
    results = []
    for lib in (torch, fg):
        args = [_to(lib, a, np.float64, i in case.diff) for i, a in enumerate(case.args)]
        ctor = {k: _to(lib, v, np.float64, False) for k, v in kwargs.items()}
        module = getattr(lib.nn, cls_name)(**ctor)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = module(*args[:n_forward])
        out.sum().backward()
        grads = [args[i].grad.numpy() for i in case.diff if isinstance(i, int)]
        results.append((module, out.detach().numpy(), grads))
    (t_mod, t_out, t_grads), (f_mod, f_out, f_grads) = results
    _close(f_out, t_out, F64, f"{cls_name} value")
    for fgr, tgr in zip(f_grads, t_grads, strict=True):
        _close(fgr, tgr, F64, f"{cls_name} gradient")
    assert repr(f_mod) == repr(t_mod)
    assert list(f_mod.state_dict()) == list(t_mod.state_dict())
    for key, value in t_mod.state_dict().items():
        _close(f_mod.state_dict()[key].numpy(), value.numpy(), F64, key)


def test_module_buffers_and_attributes():
    w = fg.tensor([1.0, 2.0, 3.0])
    m = fg.nn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.1)
    assert [name for name, _ in m.named_buffers()] == ["weight"]
    assert (m.ignore_index, m.label_smoothing, m.reduction) == (1, 0.1, "mean")
    assert list(fg.nn.CrossEntropyLoss().state_dict()) == []  # None buffers are left out
    b = fg.nn.BCEWithLogitsLoss(weight=fg.ones(3), pos_weight=fg.ones(3))
    assert list(b.state_dict()) == ["weight", "pos_weight"]
    assert repr(b) == "BCEWithLogitsLoss()"
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        fg.nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        fg.nn.TripletMarginLoss(margin=0.0)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert fg.nn.MSELoss(size_average=False).reduction == "sum"


# --- behaviour: errors, legacy arguments, stability, names --------------------------


def test_class_index_errors_follow_pytorch():
    x = fg.randn(3, 4, requires_grad=True)
    with pytest.raises(IndexError, match=r"cross_entropy: Target 7 is out of bounds"):
        F.cross_entropy(x, fg.tensor([0, 7, 1]))
    with pytest.raises(IndexError, match=r"nll_loss: Target -1 is out of bounds"):
        F.nll_loss(x, fg.tensor([0, -1, 1]))
    with pytest.raises(IndexingError, match="Target 4 is out of bounds"):
        F.cross_entropy(np.zeros((3, 4)), np.array([4, 0, 0]))  # arrays too
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(x, fg.tensor([0, 1, 2], dtype=fg.int32))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target"):
        F.cross_entropy(x, fg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 5\], got \[2, 4\]"):
        F.nll_loss(fg.randn(2, 3, 5), fg.zeros(2, 4, dtype=fg.int64))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 4"):
        F.cross_entropy(x, fg.tensor([0, 1, 2]), weight=fg.ones(3))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(x, fg.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="Expected floating point type for target"):
        F.cross_entropy(x, fg.zeros(3, 4, dtype=fg.int64))
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.multi_margin_loss(x, fg.tensor([0, 5, 1]))
    # ignore_index may be out of range itself
    assert np.isfinite(F.cross_entropy(x, fg.tensor([0, 255, 1]), ignore_index=255).item())


def test_other_errors_follow_pytorch():
    x = fg.rand(3)
    for fn in (F.mse_loss, F.l1_loss, F.binary_cross_entropy, F.soft_margin_loss):
        with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
            fn(x, x, reduction="foo")
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.kl_div(x, x, reduction="batchsum")
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(x + 1.0, x)
    with pytest.raises(ValueError, match=r"Using a target size \(\[3, 1\]\)"):
        F.binary_cross_entropy(x, x.reshape(3, 1))
    with pytest.raises(ValueError, match=r"Target size \(\[3, 1\]\) must be the same"):
        F.binary_cross_entropy_with_logits(x, x.reshape(3, 1))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(x, x.double())
    with pytest.raises(RuntimeError, match="does not support negative values for beta"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(RuntimeError, match="does not support non-positive values for delta"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, x, -1.0)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(fg.rand(3, 4), fg.rand(3, 4), fg.ones(2, 4))
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(x, x, x, margin=0.0)
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(x, x, x.reshape(3, 1))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(x, x, fg.ones(3))
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        F.mse_loss(x, x, weight=fg.ones(2))
    with pytest.raises(RuntimeError, match="expected a floating-point tensor"):
        F.mse_loss(fg.arange(3), fg.arange(3))
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 2"):
        F.ctc_loss(fg.zeros(2, 1, 3), fg.tensor([[1]]), [3], [1])
    with pytest.raises(IndexError, match="ctc_loss: Target 3 is out of bounds"):
        F.ctc_loss(fg.zeros(2, 1, 3), fg.tensor([[3]]), [2], [1])
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(x, x.reshape(3, 1))


@pytest.mark.parametrize(
    ("size_average", "reduce", "expected"),
    [
        (None, None, "mean"),
        (True, None, "mean"),
        (False, None, "sum"),
        (None, False, "none"),
        (False, False, "none"),
        (True, True, "mean"),
    ],
)
def test_legacy_size_average_and_reduce(size_average, reduce, expected):
    x, t = fg.randn(2, 3), fg.randn(2, 3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = F.mse_loss(x, t, size_average=size_average, reduce=reduce)
    want = F.mse_loss(x, t, reduction=expected)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    legacy = [
        w for w in seen if "size_average and reduce args will be deprecated" in str(w.message)
    ]
    assert len(legacy) == (0 if size_average is None and reduce is None else 1)
    if legacy:
        assert f"reduction='{expected}'" in str(legacy[0].message)


def test_stable_at_extreme_logits():
    x = fg.tensor([[1000.0, -1000.0, 0.0]], requires_grad=True)
    loss = F.cross_entropy(x, fg.tensor([1]))
    loss.backward()
    assert loss.item() == pytest.approx(2000.0)
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, -1.0, 0.0]], atol=1e-6)
    z = fg.tensor([200.0, -200.0], requires_grad=True)
    bce = F.binary_cross_entropy_with_logits(z, fg.tensor([0.0, 1.0]), reduction="none")
    np.testing.assert_allclose(bce.detach().numpy(), [200.0, 200.0])
    bce.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [1.0, -1.0])
    # probabilities of exactly 0 and 1: each log is clamped at -100, as in PyTorch
    p = fg.tensor([0.0, 1.0])
    np.testing.assert_allclose(
        F.binary_cross_entropy(p, fg.tensor([1.0, 0.0]), reduction="none").numpy(), [100.0, 100.0]
    )


def test_all_targets_ignored_give_nan_as_pytorch():
    x = fg.randn(2, 3, requires_grad=True)
    t = fg.tensor([-100, -100])
    assert np.isnan(F.cross_entropy(x, t).item())
    assert F.cross_entropy(x, t, reduction="sum").item() == 0.0


def test_functional_style_on_nodes_and_higher_order():
    x = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    idx = np.array([2, 0])

    def loss(x):
        return F.cross_entropy(x, idx, label_smoothing=0.1)

    xt = torch.tensor(x, requires_grad=True)
    (g,) = torch.autograd.grad(
        TF.cross_entropy(xt, torch.tensor(idx), label_smoothing=0.1), xt, create_graph=True
    )
    hess_t = np.stack(
        [
            torch.autograd.grad(g.flatten()[i], xt, retain_graph=True)[0].numpy().ravel()
            for i in range(6)
        ]
    )
    np.testing.assert_allclose(fg.grad(loss)(x), g.detach().numpy(), **F64)
    np.testing.assert_allclose(fg.hessian(loss)(x).reshape(6, 6), hess_t, **F64)
    # a node in, a node out
    node = fg.leaf(x)
    assert isinstance(F.mse_loss(node, np.zeros_like(x)), fg.Node)


def test_grad_fn_and_next_functions():
    x = fg.randn(3, 4, requires_grad=True)
    y = x * 2.0
    loss = F.mse_loss(y, fg.zeros(3, 4))
    assert loss.grad_fn is not None
    out = F.cross_entropy(y, fg.tensor([0, 1, 2]), reduction="none")
    assert out.requires_grad and tuple(out.shape) == (3,)


def test_no_grad_gives_plain_tensors():
    x = fg.randn(3, 4, requires_grad=True)
    with fg.no_grad():
        loss = F.cross_entropy(x, fg.tensor([0, 1, 2]))
    assert loss.grad_fn is None and not loss.requires_grad


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda F, x, c: F.mse_loss(x, x.detach() * 0.5), "MseLossBackward0"),
        (
            lambda F, x, c: F.smooth_l1_loss(x, x.detach() * 0.5, reduction="none"),
            "SmoothL1LossBackward0",
        ),
        (lambda F, x, c: F.huber_loss(x, x.detach() * 0.5, reduction="sum"), "HuberLossBackward0"),
        (lambda F, x, c: F.cross_entropy(x, c), "NllLossBackward0"),
        (lambda F, x, c: F.nll_loss(x, c, reduction="none"), "NllLossBackward0"),
        (lambda F, x, c: F.soft_margin_loss(x, x.detach().sign()), "SoftMarginLossBackward0"),
    ],
)
def test_grad_fn_names_are_pytorchs(call, name):
    x = np.random.default_rng(0).normal(size=(3, 4))
    c = np.array([0, 3, 1])
    tx, fx = torch.tensor(x, requires_grad=True), fg.tensor(x, requires_grad=True)
    t_out = call(TF, tx, torch.tensor(c))
    f_out = call(F, fx, fg.tensor(c))
    assert t_out.grad_fn.name() == f_out.grad_fn.name() == name
    # as in the blitz: the loss's next function is the layer that made the input
    assert type(f_out.grad_fn.next_functions[0][0]).__name__ in (
        "AccumulateGrad",
        "LogSoftmaxBackward0",
    )


def test_nll_loss_spatial_grad_fn():
    x = fg.randn(2, 3, 4, 5, requires_grad=True)
    out = F.nll_loss(x, fg.zeros(2, 4, 5, dtype=fg.int64))
    assert out.grad_fn.name() == "NllLoss2DBackward0"


# --- CTC -----------------------------------------------------------------------------------


@given(data=st.data())
def test_ctc_loss_matches_torch(data):
    rng = _rng(data)
    n_time = data.draw(st.integers(1, 6), label="T")
    batch = data.draw(st.integers(1, 3), label="N")
    n_classes = data.draw(st.integers(2, 4), label="C")
    blank = data.draw(st.sampled_from([0, n_classes - 1]), label="blank")
    max_len = data.draw(st.integers(0, 3), label="S")
    labels = [c for c in range(n_classes) if c != blank]
    targets = np.asarray(rng.choice(labels, size=(batch, max(max_len, 1)))).astype(np.int64)
    in_lens = [int(v) for v in rng.integers(1, n_time + 1, size=batch)]
    tgt_lens = [int(v) for v in rng.integers(0, max_len + 1, size=batch)]
    reduction = data.draw(st.sampled_from(REDUCTIONS), label="reduction")
    zero_infinity = data.draw(st.booleans(), label="zero_infinity")
    concatenated = data.draw(st.booleans(), label="concatenated")
    x = np.asarray(rng.normal(size=(n_time, batch, n_classes)))
    outs = []
    for lib, fn in ((torch, TF.ctc_loss), (fg, F.ctc_loss)):
        logits = lib.tensor(x, requires_grad=True)
        t = targets
        if concatenated:
            t = np.concatenate([targets[n, : tgt_lens[n]] for n in range(batch)]).astype(np.int64)
        out = fn(
            logits.log_softmax(2),
            lib.tensor(t),
            in_lens,
            tgt_lens,
            blank=blank,
            reduction=reduction,
            zero_infinity=zero_infinity,
        )
        value = out.detach().numpy()
        if np.isfinite(value).all():
            out.sum().backward()  # gradients with respect to the logits (see ctc_loss's note)
        outs.append((value, None if logits.grad is None else logits.grad.numpy()))
    (t_val, t_grad), (f_val, f_grad) = outs
    np.testing.assert_allclose(f_val, t_val, **F64)
    if t_grad is not None:
        np.testing.assert_allclose(f_grad, t_grad, **F64)


def test_ctc_unbatched_and_module():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 4))
    tx, fx = torch.tensor(x, requires_grad=True), fg.tensor(x, requires_grad=True)
    want = TF.ctc_loss(tx.log_softmax(1), torch.tensor([1, 2]), torch.tensor(5), torch.tensor(2))
    got = F.ctc_loss(fx.log_softmax(1), fg.tensor([1, 2]), fg.tensor(5), fg.tensor(2))
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-10)
    module = fg.nn.CTCLoss(blank=0, reduction="sum")
    assert repr(module) == "CTCLoss()"
    out = module(fx.log_softmax(1)[:, None], fg.tensor([[1, 2]]), [5], [2])
    np.testing.assert_allclose(out.item(), want.item() * 2, rtol=1e-10)  # sum, not mean / 2
