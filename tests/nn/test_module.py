"""`funcgrad.nn.Module`, `Parameter` and the containers, against PyTorch's behaviour.

The same model definition runs on both libraries (`build(nn)`), and the
observable behaviour is compared: registration, iteration order and names,
state dicts (keys, order, the errors of `load_state_dict`, non-persistent
buffers), modes, conversions, hooks and their order, and `repr`s.
"""

from __future__ import annotations

import copy
import pickle
import re
from collections import OrderedDict

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.tensors.base import _new_like
from tests.references import requires

torch = requires("torch")


def _norm(text: str) -> str:
    """PyTorch's text with funcgrad's names (`torch.Size` is `funcgrad.Size` here)."""
    return text.replace("torch.", "funcgrad.")


def build(nn, lib):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.register_buffer("steps", lib.zeros(()))
            self.register_buffer("cache", lib.ones(2), persistent=False)
            self.scale = nn.Parameter(lib.ones(1))
            self.act = nn.ReLU()

        def forward(self, x):
            return self.act(self.fc(x)) * self.scale

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Block()
            self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Tanh()])
            self.head = nn.Sequential(
                OrderedDict([("out", nn.Linear(4, 2)), ("sig", nn.Sigmoid())])
            )
            self.shared = self.head.out  # the same module twice
            self.extra = nn.ParameterDict({"b": nn.Parameter(lib.zeros(2)), "a": lib.ones(3)})
            self.plist = nn.ParameterList([lib.ones(2, 2)])
            self.register_parameter("nothing", None)

        def forward(self, x):
            x = self.first(x)
            for layer in self.layers:
                x = layer(x)
            return self.head(x)

    return Net()


@pytest.fixture
def nets():
    return build(torch.nn, torch), build(fg.nn, fg)


def test_names_and_order(nets):
    t, f = nets
    for fn in (
        lambda m: [n for n, _ in m.named_parameters()],
        lambda m: [n for n, _ in m.named_parameters(remove_duplicate=False)],
        lambda m: [n for n, _ in m.named_parameters(prefix="net", recurse=False)],
        lambda m: [n for n, _ in m.named_parameters(prefix="net")],
        lambda m: [n for n, _ in m.named_buffers()],
        lambda m: [n for n, _ in m.named_buffers(recurse=False)],
        lambda m: [n for n, _ in m.named_children()],
        lambda m: [n for n, _ in m.named_modules()],
        lambda m: [n for n, _ in m.named_modules(prefix="root")],
        lambda m: [n for n, _ in m.named_modules(remove_duplicate=False)],
        lambda m: [type(c).__name__ for c in m.children()],
        lambda m: [type(c).__name__ for c in m.modules()],
        lambda m: [tuple(p.shape) for p in m.parameters()],
        lambda m: [tuple(b.shape) for b in m.buffers()],
        lambda m: list(m.state_dict()),
        lambda m: list(m.state_dict(prefix="p.")),
        lambda m: list(m.state_dict()._metadata),
        lambda m: list(m.state_dict(keep_vars=True)),
        lambda m: sorted(k for k in dir(m) if not k.startswith("_"))[:0],
    ):
        assert fn(f) == fn(t)


def test_state_dict_values_are_detached_and_keep_vars_keeps_parameters(nets):
    _, f = nets
    sd = f.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["first.fc.weight"].requires_grad
    assert type(sd["first.fc.weight"]) is fg.Tensor
    assert f.state_dict(keep_vars=True)["first.fc.weight"] is f.first.fc.weight


