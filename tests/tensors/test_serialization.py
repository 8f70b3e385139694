"""`funcgrad.save` / `funcgrad.load`: PyTorch's checkpoint format, both ways, without torch inside.

funcgrad's files are read by real PyTorch (`torch.load`, weights_only as its
default), and PyTorch's files are read by funcgrad (which never imports
torch to do so: its restricted unpickler maps torch's names). Round trips,
views sharing a storage, non-contiguous tensors, dtypes, parameters, state
dicts of torch.nn models, map_location, file objects and paths, PyTorch's
legacy format, and the weights_only refusals.
"""

from __future__ import annotations

import collections
import io
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import funcgrad as fg
from funcgrad import serialization
from tests.references import requires

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
DTYPES += ["complex64", "complex128"]


def _sample(dtype: str, shape=(2, 3)) -> np.ndarray:
    values = np.arange(int(np.prod(shape))).reshape(shape) - 2
    if dtype == "bool":
        return values % 2 == 0
    if dtype.startswith("complex"):
        return (values + 1j * values[::-1]).astype(dtype)
    return values.astype(dtype) if not dtype.startswith("uint") else np.abs(values).astype(dtype)


def _buffer(obj, saver) -> io.BytesIO:
    b = io.BytesIO()
    saver(obj, b)
    b.seek(0)
    return b


# --- funcgrad to funcgrad --------------------------------------------------------------------------


def test_round_trip_of_nested_containers():
    w = fg.nn.Parameter(fg.randn(3, 2))
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    obj = {
        "w": w,
        "x": x,
        "again": x,  # the same tensor twice stays one tensor
        "ints": fg.tensor([1, 2, 3]),
        "scalar": fg.tensor(2.5, dtype=fg.float64),
        "empty": fg.zeros(0, 4),
        "list": [fg.ones(2), 3, 4.5, "text", None, b"bytes", (1, 2), {7, 8}, 1 + 2j],
        "dtype": fg.float16,
        "device": fg.device("cpu"),
        "size": fg.ones(2, 3).shape,
    }
    back = fg.load(_buffer(obj, fg.save))
    assert type(back["w"]) is fg.nn.Parameter and back["w"].requires_grad
    np.testing.assert_array_equal(back["w"].detach().numpy(), w.detach().numpy())
    assert back["x"].requires_grad and back["x"].is_leaf and back["again"] is back["x"]
    assert back["ints"].dtype == fg.int64 and back["ints"].tolist() == [1, 2, 3]
    assert back["scalar"].shape == () and back["scalar"].item() == 2.5
    assert back["empty"].shape == (0, 4)
    assert back["list"][1:] == [3, 4.5, "text", None, b"bytes", (1, 2), {7, 8}, 1 + 2j]
    assert back["dtype"] == fg.float16 and back["device"] == fg.device("cpu")
    assert back["size"] == (2, 3) and isinstance(back["size"], fg.Size)


@pytest.mark.parametrize("dtype", [*DTYPES, "uint16", "uint32", "uint64"])
def test_round_trip_keeps_every_dtype(dtype):
    value = _sample(dtype)
    back = fg.load(_buffer(fg.tensor(value), fg.save))
    assert back.dtype == value.dtype
    np.testing.assert_array_equal(back.numpy(), value)


def test_state_dict_keeps_its_order_and_metadata(tmp_path):
    sd = collections.OrderedDict([("b", fg.ones(1)), ("a", fg.zeros(2))])
    sd._metadata = collections.OrderedDict([("", {"version": 1})])
    for target in (tmp_path / "sd.pt", str(tmp_path / "sd2.pth")):
        fg.save(sd, target)
        back = fg.load(target)
        assert type(back) is collections.OrderedDict and list(back) == ["b", "a"]
        assert back._metadata == {"": {"version": 1}}


def test_save_and_load_of_a_funcgrad_module_state_dict():
    fg.manual_seed(0)
    net = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    other = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    other.load_state_dict(fg.load(_buffer(net.state_dict(), fg.save)))
    x = fg.randn(5, 3)
    np.testing.assert_array_equal(other(x).detach().numpy(), net(x).detach().numpy())


