"""`nn.Module.compile` (PyTorch 2.13's): the forward compiled in place with `funcgrad.compile`.

Checked: what PyTorch's `Module.compile` keeps (return value, class, repr,
state dict keys, errors), that calls afterwards go through the compiled plan
(the Python forward runs once per signature), that results equal the eager
module's bit for bit and gradients to 1 ulp, that training equals PyTorch's,
and the cases where a plan must not be replayed (train/eval switch,
in-place buffer updates, hooks).
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")


@pytest.fixture(autouse=True)
def _torch_distributions_validation_kept():
    # PyTorch's Module.compile imports torch._dynamo, which switches off
    # torch.distributions' default argument validation for the whole process: the
    # distributions tests that compare funcgrad's errors with PyTorch's then failed
    # whenever they ran after this file in the same worker
    saved = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(saved)


RNG = np.random.default_rng(21)


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else np.asarray(t.detach())


def _mlp(lib, dtype):
    return lib.nn.Sequential(
        lib.nn.Linear(5, 8, dtype=dtype),
        lib.nn.Tanh(),
        lib.nn.Linear(8, 3, dtype=dtype),
    )


class CountingNet(fg.nn.Module):
    """A forward with a Python side effect: it shows when the Python forward runs."""

    def __init__(self):
        super().__init__()
        self.fc = fg.nn.Linear(4, 2, dtype=fg.float64)
        self.calls = 0

    def forward(self, x, scale=1.0):
        self.calls += 1
        return (self.fc(x).sin() * scale).sum(-1)


def _signatures(module):
    """How many signatures the module's compiled forward traced (over its modes)."""
    return sum(c._jitted.cache_info()["signatures"] for c in module.forward.by_modes.values())


def _assert_within_ulps(a, b, ulps=1):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    assert np.all(np.abs(a - b) <= ulps * spacing), np.max(np.abs(a - b) / spacing)


def test_compile_keeps_the_module_as_pytorch_does():
    th, fm = _mlp(torch, torch.float32), _mlp(fg, fg.float32)
    assert th.compile() is None and fm.compile() is None
    assert type(fm) is fg.nn.Sequential and repr(fm) == repr(th)
    assert list(fm.state_dict()) == list(th.state_dict())
    assert [n for n, _ in fm.named_parameters()] == [n for n, _ in th.named_parameters()]


def test_compile_arguments_are_checked_as_pytorch():
    for lib in (torch, fg):
        with pytest.raises(TypeError):
            lib.nn.Linear(2, 2).compile(True)
        with pytest.raises(TypeError, match="foo"):
            lib.nn.Linear(2, 2).compile(foo=1)
    with pytest.raises(TypeError, match="funcgrad.nn.Module.compile"):
        fg.nn.Linear(2, 2).compile(fullgraph=True, foo=1)
    # PyTorch's keywords are accepted
    fg.nn.Linear(2, 2).compile(fullgraph=True, dynamic=False, mode="max-autotune", backend="x")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_results_and_gradients_equal_eager(dtype):
    fdt = fg.float32 if dtype == np.float32 else fg.float64
    fm = _mlp(fg, fdt)
    ref = copy.deepcopy(fm)
    fm.compile()
    for shape in [(7, 5), (7, 5), (2, 5), (7, 5)]:  # a new signature, then back to the first
        x = RNG.standard_normal(shape).astype(dtype)
        ex, cx = fg.tensor(x, requires_grad=True), fg.tensor(x, requires_grad=True)
        e_out, c_out = ref(ex), fm(cx)
        assert c_out.grad_fn is not None
        np.testing.assert_array_equal(_np(c_out), _np(e_out))  # bit for bit
        g = RNG.standard_normal(tuple(e_out.shape)).astype(dtype)
        ref.zero_grad(), fm.zero_grad()
        e_out.backward(fg.tensor(g))
        c_out.backward(fg.tensor(g))
        _assert_within_ulps(_np(cx.grad), _np(ex.grad))
        for (n, ep), (_, cp) in zip(ref.named_parameters(), fm.named_parameters(), strict=True):
            assert cp.grad is not None, n
            _assert_within_ulps(_np(cp.grad), _np(ep.grad))