def test_state_dicts_interchange_both_ways(nets):
    t, f = nets
    f.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        f(fg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5
    )
    # and back: funcgrad's tensors into PyTorch's module, through NumPy
    t2 = build(torch.nn, torch)
    t2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in f.state_dict().items()})
    np.testing.assert_allclose(
        t2(torch.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-6
    )
    # PyTorch's own tensors load directly
    f2 = build(fg.nn, fg)
    f2.load_state_dict(t.state_dict())
    np.testing.assert_array_equal(
        f2.first.fc.weight.detach().numpy(), t.first.fc.weight.detach().numpy()
    )


def test_load_keeps_parameter_objects_and_dtypes(nets):
    _, f = nets
    w = f.first.fc.weight
    f.load_state_dict({k: np.zeros(tuple(v.shape), np.float64) for k, v in f.state_dict().items()})
    assert f.first.fc.weight is w
    assert w.dtype == fg.float32 and w.requires_grad and w.is_leaf
    assert not np.any(w.detach().numpy())


def _errors(module, sd, **kw):
    with pytest.raises(RuntimeError) as info:
        module.load_state_dict(sd, **kw)
    return str(info.value)


def test_load_state_dict_errors_are_pytorchs(nets):
    t, f = nets
    sd_t = t.state_dict()
    sd_f = f.state_dict()
    # missing and unexpected keys
    for drop, add in (
        (["first.fc.bias", "head.out.weight"], {}),
        ([], {"bogus": 1, "first.zzz": 2}),
    ):
        bad_t = OrderedDict((k, v) for k, v in sd_t.items() if k not in drop)
        bad_f = OrderedDict((k, v) for k, v in sd_f.items() if k not in drop)
        for k, v in add.items():
            bad_t[k] = torch.tensor(float(v))
            bad_f[k] = fg.tensor(float(v))
        assert _errors(f, bad_f) == _errors(t, bad_t)
        assert tuple(f.load_state_dict(bad_f, strict=False)) == tuple(
            t.load_state_dict(bad_t, strict=False)
        )
    # size mismatch
    bad_t = dict(sd_t, **{"first.fc.weight": torch.zeros(2, 2)})
    bad_f = dict(sd_f, **{"first.fc.weight": fg.zeros(2, 2)})
    assert _errors(f, bad_f) == _norm(_errors(t, bad_t))
    assert _errors(f, bad_f, strict=False) == _norm(_errors(t, bad_t, strict=False))
    # not a tensor
    bad_t = dict(sd_t, **{"first.scale": "x"})
    bad_f = dict(sd_f, **{"first.scale": "x"})
    assert _errors(f, bad_f) == _errors(t, bad_t)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        f.load_state_dict([1, 2])


def test_incompatible_keys_result(nets):
    t, f = nets
    res_f = f.load_state_dict(f.state_dict())
    res_t = t.load_state_dict(t.state_dict())
    assert repr(res_f) == repr(res_t) == "<All keys matched successfully>"
    assert res_f.missing_keys == [] and res_f.unexpected_keys == []
    partial_t = t.load_state_dict({"first.steps": torch.zeros(())}, strict=False)
    partial_f = f.load_state_dict({"first.steps": fg.zeros(())}, strict=False)
    assert repr(partial_f) == repr(partial_t)
    assert partial_f.missing_keys == partial_t.missing_keys


def test_load_state_dict_assign():
    f = fg.nn.Linear(2, 3)
    w = fg.ones(3, 2)
    f.load_state_dict({"weight": w, "bias": fg.zeros(3)}, assign=True)
    assert isinstance(f.weight, fg.nn.Parameter) and f.weight.requires_grad
    np.testing.assert_array_equal(f.weight.detach().numpy(), np.ones((3, 2), np.float32))


def test_non_persistent_buffers(nets):
    t, f = nets
    assert "first.cache" not in f.state_dict()
    assert [n for n, _ in f.named_buffers()] == [n for n, _ in t.named_buffers()]
    f.first.cache = fg.zeros(2)  # reassigning keeps it a non-persistent buffer
    assert "cache" in f.first._buffers and "first.cache" not in f.state_dict()


def test_registration_rules_and_errors():
    for nn, lib in ((torch.nn, torch), (fg.nn, fg)):
        m = nn.Module()
        m.w = nn.Parameter(lib.ones(2))
        m.sub = nn.Linear(1, 1)
        m.register_buffer("b", lib.zeros(1))
        assert [n for n, _ in m.named_parameters()] == ["w", "sub.weight", "sub.bias"]
        # a plain tensor set over a parameter is refused; None is allowed
        with pytest.raises(TypeError, match="cannot assign"):
            m.w = lib.ones(2)
        m.w = None
        assert "w" in m._parameters and m.w is None
        with pytest.raises(TypeError, match="cannot assign"):
            m.sub = 3
        with pytest.raises(KeyError, match="attribute 'b' already exists"):
            m.register_parameter("b", nn.Parameter(lib.ones(1)))
        with pytest.raises(KeyError, match="contain"):
            m.register_buffer("a.b", lib.ones(1))
        with pytest.raises(KeyError, match="empty string"):
            m.add_module("", nn.ReLU())
        with pytest.raises(TypeError, match="is not a Module subclass"):
            m.add_module("x", 5)
        with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor"):
            m.register_parameter("q", _nonleaf_param(nn, lib))
        del m.sub
        assert [n for n, _ in m.named_children()] == []
        with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
            _ = m.sub
        m.plain = 3
        assert m.plain == 3 and "plain" in m.__dict__
        m.plain = nn.Parameter(lib.ones(1))  # moves from __dict__ to the parameters
        assert "plain" not in m.__dict__ and "plain" in m._parameters


def _nonleaf_param(nn, lib):
    q = nn.Parameter(lib.ones(1)) * 2
    if lib is torch:
        q.__class__ = nn.Parameter
        return q
    return _new_like(nn.Parameter, q._value, q._node)


def test_before_init_errors():
    class Bad(fg.nn.Module):
        def __init__(self):
            self.w = fg.nn.Parameter(fg.ones(1))

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Bad()


def test_parameter_class_behaviour():
    p = fg.nn.Parameter(fg.ones(2, 3))
    assert p.requires_grad and p.is_leaf and isinstance(p, fg.Tensor)
    assert repr(p) == _norm(repr(torch.nn.Parameter(torch.ones(2, 3))))
    assert repr(fg.nn.Parameter(fg.ones(2), requires_grad=False)) == repr(
        torch.nn.Parameter(torch.ones(2), requires_grad=False)
    )
    for r in (p * 2, p.detach(), p.data, p.sum(), p[0], p.T):
        assert type(r) is fg.Tensor
    (p * 2).sum().backward()
    assert type(p.grad) is fg.Tensor
    c = copy.deepcopy(p)
    assert type(c) is fg.nn.Parameter and c is not p and c.requires_grad
    assert type(pickle.loads(pickle.dumps(p))) is fg.nn.Parameter
    # made from a non-leaf: a new leaf
    x = fg.ones(2, requires_grad=True)
    q = fg.nn.Parameter(x * 3)
    assert q.is_leaf and q.grad_fn is None
    empty = fg.nn.Parameter()
    assert tuple(empty.shape) == tuple(torch.nn.Parameter().shape)


def test_uninitialized_parameter():
    p = fg.nn.UninitializedParameter()
    with pytest.raises(ValueError, match="uninitialized parameter"):
        _ = p.shape
    p.materialize((2, 3))
    assert type(p) is fg.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad


def test_train_eval_and_requires_grad(nets):
    _, f = nets
    assert all(m.training for m in f.modules())
    assert f.eval() is f
    assert not any(m.training for m in f.modules())
    f.train()
    assert all(m.training for m in f.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        f.train("yes")
    f.requires_grad_(False)
    assert not any(p.requires_grad for p in f.parameters())
    f.requires_grad_()
    assert all(p.requires_grad for p in f.parameters())


def test_zero_grad(nets):
    _, f = nets
    f(fg.ones(2, 3)).sum().backward()
    assert f.first.fc.weight.grad is not None
    f.zero_grad(set_to_none=False)
    assert f.first.fc.weight.grad is not None and not np.any(f.first.fc.weight.grad.numpy())
    f.zero_grad()
    assert all(p.grad is None for p in f.parameters())


def test_conversions():
    for nn, lib in ((torch.nn, torch), (fg.nn, fg)):
        m = nn.Linear(2, 3)
        m.register_buffer("count", lib.zeros(2, dtype=lib.int64))
        w = m.weight
        assert m.double() is m
        assert m.weight is w and m.weight.dtype == lib.float64 and m.count.dtype == lib.int64
        assert m.weight.requires_grad and m.weight.is_leaf
        m.float()
        assert m.weight.dtype == lib.float32
        m.to(lib.float64)
        assert m.bias.dtype == lib.float64
        m.half()
        assert m.weight.dtype == lib.float16
        m.to(dtype=lib.float32)
        m.cpu()
        m.to("cpu")
        assert m.weight.dtype == lib.float32
    m = fg.nn.Linear(2, 2)
    m(fg.ones(1, 2)).sum().backward()
    m.double()
    assert m.weight.grad.dtype == fg.float64
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        m.to(fg.int64)


def test_apply_get_submodule_get_parameter(nets):
    t, f = nets
    seen_t, seen_f = [], []
    t.apply(lambda m: seen_t.append(type(m).__name__))
    f.apply(lambda m: seen_f.append(type(m).__name__))
    assert seen_f == seen_t
    assert f.get_submodule("head.out") is f.head.out
    assert f.get_parameter("first.fc.weight") is f.first.fc.weight
    assert f.get_buffer("first.steps") is f.first.steps
    for target in ("first.nope", "first.fc.weight"):
        with pytest.raises(AttributeError) as ef:
            f.get_submodule(target)
        with pytest.raises(AttributeError) as et:
            t.get_submodule(target)
        assert str(ef.value) == str(et.value)
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        f.get_parameter("first.steps")


def test_repr_matches_pytorch(nets):
    t, f = nets
    assert repr(f) == _norm(repr(t))
    seq = [
        lambda nn: nn.Sequential(
            nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2, bias=False)
        ),
        lambda nn: nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()]),
        lambda nn: nn.ModuleList(),
        lambda nn: nn.ModuleDict({"a": nn.Identity(), "b": nn.Flatten()}),
        lambda nn: nn.Sequential(),
        lambda nn: nn.Unflatten(1, (2, 5)),
        lambda nn: nn.Bilinear(2, 3, 4),
    ]
    for make in seq:
        assert repr(make(fg.nn)) == repr(make(torch.nn))
    assert repr(fg.nn.ParameterList([fg.ones(2, 3)])) == _norm(
        repr(torch.nn.ParameterList([torch.ones(2, 3)]))
    )
    assert repr(fg.nn.ParameterDict({"x": fg.ones(4)})) == _norm(
        repr(torch.nn.ParameterDict({"x": torch.ones(4)}))
    )

    class WithExtra(fg.nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    assert repr(WithExtra()) == "WithExtra(\n  a=1\n  b=2\n)"


def test_sequential_container_api():
    for nn in (torch.nn, fg.nn):
        a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
        s = nn.Sequential(a, b)
        assert len(s) == 2 and s[0] is a and s[-1] is b
        assert isinstance(s[0:1], nn.Sequential) and len(s[0:1]) == 1
        s.append(c)
        assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear"]
        s.insert(1, nn.Tanh())
        assert list(s._modules) == ["0", "1", "2", "3"] and type(s[1]).__name__ == "Tanh"
        del s[1]
        assert list(s._modules) == ["0", "1", "2"] and s[1] is b
        s[1] = nn.Sigmoid()
        assert type(s[1]).__name__ == "Sigmoid"
        assert len(s + nn.Sequential(nn.ReLU())) == 4
        assert len(s * 2) == 6
        assert s.pop(0) is a and len(s) == 2
        with pytest.raises(IndexError, match="index 5 is out of range"):
            s[5]
        s.extend([nn.ReLU()])
        assert len(s) == 3


def test_modulelist_dict_and_parameter_containers():
    for nn, lib in ((torch.nn, torch), (fg.nn, fg)):
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Tanh())
        ml.extend([nn.Sigmoid()])
        ml.insert(0, nn.Identity())
        assert [type(m).__name__ for m in ml] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
        assert len(ml[1:]) == 3
        del ml[0]
        assert list(ml._modules) == ["0", "1", "2"]
        md = nn.ModuleDict([("x", nn.ReLU()), ("y", nn.Tanh())])
        md["z"] = nn.Identity()
        assert list(md.keys()) == ["x", "y", "z"] and "y" in md
        assert type(md.pop("y")).__name__ == "Tanh" and len(md) == 2
        pl = nn.ParameterList([lib.ones(1)])
        pl.append(nn.Parameter(lib.zeros(2)))
        assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
        assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
        pd = nn.ParameterDict(OrderedDict([("z", lib.ones(1)), ("a", lib.ones(2))]))
        assert list(pd.keys()) == ["z", "a"]
        pd.update({"c": lib.ones(1), "b": lib.ones(1)})
        assert list(pd.keys()) == ["z", "a", "b", "c"]
        assert [n for n, _ in pd.named_parameters()] == ["z", "a", "b", "c"]
        with pytest.raises(RuntimeError, match="ParameterDict should not be called"):
            pd(1)


