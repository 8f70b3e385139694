"""The `Optimizer` base class behaves as PyTorch's: groups, checks, hooks, zero_grad, state dicts."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")


def _pair(*shapes, requires_grad=True):
    arrays = [np.arange(1.0, 1 + np.prod(s)).reshape(s) / 7 for s in shapes]
    return (
        [fg.tensor(a, requires_grad=requires_grad) for a in arrays],
        [torch.tensor(a, requires_grad=requires_grad) for a in arrays],
    )


def _raises_like(make_ours, make_theirs):
    """Both raise the same exception class with the same message (funcgrad's names for torch's)."""
    with pytest.raises(Exception) as theirs:
        make_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        make_ours()
    assert str(ours.value) == str(theirs.value).replace("torch.", "funcgrad.")


# --- construction and groups --------------------------------------------------------


def test_groups_take_the_defaults_they_do_not_set():
    (a, b), _ = _pair((2,), (3,))
    opt = fg.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b]  # a lone tensor becomes a list
    assert opt.param_groups[1]["momentum"] == 0.9
    assert opt.defaults["lr"] == 0.1


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam", "LBFGS"])
def test_repr_is_pytorchs(name):
    (a,), (ta,) = _pair((2,))
    assert repr(getattr(fg.optim, name)([a])) == repr(getattr(torch.optim, name)([ta]))


def test_add_param_group_extends_the_optimizer():
    (a, b), (ta, tb) = _pair((2,), (3,))
    opt, topt = fg.optim.Adam([a], lr=0.1), torch.optim.Adam([ta], lr=0.1)
    opt.add_param_group({"params": [b], "betas": (0.5, 0.6)})
    topt.add_param_group({"params": [tb], "betas": (0.5, 0.6)})
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == [
        {k: v for k, v in g.items() if k != "params"} for g in topt.param_groups
    ]


def test_construction_errors_are_pytorchs():
    (a, b), (ta, tb) = _pair((2,), (3,))
    _raises_like(lambda: fg.optim.SGD(a, lr=0.1), lambda: torch.optim.SGD(ta, lr=0.1))
    _raises_like(lambda: fg.optim.SGD([], lr=0.1), lambda: torch.optim.SGD([], lr=0.1))
    _raises_like(
        lambda: fg.optim.SGD([{"params": {a}}], lr=0.1),
        lambda: torch.optim.SGD([{"params": {ta}}], lr=0.1),
    )
    _raises_like(lambda: fg.optim.SGD([a, 1.0], lr=0.1), lambda: torch.optim.SGD([ta, 1.0], lr=0.1))
    _raises_like(lambda: fg.optim.SGD([a * 2], lr=0.1), lambda: torch.optim.SGD([ta * 2], lr=0.1))
    _raises_like(
        lambda: fg.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1),
        lambda: torch.optim.SGD([{"params": [ta]}, {"params": [ta]}], lr=0.1),
    )
    _raises_like(
        lambda: fg.optim.SGD([("a", a), b], lr=0.1),
        lambda: torch.optim.SGD([("a", ta), tb], lr=0.1),
    )
    for kwargs in (
        {"lr": -1.0},
        {"lr": 0.1, "momentum": -0.5},
        {"lr": 0.1, "weight_decay": -1.0},
        {"lr": 0.1, "nesterov": True},
        {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True},
        {"lr": 0.1, "fused": True, "foreach": True},
    ):
        _raises_like(
            lambda kw=kwargs: fg.optim.SGD([a], **kw), lambda kw=kwargs: torch.optim.SGD([ta], **kw)
        )
    for kwargs in ({"betas": (1.0, 0.9)}, {"betas": (0.9, -0.1)}, {"eps": -1.0}, {"lr": -0.1}):
        _raises_like(
            lambda kw=kwargs: fg.optim.Adam([a], **kw),
            lambda kw=kwargs: torch.optim.Adam([ta], **kw),
        )
    _raises_like(
        lambda: fg.optim.LBFGS([{"params": [a]}, {"params": [b]}]),
        lambda: torch.optim.LBFGS([{"params": [ta]}, {"params": [tb]}]),
    )


def test_a_duplicate_parameter_warns():
    (a,), _ = _pair((2,))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        fg.optim.SGD([a, a], lr=0.1)


def test_a_group_missing_a_required_option_is_refused():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1)
    opt.defaults["lr"] = fg.optim.optimizer.required
    (b,), _ = _pair((3,))
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        opt.add_param_group({"params": [b]})


def test_differentiable_steps_are_refused_with_a_pointer():
    (a,), _ = _pair((2,))
    with pytest.raises(RuntimeError, match="funcgrad.optimizers"):
        fg.optim.Adam([a], differentiable=True)


@pytest.mark.parametrize("flag", ["foreach", "fused", "capturable"])
def test_implementation_flags_are_accepted(flag):
    (a,), _ = _pair((2,))
    opt = fg.optim.Adam([a], lr=0.1, **{flag: True})
    a.grad = fg.ones(2)
    opt.step()
    assert opt.param_groups[0][flag] is True


def test_named_parameters_are_kept_in_the_state_dict():
    (a, b), (ta, tb) = _pair((2,), (3,))
    opt = fg.optim.SGD([("w", a), ("b", b)], lr=0.1)
    topt = torch.optim.SGD([("w", ta), ("b", tb)], lr=0.1)
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


# --- steps ------------------------------------------------------------------------------


def test_step_updates_leaves_in_place_without_recording():
    (a,), _ = _pair((2,))
    before = a
    opt = fg.optim.Adam([a], lr=0.1)
    (a * a).sum().backward()
    opt.step()
    assert a is before and a.is_leaf and a.requires_grad and a.grad_fn is None
    # the updated leaf is a fresh leaf of later graphs
    opt.zero_grad()
    (a * 3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])


def test_param_data_reads_the_updated_values():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.5)
    a.grad = fg.ones(2)
    opt.step()
    np.testing.assert_allclose(a.data.numpy(), np.array([1.0, 2.0]) / 7 - 0.5)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_aliases_made_before_the_step_see_it(name):
    (a,), (ta,) = _pair((2, 3))

    def aliases(x):  # .data, detach(), a basic-index view, a reshape, a view of .data
        return [x.data, x.detach(), x[1], x.view(3, 2), x.data[:, 1:]]

    before, tbefore = aliases(a), aliases(ta)
    opt = getattr(fg.optim, name)([a], lr=0.5)
    topt = getattr(torch.optim, name)([ta], lr=0.5)
    for _ in range(2):
        a.grad, ta.grad = fg.ones(2, 3, dtype=fg.float64), torch.ones(2, 3, dtype=torch.float64)
        opt.step()
        topt.step()
    for ours, theirs in zip(before, tbefore, strict=True):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(before[0].numpy(), a.detach().numpy(), rtol=0)


def test_a_modules_state_dict_taken_before_the_step_sees_it():
    torch.manual_seed(0)
    net, tnet = fg.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    net.load_state_dict({k: fg.tensor(v.detach().numpy()) for k, v in tnet.state_dict().items()})
    sd, tsd = net.state_dict(), tnet.state_dict()
    opt = fg.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1, momentum=0.9)
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3) / 12
    for _ in range(3):
        opt.zero_grad()
        topt.zero_grad()
        net(fg.tensor(x)).pow(2).sum().backward()
        tnet(torch.tensor(x)).pow(2).sum().backward()
        opt.step()
        topt.step()
    for k in tsd:
        np.testing.assert_allclose(sd[k].numpy(), tsd[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
        np.testing.assert_array_equal(sd[k].numpy(), net.state_dict()[k].numpy(), err_msg=k)


def test_a_recorded_graph_keeps_its_old_values():
    (a,), _ = _pair((2,))
    y = (a * a).sum()
    opt = fg.optim.SGD([a], lr=0.5)
    a.grad = fg.ones(2)
    opt.step()
    y.backward()  # the gradient of the graph recorded before the step: 2 * old a
    np.testing.assert_allclose(a.grad.numpy(), 1 + 2 * np.array([1.0, 2.0]) / 7)


def test_step_returns_the_closures_loss_computed_with_grad_enabled():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1)

    def closure():
        assert fg.is_grad_enabled()
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    with fg.no_grad():
        loss = opt.step(closure)
    assert float(loss) == pytest.approx(5 / 49)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    (a, b), (ta, tb) = _pair((2,), (3,))
    for params, lib in (([a, b], fg), ([ta, tb], torch)):
        (params[0] * 2).sum().backward()
        opt = lib.optim.SGD(params, lr=0.1)
        opt.zero_grad(set_to_none=set_to_none)
    assert (a.grad is None) == (ta.grad is None) == set_to_none
    if not set_to_none:
        np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    assert b.grad is None and tb.grad is None


def test_step_hooks_run_around_the_step_and_can_change_its_arguments():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1)
    calls = []

    def closure():
        calls.append("closure")
        return fg.tensor(1.0)

    def pre(optimizer, args, kwargs):
        calls.append(("pre", args, tuple(kwargs)))
        return (), {"closure": closure}

    def post(optimizer, args, kwargs):
        calls.append(("post", tuple(kwargs)))

    h1 = opt.register_step_pre_hook(pre)
    h2 = opt.register_step_post_hook(post)
    h3 = fg.optim.optimizer.register_optimizer_step_post_hook(
        lambda o, a, k: calls.append("global")
    )
    assert float(opt.step()) == 1.0
    assert calls == [("pre", (), ()), "closure", ("post", ("closure",)), "global"]
    for h in (h1, h2, h3):
        h.remove()
    calls.clear()
    opt.step()
    assert calls == []


def test_a_pre_hook_returning_something_else_is_refused():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()


# --- state dicts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("SGD", {"lr": 0.1}),
        ("Adam", {"amsgrad": True}),
        ("AdamW", {}),
        ("RMSprop", {"momentum": 0.9, "centered": True}),
        ("Adagrad", {}),
        ("Adadelta", {}),
        ("Adamax", {}),
        ("NAdam", {}),
        ("RAdam", {}),
    ],
)
def test_state_dict_layout_is_pytorchs(name, kwargs):
    (a, b), (ta, tb) = _pair((2,), (3,))
    opt = getattr(fg.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], **kwargs)
    topt = getattr(torch.optim, name)([{"params": [ta]}, {"params": [tb], "lr": 0.5}], **kwargs)
    for x, tx in ((a, ta), (b, tb)):
        x.grad, tx.grad = fg.ones_like(x), torch.ones_like(tx)
    opt.step()
    topt.step()
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert list(sd["state"]) == list(tsd["state"])
    for i in tsd["state"]:
        assert list(sd["state"][i]) == list(tsd["state"][i])
        for key, tv in tsd["state"][i].items():
            v = sd["state"][i][key]
            assert isinstance(v, fg.Tensor)
            assert v.dtype == tv.numpy().dtype and tuple(v.shape) == tuple(tv.shape), key
            np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-6)


def test_state_dict_tensors_are_live_and_load_copies_them():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1, momentum=0.9)
    a.grad = fg.ones(2)
    opt.step()
    sd = opt.state_dict()
    snapshot = copy.deepcopy(sd)
    opt.step()
    buf = sd["state"][0]["momentum_buffer"]
    np.testing.assert_allclose(buf.numpy(), [1.9, 1.9])  # the optimizer's own tensor
    np.testing.assert_allclose(snapshot["state"][0]["momentum_buffer"].numpy(), [1.0, 1.0])
    other = fg.optim.SGD([a], lr=0.1, momentum=0.9)
    other.load_state_dict(snapshot)
    other.step()
    np.testing.assert_allclose(snapshot["state"][0]["momentum_buffer"].numpy(), [1.0, 1.0])


def test_load_state_dict_casts_to_the_parameters_dtype_but_keeps_step():
    a = fg.tensor([1.0, 2.0], dtype=fg.float64, requires_grad=True)
    opt = fg.optim.Adam([a])
    a.grad = fg.ones(2, dtype=fg.float64)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    other = fg.optim.Adam([a])
    other.load_state_dict(sd)
    assert other.state[a]["exp_avg"].dtype == np.float64
    assert other.state[a]["step"].dtype == np.float32


def test_load_state_dict_checks_the_groups_as_pytorch():
    (a, b), (ta, tb) = _pair((2,), (3,))
    sd = fg.optim.SGD([a, b], lr=0.1).state_dict()
    tsd = torch.optim.SGD([ta, tb], lr=0.1).state_dict()
    _raises_like(
        lambda: fg.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd),
        lambda: torch.optim.SGD([{"params": [ta]}, {"params": [tb]}], lr=0.1).load_state_dict(tsd),
    )
    _raises_like(
        lambda: fg.optim.SGD([a], lr=0.1).load_state_dict(sd),
        lambda: torch.optim.SGD([ta], lr=0.1).load_state_dict(tsd),
    )


def test_loaded_options_replace_the_groups():
    (a,), _ = _pair((2,))
    sd = fg.optim.Adam([a], lr=0.5, betas=(0.1, 0.2)).state_dict()
    opt = fg.optim.Adam([a])
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["betas"] == (0.1, 0.2)
    assert opt.param_groups[0]["params"] == [a]


def test_a_state_dict_pickles():
    (a,), _ = _pair((2,))
    opt = fg.optim.Adam([a])
    a.grad = fg.ones(2)
    opt.step()
    sd = pickle.loads(pickle.dumps(opt.state_dict()))
    np.testing.assert_allclose(sd["state"][0]["exp_avg"].numpy(), [0.1, 0.1])


def test_state_dict_hooks():
    (a,), _ = _pair((2,))
    opt = fg.optim.SGD([a], lr=0.1)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load-pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load-post"))
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert seen == ["pre", "load-pre", "load-post"]