def test_pickle_keeps_requires_grad_and_parameters():
    t = fg.tensor([1.0, 2.0], requires_grad=True)
    p = fg.nn.Parameter(fg.ones(2))
    a, b = pickle.loads(pickle.dumps((t, p)))
    assert a.requires_grad and a.is_leaf and a.tolist() == [1.0, 2.0]
    assert type(b) is fg.nn.Parameter and b.requires_grad


# --- funcgrad to PyTorch ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*DTYPES, "uint16", "uint32", "uint64"])
def test_pytorch_loads_funcgrads_tensors(dtype):
    torch = requires("torch")
    value = _sample(dtype)
    t = torch.load(_buffer(fg.tensor(value), fg.save))  # weights_only=True, PyTorch's default
    assert isinstance(t, torch.Tensor) and str(t.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(t.numpy(), value)


def test_pytorch_loads_funcgrads_state_dict_into_its_module(tmp_path):
    torch = requires("torch")
    fg.manual_seed(1)
    net = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.ReLU(), fg.nn.Linear(4, 2))
    path = tmp_path / "net.pt"
    fg.save(net.state_dict(), path)
    sd = torch.load(path)
    assert list(sd) == list(net.state_dict())
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    twin.load_state_dict(sd)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    expected = net(fg.tensor(x)).detach().numpy()
    np.testing.assert_allclose(twin(torch.tensor(x)).detach().numpy(), expected, rtol=1e-6)


def test_pytorch_sees_parameters_requires_grad_and_containers():
    torch = requires("torch")
    obj = {
        "p": fg.nn.Parameter(fg.ones(2)),
        "g": fg.tensor([1.0], requires_grad=True),
        "c": [fg.float64, fg.device("cpu"), fg.ones(2, 3).shape, b"raw", (1, "a")],
    }
    back = torch.load(_buffer(obj, fg.save))
    assert isinstance(back["p"], torch.nn.Parameter) and back["p"].requires_grad
    assert back["g"].requires_grad and not isinstance(back["g"], torch.nn.Parameter)
    assert back["c"] == [torch.float64, torch.device("cpu"), torch.Size([2, 3]), b"raw", (1, "a")]


def test_views_saved_together_share_one_storage_in_pytorch():
    torch = requires("torch")
    x = fg.arange(12.0).reshape(3, 4)
    back = torch.load(_buffer({"x": x, "t": x.t(), "row": x[1], "col": x[:, 2]}, fg.save))
    assert back["t"].stride() == (1, 4) and not back["t"].is_contiguous()
    assert back["row"].storage_offset() == 4 and back["col"].stride() == (4,)
    whole = back["x"].numpy()
    for key, expected in (("t", whole.T), ("row", whole[1]), ("col", whole[:, 2])):
        np.testing.assert_array_equal(back[key].numpy(), expected)
        assert back[key].untyped_storage().data_ptr() == back["x"].untyped_storage().data_ptr()
    back["x"][1, 2] = 100.0  # one storage, as if PyTorch had saved its own views
    assert back["t"][2, 1].item() == back["row"][2].item() == back["col"][1].item() == 100.0


def test_the_file_is_pytorchs_zip_layout(tmp_path):
    fg.save({"a": fg.ones(3)}, tmp_path / "model.pt")
    with zipfile.ZipFile(tmp_path / "model.pt") as z:
        names = z.namelist()
        assert names[0] == "model/data.pkl" and "model/data/0" in names
        assert z.read("model/version") == b"3\n" and z.read("model/byteorder") == b"little"
        info = z.getinfo("model/data/0")
        assert info.compress_type == zipfile.ZIP_STORED
    with open(tmp_path / "model.pt", "rb") as f:  # storages start on 64-byte boundaries
        f.seek(info.header_offset + 26)
        lengths = f.read(4)
    start = info.header_offset + 30 + int.from_bytes(lengths[:2], "little")
    assert (start + int.from_bytes(lengths[2:], "little")) % 64 == 0
    with zipfile.ZipFile(_buffer(fg.ones(1), fg.save)) as z:
        assert z.namelist()[0] == "archive/data.pkl"


