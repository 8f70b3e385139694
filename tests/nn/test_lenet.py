"""The 60-minute blitz's "Neural Networks" page, on funcgrad with only the import changed.

`blitz(torch, draws)` is the page's code (LeNet: conv1 6x5x5, conv2
16x5x5, fc 120/84/10, `F.max_pool2d`, `F.relu`, `torch.flatten`,
`net.zero_grad()`, `out.backward(torch.randn(1, 10))`, `MSELoss`, the
manual SGD update through `.data`), with the page's `torch.randn` draws
passed in so both libraries see the same numbers, and the network's
initial parameters taken from PyTorch's (through `state_dict`, as NumPy).
Everything it prints or computes is compared: outputs, the loss, the
gradients of every parameter, the parameters after the update.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
from tests.references import requires

torch = requires("torch")


def blitz(torch, draws, state=None):  # noqa: C901 - the page's code, as written there
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()  # noqa: UP008 - the page writes it so
            # 1 input image channel, 6 output channels, 5x5 square convolution kernel
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            # an affine operation: y = Wx + b
            self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            # Convolution layer C1: 1 input image channel, 6 output channels,
            # 5x5 square convolution, it uses RELU activation function, and
            # outputs a Tensor with size (N, 6, 28, 28), where N is the size of the batch
            c1 = F.relu(self.conv1(input))
            # Subsampling layer S2: 2x2 grid, purely functional,
            # this layer does not have any parameter, and outputs a (N, 6, 14, 14) Tensor
            s2 = F.max_pool2d(c1, (2, 2))
            # Convolution layer C3: 6 input channels, 16 output channels,
            # 5x5 square convolution, it uses RELU activation function, and
            # outputs a (N, 16, 10, 10) Tensor
            c3 = F.relu(self.conv2(s2))
            # Subsampling layer S4: 2x2 grid, purely functional,
            # this layer does not have any parameter, and outputs a (N, 16, 5, 5) Tensor
            s4 = F.max_pool2d(c3, 2)
            # Flatten operation: purely functional, outputs a (N, 400) Tensor
            s4 = torch.flatten(s4, 1)
            # Fully connected layer F5: (N, 400) Tensor input,
            # and outputs a (N, 120) Tensor, it uses RELU activation function
            f5 = F.relu(self.fc1(s4))
            # Fully connected layer F6: (N, 120) Tensor input,
            # and outputs a (N, 84) Tensor, it uses RELU activation function
            f6 = F.relu(self.fc2(f5))
            # Gaussian layer OUTPUT: (N, 84) Tensor input, and
            # outputs a (N, 10) Tensor
            output = self.fc3(f6)
            return output

    net = Net()
    if state is not None:
        net.load_state_dict(state)
    seen = {"repr": repr(net), "init": {k: v.numpy().copy() for k, v in net.state_dict().items()}}
    params = list(net.parameters())
    seen["n_params"] = len(params)
    seen["conv1_size"] = tuple(params[0].size())  # conv1's .weight

    input = draws["input"](torch)  # torch.randn(1, 1, 32, 32)
    out = net(input)
    seen["out"] = out.detach().numpy().copy()

    net.zero_grad()
    out.backward(draws["grad"](torch))  # torch.randn(1, 10)
    seen["grads_after_random_backward"] = {
        n: p.grad.numpy().copy() for n, p in net.named_parameters()
    }

    output = net(input)
    target = draws["target"](torch)  # a dummy target, for example: torch.randn(10)
    target = target.view(1, -1)  # make it the same shape as output
    criterion = _mse(nn)
    loss = criterion(output, target)
    seen["loss"] = float(loss)

    net.zero_grad()  # zeroes the gradient buffers of all parameters
    seen["bias_grad_before"] = net.conv1.bias.grad
    loss.backward()
    seen["bias_grad_after"] = net.conv1.bias.grad.numpy().copy()
    seen["grads"] = {n: p.grad.numpy().copy() for n, p in net.named_parameters()}

    learning_rate = 0.01
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)
    seen["params_after"] = {n: p.detach().numpy().copy() for n, p in net.named_parameters()}
    seen["loss_after"] = float(criterion(net(input), target))
    return seen, net


def _mse(nn):
    """`nn.MSELoss()` (the losses' issue brings funcgrad's; a plain mean of squares until then)."""
    if hasattr(nn, "MSELoss"):
        return nn.MSELoss()
    return lambda output, target: ((output - target) ** 2).mean()


def _draws(seed):
    rng = np.random.default_rng(seed)
    values = {
        "input": rng.standard_normal((1, 1, 32, 32)).astype(np.float32),
        "grad": rng.standard_normal((1, 10)).astype(np.float32),
        "target": rng.standard_normal(10).astype(np.float32),
    }
    return {k: (lambda lib, v=v: lib.tensor(v)) for k, v in values.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blitz_neural_networks_page_matches_pytorch(seed):
    draws = _draws(seed)
    torch.manual_seed(seed)
    theirs, _ = blitz(torch, draws)
    ours, _ = blitz(funcgrad, draws, state=theirs["init"])
    assert ours["repr"] == theirs["repr"]
    assert ours["n_params"] == theirs["n_params"] == 10
    assert ours["conv1_size"] == theirs["conv1_size"] == (6, 1, 5, 5)
    assert ours["bias_grad_before"] is None and theirs["bias_grad_before"] is None
    tol = {"rtol": 1e-4, "atol": 1e-6}
    np.testing.assert_allclose(ours["out"], theirs["out"], **tol)
    for name in theirs["grads"]:
        np.testing.assert_allclose(
            ours["grads_after_random_backward"][name],
            theirs["grads_after_random_backward"][name],
            **tol,
            err_msg=name,
        )
        np.testing.assert_allclose(ours["grads"][name], theirs["grads"][name], **tol, err_msg=name)
        np.testing.assert_allclose(
            ours["params_after"][name], theirs["params_after"][name], **tol, err_msg=name
        )
    np.testing.assert_allclose(ours["bias_grad_after"], theirs["bias_grad_after"], **tol)
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-5)
    np.testing.assert_allclose(ours["loss_after"], theirs["loss_after"], rtol=1e-5)
    assert ours["loss_after"] < ours["loss"]


def test_blitz_page_runs_as_written_with_funcgrad():
    """The page's own lines with `import funcgrad as torch`: random draws and all."""
    import funcgrad as torch
    import funcgrad.nn as nn
    import funcgrad.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()  # noqa: UP008
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            c1 = F.relu(self.conv1(input))
            s2 = F.max_pool2d(c1, (2, 2))
            c3 = F.relu(self.conv2(s2))
            s4 = F.max_pool2d(c3, 2)
            s4 = torch.flatten(s4, 1)
            f5 = F.relu(self.fc1(s4))
            f6 = F.relu(self.fc2(f5))
            output = self.fc3(f6)
            return output

    net = Net()
    assert "(conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))" in repr(net)
    params = list(net.parameters())
    assert len(params) == 10 and params[0].size() == torch.Size([6, 1, 5, 5])
    input = torch.randn(1, 1, 32, 32)
    out = net(input)
    assert out.shape == torch.Size([1, 10]) and out.grad_fn is not None
    net.zero_grad()
    out.backward(torch.randn(1, 10))
    output = net(input)
    target = torch.randn(10)
    target = target.view(1, -1)
    criterion = _mse(nn)
    loss = criterion(output, target)
    assert loss.grad_fn is not None
    net.zero_grad()
    assert net.conv1.bias.grad is None
    loss.backward()
    assert net.conv1.bias.grad.shape == torch.Size([6])
    learning_rate = 0.01
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)
    assert float(criterion(net(input), target)) < float(loss)
