"""`funcgrad.compile(module)` keys its plans on the submodules' `training` flags.

Before, a module compiled and first called in evaluation mode replayed that
plan after `module.train()`: Dropout was silently skipped (found by H1,
session 12). References: the eager module, and what Dropout must give
(each entry 0 or the layer's output over 1 - p).
"""

from __future__ import annotations

import warnings

import numpy as np

import funcgrad as torch
from funcgrad import nn


def _quiet(f, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout's draws: compile runs training eagerly
        return f(x)


def _is_dropout_of(out, h, p):
    out, h = out.detach().numpy(), h.detach().numpy()
    kept = np.isclose(out, h / (1 - p), rtol=1e-6, atol=0)
    return bool(np.all(kept | (out == 0))) and bool(np.any(out == 0)) and bool(np.any(kept))


def test_train_after_eval_is_not_the_eval_plan():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(6, 40), nn.Dropout(0.5))
    c = torch.compile(m)
    x = torch.randn(5, 6)
    h = m[0](x)
    m.eval()
    for _ in range(2):  # the trace, then the plan: eager's numbers
        assert torch.equal(_quiet(c, x), h)
    m.train()
    assert _is_dropout_of(_quiet(c, x), h, 0.5)  # was h itself: the evaluation plan
    torch.manual_seed(3)
    got = _quiet(c, x)
    torch.manual_seed(3)
    assert torch.equal(got, m(x))  # training now runs eagerly: eager's draws
    m.eval()  # back: the evaluation plan again
    assert torch.equal(_quiet(c, x), h)


def test_a_submodules_flag_alone_selects_the_plan():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 40), nn.Dropout(0.5))
    c = torch.compile(m)
    x = torch.randn(3, 4)
    h = m[0](x)
    m.eval()
    assert torch.equal(_quiet(c, x), h)
    m[1].train()  # only the dropout switches
    assert _is_dropout_of(_quiet(c, x), h, 0.5)


def _slope_net():
    net = nn.Sequential(nn.Linear(3, 3), nn.LeakyReLU(0.01))
    with torch.no_grad():
        net[0].weight.copy_(torch.eye(3))
        net[0].bias.zero_()
    return net


def test_a_changed_setting_is_not_the_old_plan():
    # review R, session 12: negative_slope set after the first call was replayed at 0.01
    x = torch.tensor([[1.0, -2.0, 3.0], [-1.0, 0.5, -3.0]])
    for compiled in ("Module.compile", "funcgrad.compile"):
        net = _slope_net()
        if compiled == "Module.compile":
            net.compile()
            call = net
        else:
            call = torch.compile(net)
        assert call(x)[0, 1].item() == np.float32(-0.02)
        net[1].negative_slope = 0.5
        assert call(x)[0, 1].item() == -1.0  # eager's (and PyTorch's) number
        net[1].negative_slope = 0.01
        assert call(x)[0, 1].item() == np.float32(-0.02)


def test_a_setting_changed_at_every_call_keeps_few_plans():
    from funcgrad.nn.modules import module as module_mod

    net = _slope_net()
    c = torch.compile(net)
    x = torch.randn(2, 3)
    for k in range(3 * module_mod._MAX_MODES):
        net[1].negative_slope = 0.001 * (k + 1)
        want = torch.where(x > 0, x, x * (0.001 * (k + 1)))
        assert torch.allclose(c(x), want)
    assert len(c._by_modes) <= module_mod._MAX_MODES