# --- PyTorch to funcgrad --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*DTYPES, "uint16", "uint32", "uint64"])
def test_funcgrad_loads_pytorchs_tensors(dtype):
    torch = requires("torch")
    value = _sample(dtype)
    t = fg.load(_buffer(torch.tensor(value), torch.save))
    assert isinstance(t, fg.Tensor) and t.dtype == value.dtype
    np.testing.assert_array_equal(t.numpy(), value)


def test_funcgrad_loads_a_torch_nn_state_dict_and_computes_the_same():
    torch = requires("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    norm = torch.nn.BatchNorm1d(4)
    norm.running_mean += 0.5
    sd = fg.load(_buffer(model.state_dict(), torch.save))
    assert type(sd) is collections.OrderedDict and list(sd) == list(model.state_dict())
    assert sd._metadata == model.state_dict()._metadata
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(sd[key].numpy(), value.numpy())
    twin = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 2))
    twin.load_state_dict(sd)
    x = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    expected = model(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(twin(fg.tensor(x)).detach().numpy(), expected, rtol=1e-6)
    bn = fg.load(_buffer(norm.state_dict(), torch.save))
    assert bn["num_batches_tracked"].dtype == fg.int64 and bn["running_mean"].tolist() == [0.5] * 4


def test_funcgrad_loads_pytorchs_views_and_non_contiguous_tensors():
    torch = requires("torch")
    base = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4)
    saved = {
        "base": base,
        "t": base.transpose(0, 2),
        "slice": base[1, :, 1::2],
        "flat": base.view(-1)[5:11],
        "expanded": torch.tensor([1.0, 2.0]).expand(3, 2),
        "p": torch.nn.Parameter(torch.ones(2)),
        "g": torch.ones(2, requires_grad=True),
        "empty": torch.zeros(0, 3),
    }
    back = fg.load(_buffer(saved, torch.save))
    for key, value in saved.items():
        np.testing.assert_array_equal(back[key].detach().numpy(), value.detach().numpy())
        assert back[key].shape == tuple(value.shape)
    assert type(back["p"]) is fg.nn.Parameter and back["p"].requires_grad
    assert back["g"].requires_grad and type(back["g"]) is fg.Tensor