def _forward_log(nn, lib):
    log = []
    m = nn.Linear(2, 2)
    h1 = m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m.register_forward_pre_hook(
        lambda mod, args, kwargs: (log.append("prekw"), (args, kwargs))[1], with_kwargs=True
    )
    m.register_forward_hook(lambda mod, args, out: log.append("fwd1"))
    m.register_forward_hook(lambda mod, args, out: out * 0, prepend=True)
    m.register_forward_hook(
        lambda mod, args, kwargs, out: log.append(("fwdkw", float(out.sum()))), with_kwargs=True
    )
    out = m(lib.ones(1, 2))
    assert float(out.sum()) == 0.0
    h1.remove()
    h1.remove()
    m(lib.ones(1, 2))
    # a pre-hook that replaces the input (one value, not a tuple)
    m2 = nn.Identity()
    m2.register_forward_pre_hook(lambda mod, args: args[0] + 1)
    log.append(float(m2(lib.zeros(1)).sum()))
    with m2.register_forward_hook(lambda mod, args, out: out * 10):
        log.append(float(m2(lib.zeros(1)).sum()))
    log.append(float(m2(lib.zeros(1)).sum()))
    return log


def test_forward_hooks_order_and_results():
    assert _forward_log(fg.nn, fg) == _forward_log(torch.nn, torch)


