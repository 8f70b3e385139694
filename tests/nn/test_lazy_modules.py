"""Lazy modules (`nn.LazyLinear`, `LazyConv*`, `LazyConvTranspose*`, `LazyBatchNorm*`, `LazyInstanceNorm*`) against PyTorch 2.13.

Each check builds the same lazy module in both libraries and compares what a
user sees: classes, reprs and state dict keys before and after the first
call, the shapes inferred, outputs and gradients given copied weights, the
state dicts moving both ways, and the errors.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from scipy import stats

import funcgrad as fg
from funcgrad.nn.parameter import is_lazy
from tests.references import requires

torch = requires("torch")

RNG = np.random.default_rng(12)

# name -> (constructor args, kwargs, input shape)
CASES = {
    "LazyLinear": ((5,), {}, (4, 7)),
    "LazyLinear_nobias_3d": ((3,), {"bias": False}, (2, 4, 6)),
    "LazyConv1d": ((4, 3), {"stride": 2, "padding": 1}, (2, 3, 9)),
    "LazyConv1d_unbatched": ((4, 3), {}, (3, 9)),
    "LazyConv2d": ((6, 3), {"groups": 2, "padding": "same"}, (2, 4, 7, 7)),
    "LazyConv2d_reflect": ((2, (3, 2)), {"padding": 1, "padding_mode": "reflect"}, (1, 3, 6, 5)),
    "LazyConv3d": ((2, 2), {"bias": False}, (1, 3, 4, 4, 4)),
    "LazyConvTranspose1d": ((4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5)),
    "LazyConvTranspose2d": ((4, 2), {"groups": 2, "dilation": 2}, (1, 6, 4, 4)),
    "LazyConvTranspose3d": ((2, 2), {}, (1, 3, 2, 3, 2)),
    "LazyBatchNorm1d": ((), {}, (6, 4)),
    "LazyBatchNorm1d_3d": ((), {"momentum": None}, (5, 3, 4)),
    "LazyBatchNorm2d": ((), {"affine": False}, (3, 2, 4, 4)),
    "LazyBatchNorm3d": ((), {"track_running_stats": False}, (2, 3, 2, 2, 2)),
    "LazyInstanceNorm1d": ((), {}, (2, 3, 6)),
    "LazyInstanceNorm2d": ((), {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    "LazyInstanceNorm3d": ((), {"bias": False}, (2, 3, 2, 3, 2)),
}


def _cls(name: str) -> str:
    return name.split("_")[0]


def _make(lib, name, dtype=None):
    args, kwargs, _ = CASES[name]
    if dtype is not None:
        kwargs = {**kwargs, "dtype": dtype}
    return getattr(lib.nn, _cls(name))(*args, **kwargs)


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else np.asarray(t.detach())


def _copy_params(src, dst):
    """Copy torch's values into funcgrad's module (same keys), in place."""
    dst.load_state_dict({k: _np(v) for k, v in src.state_dict().items()})


@pytest.mark.parametrize("name", list(CASES))
def test_before_and_after_the_first_call_as_pytorch(name):
    x = RNG.standard_normal(CASES[name][2])
    th, fm = _make(torch, name), _make(fg, name)
    assert repr(fm) == repr(th)
    assert type(fm).__name__ == type(th).__name__ == _cls(name)
    assert fm.has_uninitialized_params() == th.has_uninitialized_params()
    assert list(fm.state_dict()) == list(th.state_dict())
    assert [n for n, _ in fm.named_parameters()] == [n for n, _ in th.named_parameters()]
    kinds = {k: type(v).__name__ for k, v in th.state_dict().items()}
    assert {k: type(v).__name__ for k, v in fm.state_dict().items()} == kinds
    th(torch.tensor(x, dtype=torch.float32))
    fm(fg.tensor(x, dtype=fg.float32))
    # the module became the eager class, and prints and saves as PyTorch's
    assert type(fm) is getattr(fg.nn, type(th).__name__)
    assert repr(fm) == repr(th)
    assert not any(is_lazy(v) for v in (*fm.parameters(), *fm.buffers()))
    assert not hasattr(fm, "_initialize_hook") and not fm._forward_pre_hooks
    th_state, fg_state = th.state_dict(), fm.state_dict()
    assert list(fg_state) == list(th_state)
    for k in th_state:
        assert tuple(fg_state[k].shape) == tuple(th_state[k].shape), k
        assert str(fg_state[k].dtype).split(".")[-1] == str(th_state[k].dtype).split(".")[-1], k
        assert type(fg_state[k]).__name__ == "Tensor", k


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_and_gradients_given_copied_weights(name):
    x = RNG.standard_normal(CASES[name][2])
    th, fm = _make(torch, name, torch.float64), _make(fg, name, fg.float64)
    tx = torch.tensor(x, requires_grad=True)
    fx = fg.tensor(x, requires_grad=True)
    th(tx), fm(fx)  # materialize both (funcgrad's own init values are overwritten next)
    _copy_params(th, fm)
    t_out, f_out = th(tx), fm(fx)
    np.testing.assert_allclose(_np(f_out), _np(t_out), rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g))
    f_out.backward(fg.tensor(g))
    np.testing.assert_allclose(_np(fx.grad), _np(tx.grad), rtol=1e-10, atol=1e-12)
    for (n, tp), (_, fp) in zip(th.named_parameters(), fm.named_parameters(), strict=True):
        np.testing.assert_allclose(_np(fp.grad), _np(tp.grad), rtol=1e-10, atol=1e-12, err_msg=n)
    for (n, tb), (_, fb) in zip(th.named_buffers(), fm.named_buffers(), strict=True):
        np.testing.assert_allclose(_np(fb), _np(tb), rtol=1e-12, atol=1e-12, err_msg=n)


def test_dtype_kwarg_reaches_the_materialized_values():
    fm = fg.nn.LazyLinear(3, dtype=fg.float64)
    th = torch.nn.LazyLinear(3, dtype=torch.float64)
    assert fm.weight.dtype == np.float64
    th(torch.ones(2, 4, dtype=torch.float64))
    fm(fg.ones(2, 4, dtype=fg.float64))
    assert fm.weight.dtype == fm.bias.dtype == np.float64
    assert str(th.weight.dtype) == "torch.float64"
    bn = fg.nn.LazyBatchNorm1d(dtype=fg.float64)
    bn(fg.ones(3, 2, dtype=fg.float64))
    assert bn.running_mean.dtype == bn.running_var.dtype == bn.weight.dtype == np.float64
    assert bn.num_batches_tracked.dtype == np.int64  # as PyTorch: not the float dtype


def test_module_to_before_the_first_call_sets_the_materialized_dtype():
    th = torch.nn.LazyLinear(2).double()
    fm = fg.nn.LazyLinear(2).double()
    assert fm.has_uninitialized_params()
    th(torch.ones(1, 3, dtype=torch.float64))
    fm(fg.ones(1, 3, dtype=fg.float64))
    assert str(th.weight.dtype) == "torch.float64" and fm.weight.dtype == np.float64


def test_reset_parameters_gives_pytorchs_init_distribution():
    # LazyLinear(out) materialized with in_features=fan_in: weight and bias U(-1/sqrt(fan_in), +)
    fan_in, out = 50, 400
    fg.manual_seed(3)
    fm = fg.nn.LazyLinear(out)
    fm(fg.ones(1, fan_in))
    bound = 1 / np.sqrt(fan_in)
    w, b = _np(fm.weight).ravel(), _np(fm.bias).ravel()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert stats.kstest(w / bound, stats.uniform(-1, 2).cdf).pvalue > 1e-3
    # the same distribution after reset_parameters (fresh draws)
    fm.reset_parameters()
    w2 = _np(fm.weight).ravel()
    assert not np.array_equal(w, w2)
    assert stats.kstest(w2 / bound, stats.uniform(-1, 2).cdf).pvalue > 1e-3
    # a lazy conv: fan_in = in_channels * prod(kernel)
    conv = fg.nn.LazyConv2d(64, 3)
    conv(fg.ones(1, 8, 5, 5))
    cb = 1 / np.sqrt(8 * 9)
    cw = _np(conv.weight).ravel()
    assert np.abs(cw).max() <= cb and stats.kstest(cw / cb, stats.uniform(-1, 2).cdf).pvalue > 1e-3
    # batch norm: ones and zeros, statistics reset
    bn = fg.nn.LazyBatchNorm2d()
    bn(fg.randn(4, 3, 2, 2))
    bn.reset_parameters()
    assert _np(bn.weight).tolist() == [1, 1, 1] and _np(bn.bias).tolist() == [0, 0, 0]
    assert _np(bn.running_var).tolist() == [1, 1, 1] and int(bn.num_batches_tracked) == 0


def test_reset_parameters_before_the_first_call_does_nothing():
    fm = fg.nn.LazyLinear(3)
    fm.reset_parameters()  # as PyTorch's: no shape yet, nothing to draw
    assert fm.has_uninitialized_params()
    torch.nn.LazyLinear(3).reset_parameters()


@pytest.mark.parametrize("name", ["LazyLinear", "LazyConv2d", "LazyBatchNorm1d_3d"])
def test_state_dict_round_trips_between_pytorch_and_funcgrad(name):
    x = RNG.standard_normal(CASES[name][2])
    # PyTorch's initialized state dict into a funcgrad lazy module: materialized from its shapes
    th = _make(torch, name, torch.float64)
    th(torch.tensor(x))
    fm = _make(fg, name, fg.float64)
    result = fm.load_state_dict({k: _np(v) for k, v in th.state_dict().items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert type(fm).__name__ == _cls(name) and not fm.has_uninitialized_params()
    th.eval(), fm.eval()
    np.testing.assert_allclose(
        _np(fm(fg.tensor(x))), _np(th(torch.tensor(x))), rtol=1e-12, atol=1e-12
    )
    assert type(fm) is getattr(fg.nn, type(th).__name__)  # the first call finished the job
    # and back: funcgrad's into a PyTorch lazy module
    th2 = _make(torch, name, torch.float64)
    th2.load_state_dict({k: torch.tensor(_np(v)) for k, v in fm.state_dict().items()})
    th2.eval()
    np.testing.assert_allclose(
        _np(th2(torch.tensor(x))), _np(fm(fg.tensor(x))), rtol=1e-12, atol=1e-12
    )


def test_load_state_dict_into_a_lazy_module_as_pytorch():
    # an uninitialized state dict into an uninitialized module: nothing to load, all keys match
    fm = fg.nn.LazyLinear(3)
    result = fm.load_state_dict(fg.nn.LazyLinear(3).state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert fm.has_uninitialized_params() and type(fm).__name__ == "LazyLinear"
    # from an eager Linear: materialized; in_features is set by the first call, as in PyTorch
    lin = fg.nn.Linear(4, 3)
    fm.load_state_dict(lin.state_dict())
    assert not fm.has_uninitialized_params() and fm.in_features == 0
    assert type(fm).__name__ == "LazyLinear"
    x = fg.randn(2, 4)
    assert fg.equal(fm(x), lin(x))
    assert repr(fm) == "Linear(in_features=4, out_features=3, bias=True)"
    # a missing key: the others are still materialized, then the strict error, as PyTorch
    for lib in (torch, fg):
        m = lib.nn.LazyLinear(3)
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
            m.load_state_dict({"weight": lib.zeros(3, 4)})
        assert tuple(m.weight.shape) == (3, 4) and type(m.bias).__name__ == "UninitializedParameter"
    # a lazy state dict into an initialized module: PyTorch's RuntimeError about the shape
    for lib in (torch, fg):
        m = lib.nn.LazyLinear(3)
        m(lib.ones(1, 2))
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
            m.load_state_dict(lib.nn.LazyLinear(3).state_dict())


def test_load_state_dict_then_call_with_another_in_features_raises():
    for lib in (torch, fg):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.Linear(4, 3).state_dict())
        with pytest.raises(AssertionError, match="in_features inferred from input: 5"):
            m(lib.ones(2, 5))


def test_lazy_modules_in_a_state_dict_of_a_container():
    th = torch.nn.Sequential(torch.nn.LazyLinear(4), torch.nn.ReLU(), torch.nn.LazyLinear(2))
    fm = fg.nn.Sequential(fg.nn.LazyLinear(4), fg.nn.ReLU(), fg.nn.LazyLinear(2))
    assert list(fm.state_dict()) == list(th.state_dict())
    assert repr(fm) == repr(th)
    th(torch.ones(1, 3)), fm(fg.ones(1, 3))
    assert repr(fm) == repr(th)
    assert [tuple(p.shape) for p in fm.parameters()] == [tuple(p.shape) for p in th.parameters()]


def test_training_lazy_mlp_with_sgd_equals_pytorch():
    x = RNG.standard_normal((16, 5))
    y = RNG.standard_normal((16, 2))

    def build(lib):
        return lib.nn.Sequential(
            lib.nn.LazyLinear(8, dtype=lib.float64),
            lib.nn.ReLU(),
            lib.nn.LazyLinear(2, dtype=lib.float64),
        )

    th, fm = build(torch), build(fg)
    # the optimizers are built before the first call: materializing keeps the same objects
    t_opt = torch.optim.SGD(th.parameters(), lr=0.05, momentum=0.9)
    f_opt = fg.optim.SGD(fm.parameters(), lr=0.05, momentum=0.9)
    th(torch.tensor(x)), fm(fg.tensor(x))
    _copy_params(th, fm)
    losses = []
    for _ in range(5):
        for lib, m, opt in ((torch, th, t_opt), (fg, fm, f_opt)):
            opt.zero_grad()
            loss = ((m(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    np.testing.assert_allclose(losses[1::2], losses[0::2], rtol=1e-12)
    assert losses[-1] < losses[0]
    for (n, tp), (_, fp) in zip(th.named_parameters(), fm.named_parameters(), strict=True):
        np.testing.assert_allclose(_np(fp), _np(tp), rtol=1e-11, atol=1e-13, err_msg=n)


def test_errors_as_pytorch():
    # wrong input rank for a lazy convolution
    for lib in (torch, fg):
        with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\)"):
            lib.nn.LazyConv2d(4, 3)(lib.ones(2, 5, 5, 5, 5))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5))
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported'):
            lib.nn.LazyConvTranspose2d(4, 3, padding_mode="reflect")
    # after the first call the module is the eager class: its own shape errors
    fm = fg.nn.LazyLinear(3)
    fm(fg.ones(2, 4))
    with pytest.raises(Exception, match="cannot be multiplied"):
        fm(fg.ones(2, 5))


def test_uninitialized_values_refuse_to_be_read():
    p = fg.nn.LazyLinear(3).weight
    assert repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = p.shape
    for name in ("numel", "sum", "dim", "tolist"):
        with pytest.raises(ValueError, match=f"uninitialized parameter in {name}"):
            getattr(p, name)()
    # operations refuse as PyTorch's do, instead of computing on an empty placeholder
    ops = {
        "add": lambda lib, t: t + 1,
        "mul": lambda lib, t: t * t,
        "exp": lambda lib, t: t.exp(),
        "detach": lambda lib, t: t.detach(),
        "clone": lambda lib, t: t.clone(),
        "linear": lambda lib, t: lib.nn.functional.linear(lib.ones(1, 0), t),
        "parameters_to_vector": lambda lib, t: lib.nn.utils.parameters_to_vector([t]),
    }
    for op in ops.values():
        for lib in (torch, fg):
            with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
                op(lib, lib.nn.LazyLinear(3).weight)
    # what PyTorch allows: flags, dtype, optimizers, conversions (Module.to before the call)
    assert p.requires_grad and p.is_leaf and p.grad is None and p.dtype == np.float32
    fg.optim.Adam([p])
    assert p.double().dtype == np.float64
    b = fg.nn.LazyBatchNorm1d().running_mean
    assert repr(b) == "<UninitializedBuffer>"
    with pytest.raises(ValueError, match="uninitialized parameter in an operation"):
        b * 2
    with pytest.raises(ValueError, match="uninitialized parameter in numel"):
        b.numel()


def test_custom_lazy_module_contract():
    class NoInit(fg.nn.LazyModuleMixin, fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = fg.nn.UninitializedParameter()

        def forward(self, x):
            return x

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented"):
        NoInit()(fg.ones(1))

    class Half(NoInit):
        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module Half has not been fully initialized"):
        Half()(fg.ones(1))

    class Scale(NoInit):
        cls_to_become = None

        def initialize_parameters(self, x, *, factor=1.0):
            with fg.no_grad():
                self.w.materialize(x.shape[-1])
                self.w.fill_(factor)

        def forward(self, x, *, factor=1.0):
            return x * self.w

    s = Scale()
    out = s(fg.ones(2, 3), factor=2.0)  # keyword arguments reach initialize_parameters
    assert out.tolist() == [[2.0] * 3] * 2
    assert type(s) is Scale and not s.has_uninitialized_params()
    assert isinstance(s, fg.nn.LazyModuleMixin)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_a_lazy_module_initialize_on_their_own(how):
    fm = fg.nn.LazyLinear(3)
    c = copy.deepcopy(fm) if how == "deepcopy" else pickle.loads(pickle.dumps(fm))
    assert c.has_uninitialized_params()
    c(fg.ones(1, 2))
    assert repr(c) == "Linear(in_features=2, out_features=3, bias=True)"
    # the copy's first call removed its own hook, not the original's
    assert fm.has_uninitialized_params() and len(fm._forward_pre_hooks) == 1
    fm(fg.ones(1, 4))
    assert repr(fm) == "Linear(in_features=4, out_features=3, bias=True)"


def test_isinstance_as_pytorch():
    for name in CASES:
        eager = _cls(name)[4:]
        th, fm = _make(torch, name), _make(fg, name)
        assert isinstance(fm, getattr(fg.nn, eager)) == isinstance(th, getattr(torch.nn, eager))
        assert isinstance(fm, fg.nn.LazyModuleMixin)


def test_saved_lazy_modules_and_state_dicts_stay_uninitialized():
    import io

    # a whole lazy model through funcgrad.save / funcgrad.load
    buf = io.BytesIO()
    fg.save(fg.nn.Sequential(fg.nn.LazyLinear(3), fg.nn.LazyBatchNorm1d()), buf)
    buf.seek(0)
    loaded = fg.load(buf, weights_only=False)
    assert loaded[0].has_uninitialized_params() and loaded[1].has_uninitialized_params()
    loaded(fg.ones(2, 4))
    assert repr(loaded[0]) == "Linear(in_features=4, out_features=3, bias=True)"
    # uninitialized state dicts move between the libraries' files as PyTorch's own
    for save, load, lib in ((fg.save, torch.load, torch), (torch.save, fg.load, fg)):
        src = (fg if lib is torch else torch).nn.LazyLinear(3).state_dict()
        buf = io.BytesIO()
        save(src, buf)
        buf.seek(0)
        state = load(buf, weights_only=False)
        assert {k: type(v).__name__ for k, v in state.items()} == {
            "weight": "UninitializedParameter",
            "bias": "UninitializedParameter",
        }
        assert isinstance(state["weight"], lib.nn.UninitializedParameter)
        target = lib.nn.LazyLinear(3)
        target.load_state_dict(state)
        assert target.has_uninitialized_params()