def test_map_location_forms_and_file_objects(tmp_path):
    torch = requires("torch")
    sd = {"w": torch.ones(2), "b": torch.zeros(1, dtype=torch.int64)}
    path = tmp_path / "w.pt"
    torch.save(sd, path)
    for where in ("cpu", fg.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        back = fg.load(path, map_location=where)
        assert back["w"].device == fg.device("cpu") and back["w"].tolist() == [1.0, 1.0]
    with open(path, "rb") as f:
        assert fg.load(f)["b"].tolist() == [0]
    assert fg.load(str(path), mmap=True)["w"].tolist() == [1.0, 1.0]
    raw = io.BytesIO(path.read_bytes())
    raw.seek(0)
    assert fg.load(raw, weights_only=True)["w"].tolist() == [1.0, 1.0]


def test_cuda_locations_need_a_gpu_or_a_map_location(monkeypatch):
    torch = requires("torch")
    monkeypatch.setattr(serialization, "device_of", lambda value: "cuda:0")
    data = _buffer({"w": fg.ones(2)}, fg.save).getvalue()  # a file whose tensor was on cuda:0
    monkeypatch.undo()
    if not fg.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location=funcgrad.device\\('cpu'\\)"):
            fg.load(io.BytesIO(data))
    for where in ("cpu", {"cuda:0": "cpu"}, lambda storage, loc: storage.cpu()):
        assert fg.load(io.BytesIO(data), map_location=where)["w"].device.type == "cpu"
    # and PyTorch reads the location funcgrad wrote
    assert torch.load(io.BytesIO(data), map_location="cpu")["w"].tolist() == [1.0, 1.0]


def test_pytorchs_legacy_format_loads(tmp_path):
    torch = requires("torch")
    saved = {"t": torch.arange(6.0).reshape(2, 3).t(), "p": torch.nn.Parameter(torch.ones(2))}
    saved["i"] = [torch.tensor([1, 2]), 3]
    path = tmp_path / "old.pt"
    torch.save(saved, path, _use_new_zipfile_serialization=False)
    back = fg.load(path)
    np.testing.assert_array_equal(back["t"].numpy(), saved["t"].numpy())
    assert type(back["p"]) is fg.nn.Parameter and back["i"][0].tolist() == [1, 2]
    assert back["i"][1] == 3


def test_bfloat16_loads_as_float32_with_a_warning():
    torch = requires("torch")
    value = torch.tensor([1.5, -2.25, 3.0e38], dtype=torch.bfloat16)
    with pytest.warns(UserWarning, match="bfloat16 is not provided"):
        back = fg.load(_buffer({"t": value, "dtype": torch.bfloat16}, torch.save))
    assert back["t"].dtype == fg.float32 and back["dtype"] == fg.float32
    np.testing.assert_array_equal(back["t"].numpy(), value.float().numpy())


def test_loading_runs_without_importing_torch(tmp_path):
    torch = requires("torch")
    path = tmp_path / "sd.pt"
    torch.save(torch.nn.Linear(2, 3).state_dict(), path)
    code = (
        "import sys, funcgrad as fg\n"
        f"sd = fg.load({str(path)!r})\n"
        "assert sd['weight'].shape == (3, 2) and 'torch' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- refusals ------------------------------------------------------------------------------------------


def _zip_with_pickle(payload: bytes) -> io.BytesIO:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("archive/data.pkl", payload)
        z.writestr("archive/version", "3\n")
    b.seek(0)
    return b


def test_weights_only_refuses_code_before_importing_it(tmp_path):
    marker = tmp_path / "ran"
    evil = b"cos\nsystem\n(V" + f"touch {marker}".encode() + b"\ntR."
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*os.system"):
        fg.load(_zip_with_pickle(evil))
    assert not marker.exists()
    builtin = b"cbuiltins\neval\n(V1+1\ntR."
    with pytest.raises(pickle.UnpicklingError, match="builtins.eval"):
        fg.load(_zip_with_pickle(builtin))


def test_weights_only_refuses_other_globals_unless_allowed():
    torch = requires("torch")
    data = _buffer({"step": np.int64(3)}, torch.save).getvalue()
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        fg.load(io.BytesIO(data))
    unsafe = fg.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    assert unsafe and all(name.startswith("numpy") for name in unsafe)
    assert fg.load(io.BytesIO(data), weights_only=False)["step"] == 3
    allowed = [(obj, name) for name in unsafe for obj in [_numpy_global(name)]]
    with fg.serialization.safe_globals(allowed):
        assert fg.load(io.BytesIO(data))["step"] == 3
    with pytest.raises(pickle.UnpicklingError):
        fg.load(io.BytesIO(data))


def _numpy_global(name: str):
    module, _, attr = name.rpartition(".")
    return getattr(__import__(module, fromlist=[attr]), attr)


def test_whole_pytorch_objects_and_torchscript_are_refused_clearly():
    torch = requires("torch")
    whole = _buffer(torch.nn.Linear(2, 2), torch.save)
    with pytest.raises(
        pickle.UnpicklingError, match=r"torch\.nn\.modules\.linear\.Linear.*state_dict"
    ):
        fg.load(whole, weights_only=False)
    scripted = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), scripted)
    scripted.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="TorchScript"):
        fg.load(scripted)
    with pytest.raises(pickle.UnpicklingError, match="not a checkpoint"):
        fg.load(io.BytesIO(b"not a checkpoint at all"))


def test_saving_refuses_what_pytorch_cannot_hold():
    with pytest.raises(NotImplementedError, match="legacy"):
        fg.save(fg.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)


def test_paths_accept_pathlib(tmp_path):
    target = Path(tmp_path) / "sub.pt"
    fg.save([fg.ones(1)], target)
    assert fg.load(target)[0].tolist() == [1.0]