def _always_log(nn):
    log = []

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append("never"))
    with pytest.raises(ValueError, match="boom"):
        m(1)
    return log


def test_always_call_forward_hook_runs_on_error():
    assert _always_log(fg.nn) == _always_log(torch.nn) == ["always"]


def _backward_log(nn, lib):
    log = []

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, a, b, scale):
            return self.fc(a) * scale, (b * b).sum(1)

    torch.manual_seed(0)
    m = Two()
    m.load_state_dict(
        {
            "fc.weight": lib.tensor(np.arange(6.0).reshape(2, 3) / 7, dtype=lib.float32),
            "fc.bias": lib.tensor([0.1, -0.2]),
        }
    )

    def rounded(gs):
        return [None if g is None else np.round(g.detach().numpy(), 5).tolist() for g in gs]

    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", rounded(go))))

    def hook(mod, gi, go):
        log.append(("full", rounded(gi), rounded(go)))
        return tuple(None if g is None else g * 2 for g in gi)

    m.register_full_backward_hook(hook)
    a = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    b = lib.tensor([[0.5, -1.0]], requires_grad=True)
    o1, o2 = m(a, b, 3.0)
    (o1.sum() * 2 + o2.sum()).backward()
    log.append(("a", rounded([a.grad])))
    log.append(("b", rounded([b.grad])))
    log.append(("w", rounded([m.fc.weight.grad])))
    # an input that does not require grad: the hook fires with None, at the outputs
    m2 = nn.Linear(2, 1)
    m2.register_full_backward_hook(lambda mod, gi, go: log.append(("noin", rounded(gi))))
    with pytest.warns(UserWarning, match="Full backward hook is firing"):
        m2(lib.ones(1, 2)).sum().backward()
    return log