def test_calls_go_through_the_compiled_plan():
    net = CountingNet()
    eager = CountingNet()
    eager.load_state_dict(net.state_dict())
    net.compile()
    x = fg.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    outs = [net(x) for _ in range(4)]
    assert net.calls == 1  # traced once, replayed three times
    for out in outs:
        np.testing.assert_array_equal(_np(out), _np(eager(x)))
    net(x, scale=2.0)  # a new static argument: a new trace
    assert net.calls == 2
    net(x, scale=2.0)
    assert net.calls == 2
    net.compile(disable=True)  # eager again
    net(x)
    net(x)
    assert net.calls == 4


def test_parameters_updated_in_place_are_read_by_the_plan():
    fm = _mlp(fg, fg.float64)
    ref = copy.deepcopy(fm)
    fm.compile()
    x = fg.tensor(RNG.standard_normal((4, 5)))
    fm(x)
    with fg.no_grad():
        for p, q in zip(fm.parameters(), ref.parameters(), strict=True):
            p.mul_(0.5)
            q.mul_(0.5)
    np.testing.assert_array_equal(_np(fm(x)), _np(ref(x)))


def test_training_equals_pytorch():
    x = RNG.standard_normal((16, 5))
    y = RNG.standard_normal((16, 3))
    th, fm = _mlp(torch, torch.float64), _mlp(fg, fg.float64)
    fm.load_state_dict({k: _np(v) for k, v in th.state_dict().items()})
    fm.compile()
    t_opt = torch.optim.SGD(th.parameters(), lr=0.1, momentum=0.9)
    f_opt = fg.optim.SGD(fm.parameters(), lr=0.1, momentum=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no eager fallback
        for _ in range(5):
            for lib, m, opt in ((torch, th, t_opt), (fg, fm, f_opt)):
                opt.zero_grad()
                loss = ((m(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
                loss.backward()
                opt.step()
    for (n, tp), (_, fp) in zip(th.named_parameters(), fm.named_parameters(), strict=True):
        np.testing.assert_allclose(_np(fp), _np(tp), rtol=1e-11, atol=1e-13, err_msg=n)
    assert _signatures(fm) == 1


def test_a_lazy_module_compiled_before_its_first_call():
    x = fg.tensor(RNG.standard_normal((3, 6)))
    fm = fg.nn.Sequential(fg.nn.LazyLinear(4, dtype=fg.float64), fg.nn.ReLU())
    fm.compile()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the first call materializes eagerly, the next ones compile
        out = fm(x)
        assert repr(fm[0]) == "Linear(in_features=6, out_features=4, bias=True)"
        ref = fg.nn.Sequential(fg.nn.Linear(6, 4, dtype=fg.float64), fg.nn.ReLU())
        ref.load_state_dict(fm.state_dict())
        np.testing.assert_array_equal(_np(out), _np(ref(x)))
        np.testing.assert_array_equal(_np(fm(x)), _np(ref(x)))
        np.testing.assert_array_equal(_np(fm(x)), _np(ref(x)))
    assert _signatures(fm) == 1
    lazy = fg.nn.LazyLinear(2, dtype=fg.float64)
    lazy.compile()
    lazy(x).sum().backward()  # the hook materializes, then the compiled forward runs
    assert type(lazy) is fg.nn.Linear and lazy.weight.grad.shape == (2, 6)


def test_train_eval_switch_is_part_of_the_signature():
    x = fg.tensor(RNG.standard_normal((6, 4)))
    fm = fg.nn.Sequential(fg.nn.Linear(4, 4, dtype=fg.float64), fg.nn.Dropout(0.5))
    fm.compile()
    fm.eval()
    evaluated = fm(x)
    np.testing.assert_array_equal(_np(evaluated), _np(fm[0](x)))
    fm.train()
    with pytest.warns(RuntimeWarning, match="runs eagerly"):  # dropout's draws: eager
        trained = fm(x)
    kept = _np(fm[0](x)) * 2
    t = _np(trained)
    assert np.all((t == 0) | (t == kept)) and 0 < np.count_nonzero(t) < t.size
    fg.manual_seed(5)
    again = fm(x)  # eager from now on: the generator moves as an eager call moves it
    fg.manual_seed(5)
    expected = fg.nn.functional.dropout(fm[0](x), 0.5, training=True)
    np.testing.assert_array_equal(_np(again), _np(expected))
    fm.eval()
    np.testing.assert_array_equal(_np(fm(x)), _np(evaluated))


def test_batch_norm_buffers_and_modes():
    x = fg.tensor(RNG.standard_normal((8, 3)))
    fm = fg.nn.BatchNorm1d(3, dtype=fg.float64)
    ref = copy.deepcopy(fm)
    fm.compile()
    fm.eval(), ref.eval()
    np.testing.assert_array_equal(_np(fm(x)), _np(ref(x)))  # running statistics: compiled
    fm.train(), ref.train()
    with pytest.warns(RuntimeWarning, match="runs eagerly"):  # updates its buffers in place
        out = fm(x)
    np.testing.assert_array_equal(_np(out), _np(ref(x)))
    np.testing.assert_array_equal(_np(fm.running_mean), _np(ref.running_mean))
    assert int(fm.num_batches_tracked) == int(ref.num_batches_tracked) == 1


def test_hooks_run_on_every_call_around_the_compiled_forward():
    net = CountingNet()
    eager = CountingNet()
    eager.load_state_dict(net.state_dict())
    seen = []
    for m in (net, eager):
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m.register_forward_hook(lambda mod, args, out: seen.append(out.shape) or out + 1)
    net.compile()
    x = fg.tensor(RNG.standard_normal((3, 4)))
    for _ in range(3):
        np.testing.assert_array_equal(_np(net(x)), _np(eager(x)))
    assert len(seen) == 6 and net.calls == 1  # the hooks ran each call, the forward once


def test_no_grad_calls_and_copies():
    fm = _mlp(fg, fg.float64)
    fm.compile()
    x = fg.tensor(RNG.standard_normal((2, 5)))
    with fg.no_grad():
        out = fm(x)
    assert out.grad_fn is None and not out.requires_grad
    for clone in (copy.deepcopy(fm), pickle.loads(pickle.dumps(fm))):
        assert "forward" not in vars(clone)  # copies are eager, as PyTorch's drop the compiled call
        np.testing.assert_array_equal(_np(clone(x)), _np(out))


def test_outside_the_contract_runs_eagerly_with_a_warning():
    class Reads(fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = fg.nn.Linear(2, 2, dtype=fg.float64)

        def forward(self, x):
            y = self.fc(x)
            return y * 2 if y.sum().item() > 0 else y * 3

    fm = Reads()
    fm.compile()
    x = fg.tensor(RNG.standard_normal((3, 2)))
    with pytest.warns(RuntimeWarning, match="Reads.forward runs eagerly"):
        out = fm(x)
    y = fm.fc(x)
    expected = y * 2 if y.sum().item() > 0 else y * 3
    np.testing.assert_array_equal(_np(out), _np(expected))
    np.testing.assert_array_equal(_np(fm(-x)), _np(fm.fc(-x) * (2 if fm.fc(-x).sum() > 0 else 3)))


def test_a_mode_that_runs_eagerly_leaves_the_other_compiled():
    class Net(CountingNet):
        def __init__(self):
            super().__init__()
            self.drop = fg.nn.Dropout(0.5)

        def forward(self, x, scale=1.0):
            return self.drop(super().forward(x, scale))

    net = Net()
    net.compile()
    x = fg.tensor(RNG.standard_normal((3, 4)))
    net.eval()
    evaluated = net(x)
    net.train()
    with pytest.warns(RuntimeWarning, match="Net.forward runs eagerly"):
        net(x)
    calls = net.calls
    net(x)
    assert net.calls == calls + 1  # training mode: eager, each call
    net.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            np.testing.assert_array_equal(_np(net(x)), _np(evaluated))
    assert net.calls == calls + 1  # evaluation mode: still the compiled plan
    flags = sorted(tuple(v for v in key if type(v) is bool) for key in net.forward.by_modes)
    assert flags == [(False,) * 3, (True,) * 3]  # Net, fc, drop: one plan per mode
