"""Recurrent modules: `RNN`, `LSTM`, `GRU` and their cells, with PyTorch's parameters.

The parameters are named and shaped as PyTorch's (`weight_ih_l0`,
`weight_hh_l0_reverse`, `weight_hr_l1` with `proj_size`, ...), gates in
PyTorch's order (LSTM: input, forget, cell, output; GRU: reset, update,
new), so state dicts move between the two libraries. Each layer computes
the input projection of every time step with one matrix product, then
steps through time. Options: `num_layers`, `bias`, `batch_first`,
`dropout` (between layers, in training), `bidirectional`, `proj_size`
(LSTM), unbatched inputs, and `PackedSequence` inputs (the hidden state
stops at each sequence's end, as PyTorch's).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from funcgrad.nn import functional as F
from funcgrad.nn import init
from funcgrad.nn.modules._factory import empty
from funcgrad.nn.modules.module import Module
from funcgrad.nn.parameter import Parameter
from funcgrad.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.creation import zeros
from funcgrad.tensors.functions import cat, stack, where
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _split(t, n: int) -> list:
    """`t.chunk(n, -1)`: `n` equal slices of the last dim."""
    size = t.shape[-1] // n
    return [t[..., k * size : (k + 1) * size] for k in range(n)]


def _linear(x, w, b):
    out = x @ w.T
    return out if b is None else out + b


def _rnn_tanh_step(x_proj, h, c, w_hh, b_hh, w_hr):
    return (x_proj + _linear(h, w_hh, b_hh)).tanh(), None


def _rnn_relu_step(x_proj, h, c, w_hh, b_hh, w_hr):
    return F.relu(x_proj + _linear(h, w_hh, b_hh)), None


def _lstm_step(x_proj, h, c, w_hh, b_hh, w_hr):
    gates = x_proj + _linear(h, w_hh, b_hh)
    i, f, g, o = _split(gates, 4)
    c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h_new = o.sigmoid() * c_new.tanh()
    if w_hr is not None:
        h_new = h_new @ w_hr.T
    return h_new, c_new


def _gru_step(x_proj, h, c, w_hh, b_hh, w_hr):
    h_proj = _linear(h, w_hh, b_hh)
    xr, xz, xn = _split(x_proj, 3)
    hr, hz, hn = _split(h_proj, 3)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * h, None


_STEPS = {
    "RNN_TANH": _rnn_tanh_step,
    "RNN_RELU": _rnn_relu_step,
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}


class RNNBase(Module):
    """What `RNN`, `LSTM` and `GRU` share: parameters, checks, the layer and direction loops."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                params = [
                    Parameter(empty((gate_size, layer_input_size), device, dtype)),
                    Parameter(empty((gate_size, real_hidden_size), device, dtype)),
                ]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    params += [
                        Parameter(empty((gate_size,), device, dtype)),
                        Parameter(empty((gate_size,), device, dtype)),
                    ]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{suffix}")
                    params.append(Parameter(empty((proj_size, hidden_size), device, dtype)))
                for name, param in zip(names, params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters of each layer and direction, as lists."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do here (PyTorch packs the weights for cuDNN)."""

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if "proj_size" not in self.__dict__:
            self.proj_size = 0

    # --- checks ---------------------------------------------------------------------

    def check_input(self, input, batch_sizes) -> None:
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}"
            )

    def _hidden_shape(self, x, real: bool = True) -> tuple:
        """The hidden state's shape for `x` laid out `(T, B, H_in)`."""
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if (real and self.proj_size > 0) else self.hidden_size
        return (self.num_layers * num_directions, x.size(1), size)

    def check_hidden_size(self, hx, expected, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(expected, list(hx.size())))

    # --- the computation ----------------------------------------------------------------

    def _run(self, x, hidden, lengths):
        """`x`: `(T, B, H_in)`; `hidden`: `(h0, c0 or None)`; `lengths`: None or `(B,)` ints.

        Returns the output `(T, B, D * H_out)` and `(h_n, c_n or None)`.
        """
        h0, c0 = hidden
        step = _STEPS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        steps = x.shape[0]
        masks = None
        if lengths is not None:
            lens = np.asarray(lengths)
            masks = [_new_like(Tensor, (lens > t).reshape(-1, 1), None) for t in range(steps)]
        h_n, c_n = [], []
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                names = self._all_weights[k]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih = getattr(self, names[2]) if self.bias else None
                b_hh = getattr(self, names[3]) if self.bias else None
                w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
                x_proj = _linear(layer_input, w_ih, b_ih)  # every time step at once
                h = h0[k]
                c = c0[k] if c0 is not None else None
                out = [None] * steps
                order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
                for t in order:
                    h_new, c_new = step(x_proj[t], h, c, w_hh, b_hh, w_hr)
                    if masks is not None:
                        h_new = where(masks[t], h_new, h)
                        if c_new is not None:
                            c_new = where(masks[t], c_new, c)
                        out[t] = where(masks[t], h_new, 0.0)
                    else:
                        out[t] = h_new
                    h, c = h_new, c_new
                outputs.append(stack(out))
                h_n.append(h)
                if c is not None:
                    c_n.append(c)
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, dim=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, (stack(h_n), stack(c_n) if c_n else None)

    def _forward(self, input, hx):
        is_lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            sorted_indices = input.sorted_indices
            unsorted_indices = input.unsorted_indices
            batch_sizes = np.asarray(input.batch_sizes.numpy())
            self.check_input(input.data, batch_sizes)
            padded, lens = pad_packed_sequence(input)  # (T, B, *) in the original order
            x = padded
            lengths = np.asarray(lens.numpy())
            is_batched = True
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                    "tensor instead"
                )
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            x = input.transpose(0, 1) if self.batch_first else input
            self.check_input(x, None)
        ref = x
        if hx is None:
            shape = self._hidden_shape(x, real=True)
            h0 = zeros(*shape, dtype=ref.dtype, device=ref.device)
            c0 = (
                zeros(*self._hidden_shape(x, real=False), dtype=ref.dtype, device=ref.device)
                if is_lstm
                else None
            )
        else:
            if is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise RuntimeError("LSTM: expected hx to be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if not is_batched:
                for name, t in (("hx", h0), ("cx", c0)):
                    if t is not None and t.dim() != 2:
                        raise RuntimeError(
                            f"For unbatched 2-D input, {name} should also be 2-D but got "
                            f"{t.dim()}-D tensor"
                        )
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            else:
                for name, t in (("hx", h0), ("cx", c0)):
                    if t is not None and t.dim() != 3:
                        raise RuntimeError(
                            f"For batched 3-D input, {name} should also be 3-D but got "
                            f"{t.dim()}-D tensor"
                        )
            self.check_hidden_size(h0, self._hidden_shape(x, real=True))
            if c0 is not None:
                self.check_hidden_size(
                    c0,
                    self._hidden_shape(x, real=False),
                    "Expected hidden[1] size {}, got {}",
                )
        output, (h_n, c_n) = self._run(x, (h0, c0), lengths)
        if packed:
            if sorted_indices is not None:
                output = output.index_select(1, sorted_indices)
            out_packed = pack_padded_sequence(output, np.sort(lengths)[::-1].copy())
            output = PackedSequence(
                out_packed.data, out_packed.batch_sizes, sorted_indices, unsorted_indices
            )
        else:
            if self.batch_first:
                output = output.transpose(0, 1)
            if not is_batched:
                output = output.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return output, ((h_n, c_n) if is_lstm else h_n)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class RNN(RNNBase):
    """An Elman RNN: `h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)` (or ReLU).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
        >>> output.shape, hn.shape
        (funcgrad.Size([5, 3, 20]), funcgrad.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """A long short-term memory network; returns `(output, (h_n, c_n))`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> lstm = nn.LSTM(10, 20, 2, batch_first=True)
        >>> output, (hn, cn) = lstm(torch.randn(3, 5, 10))
        >>> output.shape, hn.shape, cn.shape
        (funcgrad.Size([3, 5, 20]), funcgrad.Size([2, 3, 20]), funcgrad.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """A gated recurrent unit network; returns `(output, h_n)`."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """What the cells share: `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`, initialisation, repr."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device, dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device, dtype))
        if bias:
            self.bias_ih = Parameter(empty((num_chunks * hidden_size,), device, dtype))
            self.bias_hh = Parameter(empty((num_chunks * hidden_size,), device, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, n_states: int):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if hx is not None:
            for h in hx if isinstance(hx, tuple) else (hx,):
                if h.dim() not in (1, 2):
                    raise ValueError(
                        f"{type(self).__name__}: Expected hidden to be 1D or 2D, got "
                        f"{h.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if input.size(-1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(-1)} expected "
                f"{self.input_size}"
            )
        if hx is None:
            state = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (state,) * n_states
        else:
            hx = hx if isinstance(hx, tuple) else (hx,)
            if not is_batched:
                hx = tuple(h.unsqueeze(0) for h in hx)
        return input, hx, is_batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: `h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)` (or ReLU)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, (h,), is_batched = self._prepare(input, hx, 1)
        pre = _linear(x, self.weight_ih, self.bias_ih) + _linear(h, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            out = pre.tanh()
        elif self.nonlinearity == "relu":
            out = F.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if is_batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM; returns `(h', c')`."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h, c), is_batched = self._prepare(input, hx, 2)
        h_new, c_new = _lstm_step(
            _linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None
        )
        if not is_batched:
            return h_new.squeeze(0), c_new.squeeze(0)
        return h_new, c_new


class GRUCell(RNNCellBase):
    """One step of a GRU."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h,), is_batched = self._prepare(input, hx, 1)
        out, _ = _gru_step(
            _linear(x, self.weight_ih, self.bias_ih), h, None, self.weight_hh, self.bias_hh, None
        )
        return out if is_batched else out.squeeze(0)