def test_full_backward_hooks_match_pytorch():
    assert _backward_log(fg.nn, fg) == _backward_log(torch.nn, torch)


def test_backward_hook_mixing_is_refused():
    m = fg.nn.Linear(1, 1)
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        m.register_backward_hook(lambda *a: None)


def test_state_dict_hooks_and_extra_state():
    class WithState(fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = fg.nn.Linear(1, 1)
            self.note = "hello"

        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    m = WithState()
    sd = m.state_dict()
    assert list(sd) == ["_extra_state", "fc.weight", "fc.bias"]  # its own, then children's
    sd["_extra_state"] = {"note": "changed"}
    m.load_state_dict(sd)
    assert m.note == "changed"
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append("pre"))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append("post"))
    m.register_load_state_dict_post_hook(
        lambda mod, keys: calls.append(("load", list(keys.missing_keys)))
    )
    m.state_dict()
    m.load_state_dict(
        {"fc.weight": fg.ones(1, 1), "fc.bias": fg.ones(1), "_extra_state": {"note": "x"}}
    )
    assert calls == ["pre", "post", ("load", [])]


def test_call_runs_forward_and_missing_forward_errors():
    with pytest.raises(
        NotImplementedError,
        match=re.escape('Module [Module] is missing the required "forward" function'),
    ):
        fg.nn.Module()(1)


def test_deepcopy_and_pickle_of_a_module(nets):
    _, f = nets
    g = copy.deepcopy(f)
    assert g.first.fc.weight is not f.first.fc.weight
    np.testing.assert_array_equal(
        g.first.fc.weight.detach().numpy(), f.first.fc.weight.detach().numpy()
    )
    assert g.shared is g.head.out
    seq = fg.nn.Sequential(fg.nn.Linear(2, 3), fg.nn.ReLU())
    h = pickle.loads(pickle.dumps(seq))
    assert [n for n, _ in h.named_parameters()] == [n for n, _ in seq.named_parameters()]
    np.testing.assert_array_equal(h[0].weight.detach().numpy(), seq[0].weight.detach().numpy())
    assert type(h[0].weight) is fg.nn.Parameter and h[0].weight.requires_grad


def test_parameters_train_end_to_end():
    fg.manual_seed(0)
    net = fg.nn.Sequential(fg.nn.Linear(2, 8), fg.nn.Tanh(), fg.nn.Linear(8, 1))
    x = fg.tensor(np.random.default_rng(0).standard_normal((64, 2)), dtype=fg.float32)
    y = (x[:, :1] * x[:, 1:]).detach()
    first = None
    for _ in range(200):
        net.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        with fg.no_grad():
            for p in net.parameters():
                p -= 0.1 * p.grad
        first = first if first is not None else float(loss)
    assert float(loss) < 0.5 * first
