"""`funcgrad.save` and `funcgrad.load`: PyTorch's checkpoint format, read and written without torch.

Files are PyTorch's zip format (PyTorch 1.6 and later): a zip archive
holding `<name>/data.pkl`, a pickle (protocol 2) of the object in which
each tensor is a call of `torch._utils._rebuild_tensor_v2` on a *storage*
(a persistent id `('storage', torch.FloatStorage, key, location, numel)`),
and `<name>/data/<key>`, the raw little-endian bytes of each storage. So:

* `funcgrad.save` writes files that `torch.load` reads, giving torch
  tensors (and `torch.nn.Parameter`s for funcgrad parameters), in the
  containers saved (dicts, `OrderedDict` state dicts with their
  `_metadata`, lists, tuples, numbers, strings);
* `funcgrad.load` reads files that `torch.save` wrote (PyTorch 1.6 to 2.x),
  giving funcgrad tensors, without importing torch: the torch names in the
  pickle (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`,
  `torch.float32`, `torch.nn.parameter.Parameter` ...) are mapped to
  funcgrad's own functions by a restricted unpickler.

`weights_only=True` is the default, as in PyTorch 2.6 and later: the
unpickler then builds only tensors, parameters, dtypes, devices, sizes,
Python's numbers, strings, bytes and containers (`dict`, `list`, `tuple`,
`set`, `OrderedDict`, `Counter`), and what `add_safe_globals` allows; any
other global in the file is refused with `pickle.UnpicklingError` before it
is imported, so loading an untrusted file runs no code of its.
`weights_only=False` unpickles anything (trusted files only), still
without torch.

Tensors keep their dtype, shape, values, `requires_grad` and device (or
`map_location`'s). Tensors that shared one storage (views saved together)
share it in the file, with their offsets and strides, as PyTorch writes
them; on loading each becomes a tensor of its own (same values, memory not
shared). bfloat16 storages (which NumPy cannot hold) are loaded as float32,
exactly, with a warning. Whole PyTorch objects (`torch.save(model)`,
TorchScript archives) cannot be read without torch: save
`model.state_dict()` instead.
"""

from __future__ import annotations

import _compat_pickle
import collections
import contextlib
import io
import os
import pickle
import sys
import warnings
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from funcgrad.backend import cuda_available, device_of, to_device
from funcgrad.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from funcgrad.tensors.devices import device as _device
from funcgrad.tensors.missing import module_getattr as _module_getattr
from funcgrad.tensors.tensor_class import Size, Tensor, _fresh_leaf

__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
]

DEFAULT_PROTOCOL = 2  # PyTorch's

# PyTorch's storage classes and dtype names, and the NumPy dtype of each.
_STORAGES: dict[str, np.dtype] = {
    "FloatStorage": np.dtype(np.float32),
    "DoubleStorage": np.dtype(np.float64),
    "HalfStorage": np.dtype(np.float16),
    "LongStorage": np.dtype(np.int64),
    "IntStorage": np.dtype(np.int32),
    "ShortStorage": np.dtype(np.int16),
    "CharStorage": np.dtype(np.int8),
    "ByteStorage": np.dtype(np.uint8),
    "BoolStorage": np.dtype(np.bool_),
    "ComplexFloatStorage": np.dtype(np.complex64),
    "ComplexDoubleStorage": np.dtype(np.complex128),
}
_STORAGE_OF = {dtype: name for name, dtype in _STORAGES.items()}
_DTYPES: dict[str, np.dtype] = {
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "float16": np.dtype(np.float16),
    "int64": np.dtype(np.int64),
    "int32": np.dtype(np.int32),
    "int16": np.dtype(np.int16),
    "int8": np.dtype(np.int8),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
    "complex64": np.dtype(np.complex64),
    "complex128": np.dtype(np.complex128),
}
_DTYPE_NAME = {dtype: name for name, dtype in _DTYPES.items()}
_BFLOAT16 = "BFloat16Storage"
_BFLOAT16_NOTE = (
    "bfloat16 is not provided by funcgrad (NumPy has no such dtype): its values are loaded "
    "as float32, exactly (every bfloat16 number is a float32 number)"
)

_safe: dict[str, Any] = {}  # "module.name" -> object, from add_safe_globals


# --- writing ------------------------------------------------------------------------------------


class _Global:
    """A name that pickles as PyTorch's global `module.name` (GLOBAL opcode), without torch."""

    __slots__ = ("module", "name")
    _cache: dict[tuple[str, str], _Global] = {}
    module: str
    name: str

    def __new__(cls, module: str, name: str) -> _Global:
        key = (module, name)
        g = cls._cache.get(key)
        if g is None:
            g = super().__new__(cls)
            g.module, g.name = module, name
            cls._cache[key] = g
        return g

    def __call__(self, *args, **kwargs):  # pickle's save_reduce wants a callable
        raise TypeError(f"{self.module}.{self.name} is PyTorch's; funcgrad only writes its name")


class _StorageRef:
    """A storage of the file: pickled as its persistent id."""

    __slots__ = ("pid",)

    def __init__(self, pid: tuple):
        self.pid = pid


class _TensorData:
    """The plain-tensor part of a parameter (PyTorch pickles a parameter around a tensor)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor):
        self.tensor = tensor


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_STATE = _Global("torch._utils", "_rebuild_parameter_with_state")


class _TorchPickler(pickle._Pickler):  # the Python implementation of the pickler
    """Pickles like `torch.save`: tensors as storages and rebuild calls, dtypes as torch's names.

    The Python implementation of `pickle.Pickler`, because it lets a global
    name be written that this process cannot import (`torch.FloatStorage`).
    """

    def __init__(self, file, protocol: int):
        super().__init__(file, protocol)
        # (id of the root array, dtype) -> (key, the root's memory as a 1-D array, location)
        self.storages: dict[tuple[int, str], tuple[str, Any, str]] = {}
        self._keep: list[Any] = []  # keeps the roots alive while their ids are keys

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _StorageRef else None

    def save(self, obj, save_persistent_id=True):
        name = _torch_global(obj)
        if name is None:
            super().save(obj, save_persistent_id)
            return
        memo = self.memo.get(id(obj))
        if memo is not None:
            self.write(self.get(memo[0]))
            return
        self.write(pickle.GLOBAL + f"{name[0]}\n{name[1]}\n".encode())
        self.memoize(obj)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if is_lazy(obj):  # PyTorch's own form: the class and requires_grad (no values)
                return (_Global("torch.nn.parameter", type(obj).__name__), (obj.requires_grad,))
            if isinstance(obj, Parameter):
                state = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
                data = _TensorData(obj)
                if state:
                    return (
                        _REBUILD_PARAMETER_STATE,
                        (data, obj.requires_grad, collections.OrderedDict(), state),
                    )
                return (_REBUILD_PARAMETER, (data, obj.requires_grad, collections.OrderedDict()))
            return self._reduce_tensor(obj, obj.requires_grad)
        if type(obj) is _TensorData:
            return self._reduce_tensor(obj.tensor, False)
        if isinstance(obj, _device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_Global("torch", "device"), args)
        if type(obj) is Size:
            return (_Global("torch", "Size"), (tuple(obj),))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor, requires_grad: bool):
        value = t._value
        location = device_of(value)
        ref, offset, stride = self._storage(value, location)
        hooks: collections.OrderedDict[str, Any] = collections.OrderedDict()
        size = tuple(int(s) for s in value.shape)
        name = _DTYPE_NAME.get(value.dtype)
        if value.dtype in _STORAGE_OF:
            return (_REBUILD_V2, (ref, offset, size, stride, requires_grad, hooks))
        if name is None:
            raise pickle.PicklingError(
                f"funcgrad.save: a tensor of dtype {value.dtype} (shape {list(size)}) has no "
                f"PyTorch dtype; convert it first (t.to(funcgrad.float32), t.long() ...)"
            )
        return (_REBUILD_V3, (ref, offset, size, stride, requires_grad, hooks, _dtype_global(name)))

    def _storage(self, value, location: str) -> tuple[_StorageRef, int, tuple[int, ...]]:
        """The storage of `value` (shared with the other values viewing its memory) and its layout."""
        owner, root, offset, stride = _layout(value)
        key = (id(owner), root.dtype.str)
        found = self.storages.get(key)
        if found is None:
            found = (str(len(self.storages)), root, location)
            self.storages[key] = found
            self._keep.append(owner)
        name = _STORAGE_OF.get(root.dtype)
        if name is None:  # uint16, uint32, uint64: an untyped storage, numel in bytes
            kind, numel = _Global("torch.storage", "UntypedStorage"), root.size * root.itemsize
        else:
            kind, numel = _Global("torch", name), root.size
        return _StorageRef(("storage", kind, found[0], location, numel)), offset, stride


def _torch_global(obj) -> tuple[str, str] | None:
    if type(obj) is _Global:
        return obj.module, obj.name
    if isinstance(obj, np.dtype):
        name = _DTYPE_NAME.get(obj)
        return None if name is None else ("torch", name)
    return None


def _dtype_global(name: str) -> _Global:
    return _Global("torch", name)


def _layout(value) -> tuple[Any, Any, int, tuple[int, ...]]:
    """`(owner, memory, offset, strides)`: the 1-D memory `value` views, and where in it `value` is.

    `owner` is the array that owns the memory (what values sharing it have in common).

    A NumPy view (of a tensor saved with its base, say) is found in its
    base's memory, as PyTorch saves views; anything else (a CuPy array, a
    view with negative strides or of another dtype) is saved as a
    contiguous copy of its own.
    """
    if isinstance(value, np.ndarray):
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root.dtype == value.dtype and (root.flags.c_contiguous or root.flags.f_contiguous):
            start = root.__array_interface__["data"][0]
            offset_bytes = value.__array_interface__["data"][0] - start if value.size else 0
            item = value.itemsize
            strides = value.strides
            if (
                offset_bytes >= 0
                and offset_bytes % item == 0
                and all(s >= 0 and s % item == 0 for s in strides)
            ):
                flat = root.reshape(-1, order="A")  # the memory, in its order: no copy
                return root, flat, offset_bytes // item, tuple(s // item for s in strides)
        own = np.ascontiguousarray(value)
        return own, own.reshape(-1), 0, _contiguous_strides(own.shape)
    own = np.ascontiguousarray(to_device(value, "cpu"))
    return own, own.reshape(-1), 0, _contiguous_strides(own.shape)


def _contiguous_strides(shape) -> tuple[int, ...]:
    strides = []
    n = 1
    for s in reversed(shape):
        strides.append(n)
        n *= max(int(s), 1)
    return tuple(reversed(strides))


def _record_name(f) -> str:
    """The folder of the records: the file's name without extension, or 'archive' (as PyTorch)."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        if stem and all(c.isalnum() or c in "_-." for c in stem):
            return stem
    return "archive"


_ALIGNMENT = 64


def _write_record(zf: zipfile.ZipFile, name: str, data) -> None:
    """Write one uncompressed record, its data aligned to 64 bytes as PyTorch aligns it."""
    payload = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = len(payload)
    zip64 = len(payload) * 1.05 > zipfile.ZIP64_LIMIT
    offset = zf.fp.tell() if zf.fp is not None else 0  # where the local header starts
    header = 30 + len(name.encode("utf-8")) + 4 + (20 if zip64 else 0)
    pad = (-(offset + header)) % _ALIGNMENT
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    with zf.open(info, "w", force_zip64=zip64) as out:
        step = 1 << 26
        for start in range(0, len(payload), step):
            out.write(payload[start : start + step])


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save `obj` to `f` in PyTorch's checkpoint format (`torch.load` reads it).

    Args:
        obj: Tensors, and containers of them: dicts (state dicts), lists,
            tuples, numbers, strings. Other picklable objects are pickled as
            usual (then only `funcgrad.load(..., weights_only=False)` reads
            them back, and `torch.load` only if it can import them).
        f: A path (`str` or `os.PathLike`) or a binary file object (`BytesIO`).
        pickle_module: Must be `pickle` (accepted for PyTorch's signature).
        pickle_protocol: The pickle protocol of `data.pkl` (2, as PyTorch).

    Raises:
        NotImplementedError: For `_use_new_zipfile_serialization=False`
            (PyTorch's legacy format is read, not written).

    Examples:
        >>> import io
        >>> import funcgrad as torch
        >>> buffer = io.BytesIO()
        >>> torch.save({"w": torch.ones(2, requires_grad=True), "step": 3}, buffer)
        >>> _ = buffer.seek(0)
        >>> torch.load(buffer)
        {'w': tensor([1., 1.], requires_grad=True), 'step': 3}
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "funcgrad.save: PyTorch's legacy (pre-1.6) format is read by funcgrad.load but not "
            "written; leave _use_new_zipfile_serialization=True (every PyTorch since 1.6 reads it)"
        )
    if pickle_module is not pickle:
        raise ValueError("funcgrad.save: pickle_module must be the standard pickle module")
    data = io.BytesIO()
    pickler = _TorchPickler(data, pickle_protocol)
    pickler.dump(obj)
    prefix = _record_name(f)
    with contextlib.ExitStack() as stack:
        if isinstance(f, (str, os.PathLike)):
            target = stack.enter_context(open(f, "wb"))  # noqa: SIM115
        else:
            target = f
        zf = stack.enter_context(zipfile.ZipFile(target, "w", zipfile.ZIP_STORED))
        _write_record(zf, f"{prefix}/data.pkl", data.getvalue())
        _write_record(zf, f"{prefix}/.format_version", b"1")
        _write_record(zf, f"{prefix}/.storage_alignment", str(_ALIGNMENT).encode())
        if not _disable_byteorder_record:
            _write_record(zf, f"{prefix}/byteorder", sys.byteorder.encode())
        for key, root, _ in pickler.storages.values():
            flat = root if root.dtype.isnative else root.astype(root.dtype.newbyteorder("="))
            _write_record(zf, f"{prefix}/data/{key}", flat.view(np.uint8))
        _write_record(zf, f"{prefix}/version", b"3\n")
        _write_record(zf, f"{prefix}/.data/serialization_id", _serialization_id())


def _serialization_id() -> bytes:
    return str(int.from_bytes(os.urandom(16), "little")).zfill(40).encode()


# --- reading -------------------------------------------------------------------------------------


class _Storage:
    """A storage read from a file: a 1-D array and where it lives (`'cpu'`, `'cuda:0'` ...).

    What a `map_location` function gets and returns, with PyTorch's
    `.cpu()` and `.cuda(device)`.
    """

    __slots__ = ("array", "location")

    def __init__(self, array, location: str):
        self.array = array
        self.location = location

    def cpu(self) -> _Storage:
        return _Storage(self.array, "cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> _Storage:
        if device is None:
            return _Storage(self.array, "cuda")
        return _Storage(
            self.array, str(_device("cuda", device) if isinstance(device, int) else _device(device))
        )

    def to(self, device) -> _Storage:
        return _Storage(
            self.array,
            str(_device(device) if not isinstance(device, int) else _device("cuda", device)),
        )

    @property
    def device(self) -> _device:
        return _device(self.location)

    def size(self) -> int:
        return int(self.array.size)

    def __len__(self) -> int:
        return int(self.array.size)


class _StorageType:
    """`torch.FloatStorage` and friends as the unpickler sees them: a dtype."""

    __slots__ = ("dtype", "name")

    def __init__(self, name: str, dtype: np.dtype | None):
        self.name = name
        self.dtype = dtype


class _Unpickler(pickle.Unpickler):
    """Reads `data.pkl`: torch's names become funcgrad's; with `weights_only`, nothing else loads."""

    def __init__(self, file, records: _Records | None, map_location, weights_only: bool, **kwargs):
        super().__init__(file, **kwargs)
        self.records = records
        self.map_location = map_location
        self.weights_only = weights_only
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str):
        # Python 2 names, as protocol 2 writes them (`__builtin__.set`); pickle's own mapping
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = _torch_name(module, name)
        if found is not None:
            return found
        full = f"{module}.{name}"
        if full in _ALLOWED:
            return _ALLOWED[full]
        if full in _safe:
            return _safe[full]
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(_torch_object_message(full))
        if self.weights_only:
            raise pickle.UnpicklingError(_weights_only_message(full))
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(
                f"funcgrad.load: unknown persistent id {pid!r} in the checkpoint; only PyTorch's "
                f"storages ('storage', type, key, location, numel) are known"
            )
        _, kind, key, location, numel = pid[:5]
        key = str(key)
        storage = self.storages.get(key)
        if storage is None:
            if not isinstance(kind, _StorageType):
                raise pickle.UnpicklingError(f"funcgrad.load: unknown storage type {kind!r}")
            assert self.records is not None  # a legacy file's storages come from _Fill
            array = self.records.storage(key, kind, int(numel))
            storage = _place(_Storage(array, str(location)), self.map_location)
            self.storages[key] = storage
        return storage


class _Records:
    """The records of a zip checkpoint, under its folder (`archive/` or the file's name)."""

    def __init__(self, zf: zipfile.ZipFile, path: str | None, mmap: bool):
        self.zf = zf
        names = zf.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            if any(n.endswith("constants.pkl") for n in names):
                raise pickle.UnpicklingError(_TORCHSCRIPT)
            raise pickle.UnpicklingError(
                f"funcgrad.load: the zip file has no <name>/data.pkl record ({len(names)} records: "
                f"{names[:5]}); it is not a checkpoint written by torch.save or funcgrad.save"
            )
        self.prefix = pkl[0][: -len("data.pkl")]
        if f"{self.prefix}constants.pkl" in names or f"{self.prefix}code/" in names:
            raise pickle.UnpicklingError(_TORCHSCRIPT)
        order = f"{self.prefix}byteorder"
        self.big_endian = order in names and zf.read(order).strip() == b"big"
        self.path = path if mmap else None
        self.warned = False

    def read_pickle(self) -> bytes:
        return self.zf.read(f"{self.prefix}data.pkl")

    def storage(self, key: str, kind: _StorageType, numel: int):
        """The storage `key` as a 1-D array of `kind`'s dtype (uint8 for an untyped storage)."""
        name = f"{self.prefix}data/{key}"
        dtype = kind.dtype
        bfloat16 = kind.name == _BFLOAT16
        raw_dtype = np.dtype(np.uint16) if bfloat16 else dtype
        if raw_dtype is None:
            raise pickle.UnpicklingError(
                f"funcgrad.load: storage type torch.{kind.name} has no funcgrad dtype; funcgrad "
                f"reads the storages of {', '.join(sorted(_STORAGES))}, UntypedStorage and "
                f"BFloat16Storage (as float32)"
            )
        if self.big_endian:
            raw_dtype = raw_dtype.newbyteorder(">")
        array = self._read(name, raw_dtype)
        if self.big_endian:
            array = array.astype(raw_dtype.newbyteorder("="))
        if bfloat16:
            if not self.warned:
                warnings.warn(f"funcgrad.load: {_BFLOAT16_NOTE}", stacklevel=4)
                self.warned = True
            array = (array.astype(np.uint32) << 16).view(np.float32)
        return array

    def _read(self, name: str, dtype: np.dtype):
        info = self.zf.getinfo(name)
        if self.path is not None and info.compress_type == zipfile.ZIP_STORED:
            with open(self.path, "rb") as fh:  # the data's offset, after the local header
                fh.seek(info.header_offset + 26)
                lengths = fh.read(4)
            start = info.header_offset + 30 + int.from_bytes(lengths[:2], "little")
            start += int.from_bytes(lengths[2:], "little")
            count = info.file_size // dtype.itemsize
            if count == 0:
                return np.zeros(0, dtype)
            return np.memmap(self.path, dtype=dtype, mode="c", offset=start, shape=(count,))
        return np.frombuffer(self.zf.read(name), dtype=dtype)


_TORCHSCRIPT = (
    "funcgrad.load: this is a TorchScript archive (torch.jit.save), which holds code funcgrad "
    "cannot run; in PyTorch, save the module's weights with torch.save(model.state_dict(), path) "
    "and load them with funcgrad.load"
)


def _place(storage: _Storage, map_location) -> _Storage:
    """Apply `map_location` (None, a device, a dict of locations, or a function) to a storage."""
    if map_location is None:
        return storage
    if callable(map_location) and not isinstance(map_location, (str, _device)):
        placed = map_location(storage, storage.location)
        if placed is None:
            return storage
        if not isinstance(placed, _Storage):
            raise TypeError(
                f"funcgrad.load: map_location returned {type(placed).__name__}; it should "
                f"return the storage it got, storage.cpu(), storage.cuda(i) or None"
            )
        return placed
    if isinstance(map_location, dict):
        target = map_location.get(storage.location, storage.location)
        return _Storage(storage.array, str(target))
    return _Storage(storage.array, str(_device(map_location)))


def _array_of(storage: _Storage, dtype: np.dtype | None, offset: int, size, stride):
    base = storage.array
    if dtype is not None and base.dtype != dtype:  # an untyped storage (bytes)
        base = base.view(dtype)
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    n = 1
    for s in size:
        n *= s
    if n == 0:
        return np.zeros(size, dtype=base.dtype)
    need = offset + sum((s - 1) * st for s, st in zip(size, stride, strict=True)) + 1
    if offset < 0 or need > base.size:
        raise pickle.UnpicklingError(
            f"funcgrad.load: a tensor of shape {list(size)} (offset {offset}, strides "
            f"{list(stride)}) does not fit its storage of {base.size} elements; the file is damaged"
        )
    view = np.lib.stride_tricks.as_strided(
        base[offset:], shape=size, strides=tuple(s * base.itemsize for s in stride)
    )
    # NOTE: a copy, so tensors that shared a storage in the file do not share memory here;
    # mapped storages (mmap=True) are used in place (copy on write), not read into memory.
    return np.asarray(view) if isinstance(storage.array, np.memmap) else np.array(view, copy=True)


def _tensor(storage: _Storage, offset, size, stride, requires_grad, dtype=None) -> Tensor:
    value = _array_of(storage, dtype, int(offset), size, stride)
    location = storage.location
    if location != "cpu":
        value = _to_location(value, location)
    return _fresh_leaf(Tensor, value, bool(requires_grad) and value.dtype.kind in "fc")


def _to_location(value, location: str):
    kind = location.partition(":")[0]
    if kind not in ("cpu", "cuda"):
        raise pickle.UnpicklingError(
            f"funcgrad.load: the checkpoint puts a tensor on {location!r}, a device funcgrad "
            f"does not have; pass map_location='cpu'"
        )
    if kind == "cuda" and not cuda_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but funcgrad.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use funcgrad.load with "
            "map_location=funcgrad.device('cpu') to map your storages to the CPU."
        )
    return to_device(value, location, op="funcgrad.load")


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _tensor(storage, storage_offset, size, stride, False)


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    return _tensor(storage, storage_offset, size, stride, requires_grad)


def _rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    return _tensor(storage, storage_offset, size, stride, requires_grad, np.dtype(dtype))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = Parameter(data, requires_grad)
    for k, v in state.items():
        setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    t = func(*args)
    if new_type is not Tensor and isinstance(new_type, type) and issubclass(new_type, Tensor):
        t = new_type(t) if new_type is Parameter else t
    for k, v in (state or {}).items():
        try:
            setattr(t, k, v)
        except AttributeError:
            pass  # a plain funcgrad Tensor has no room for attributes (slots)
    return t


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=device)
    return t.requires_grad_(bool(requires_grad)) if requires_grad else t


def _get_layout(name: str) -> str:
    if name != "torch.strided":
        raise pickle.UnpicklingError(
            f"funcgrad.load: layout {name} is not supported; funcgrad tensors are strided (dense)"
        )
    return name


def _torch_name(module: str, name: str):
    """The funcgrad object for a torch global of the file, or None if it is not one of them."""
    if module == "torch._utils":
        return _TORCH_UTILS.get(name)
    if module == "torch._tensor" and name == "_rebuild_from_type_v2":
        return _rebuild_from_type_v2
    if module == "torch":
        if name in _STORAGES:
            return _StorageType(name, _STORAGES[name])
        if name == _BFLOAT16:
            return _StorageType(name, np.dtype(np.float32))
        if name in _DTYPES:
            return _DTYPES[name]
        if name == "bfloat16":
            warnings.warn(f"funcgrad.load: {_BFLOAT16_NOTE}", stacklevel=3)
            return _DTYPES["float32"]
        if name in ("Size", "Tensor", "device"):
            return {"Size": Size, "Tensor": Tensor, "device": _device}[name]
        if name.endswith("Storage"):
            return _StorageType(name, None)
    if module == "torch.storage" and name in ("UntypedStorage", "_UntypedStorage"):
        return _StorageType(name, np.dtype(np.uint8))
    if module == "torch.nn.parameter" and name == "Parameter":
        return Parameter
    if module == "torch.nn.parameter" and name in ("UninitializedParameter", "UninitializedBuffer"):
        return UninitializedParameter if name == "UninitializedParameter" else UninitializedBuffer
    if module == "torch.serialization" and name == "_get_layout":
        return _get_layout
    return None


_TORCH_UTILS: dict[str, Callable[..., Any]] = {
    "_rebuild_tensor": _rebuild_tensor,
    "_rebuild_tensor_v2": _rebuild_tensor_v2,
    "_rebuild_tensor_v3": _rebuild_tensor_v3,
    "_rebuild_parameter": _rebuild_parameter,
    "_rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "_rebuild_device_tensor_from_cpu_tensor": _rebuild_device_tensor_from_cpu_tensor,
}


_REBUILDERS = frozenset({*_TORCH_UTILS.values(), _rebuild_from_type_v2})


def _encode(text: str, encoding: str = "utf-8") -> bytes:
    """`_codecs.encode`, as protocol 2 pickles bytes (`encode(text, 'latin1')`), and nothing else."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(
            "funcgrad.load: _codecs.encode is allowed only as pickle writes bytes (a str and 'latin1')"
        )
    return text.encode(encoding)


# The globals a weights_only load builds besides torch's (PyTorch's list).
_ALLOWED: dict[str, Any] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "_codecs.encode": _encode,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.bytearray": bytearray,
    "builtins.complex": complex,
    "builtins.slice": slice,
}


def _torch_object_message(full: str) -> str:
    return (
        f"funcgrad.load: the checkpoint holds a PyTorch object, {full}, which funcgrad cannot "
        f"build without torch. funcgrad reads tensors, parameters, dtypes, devices, sizes, "
        f"numbers, strings and containers of them; for a whole model saved with "
        f"torch.save(model), save model.state_dict() in PyTorch instead and load it with "
        f"funcgrad.load and model.load_state_dict"
    )


def _weights_only_message(full: str) -> str:
    return (
        f"Weights only load failed. funcgrad.load(weights_only=True), the default, builds only "
        f"tensors, numbers, strings and containers; the checkpoint asks for the global {full}, "
        f"which is not allowed by default. If you trust the file, allow it with "
        f"funcgrad.serialization.add_safe_globals([{full.rpartition('.')[2]}]) or load with "
        f"weights_only=False (which runs whatever code the file names: never on untrusted files)"
    )


def _open_for_reading(f) -> tuple[Any, str | None, contextlib.ExitStack]:
    stack = contextlib.ExitStack()
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        return stack.enter_context(open(path, "rb")), path, stack  # noqa: SIM115
    if not hasattr(f, "read"):
        raise TypeError(
            f"funcgrad.load: expected a path or a binary file object, got {type(f).__name__}"
        )
    if not (hasattr(f, "seek") and getattr(f, "seekable", lambda: True)()):
        f = io.BytesIO(f.read())
    return f, None, stack


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Load an object saved by `funcgrad.save` or `torch.save`, with funcgrad tensors in it.

    Reads PyTorch's zip checkpoints (PyTorch 1.6 and later) and its legacy
    format (`_use_new_zipfile_serialization=False`), without importing torch.

    Args:
        f: A path or a binary file object.
        map_location: Where tensors go: None (where they were saved; a CUDA
            tensor needs a GPU), a device (`'cpu'`, `funcgrad.device('cuda:0')`),
            a dict mapping saved locations to new ones (`{'cuda:1': 'cuda:0'}`),
            or a function `(storage, location) -> storage`
            (`lambda storage, loc: storage` keeps everything on the CPU).
        pickle_module: Must be `pickle` or None (PyTorch's signature).
        weights_only: True (the default, as in PyTorch 2.6 and later): build
            only tensors, parameters, dtypes, devices, sizes, numbers,
            strings, bytes, containers and `add_safe_globals`' objects.
            False: unpickle anything (only for files you trust).
        mmap: Map the storages of a file on disk into memory (copy on
            write) instead of reading them.

    Raises:
        pickle.UnpicklingError: For a global that `weights_only` does not
            allow, a whole PyTorch object (`torch.save(model)`), a
            TorchScript archive, or a damaged file.
        RuntimeError: For CUDA tensors without a GPU (give `map_location='cpu'`).

    Examples:
        >>> import io
        >>> import funcgrad as torch
        >>> buffer = io.BytesIO()
        >>> torch.save([torch.arange(3), torch.tensor(2.5)], buffer)
        >>> _ = buffer.seek(0)
        >>> torch.load(buffer, map_location="cpu")
        [tensor([0, 1, 2]), tensor(2.5000)]
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("funcgrad.load: pickle_module must be the standard pickle module")
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "") not in ("1", "true")
    pickle_load_args.setdefault("encoding", "utf-8")
    handle, path, stack = _open_for_reading(f)
    with stack:
        start = handle.tell()
        if zipfile.is_zipfile(handle):
            handle.seek(start)
            with zipfile.ZipFile(handle) as zf:
                records = _Records(zf, path, bool(mmap))
                unpickler = _Unpickler(
                    io.BytesIO(records.read_pickle()),
                    records,
                    map_location,
                    weights_only,
                    **pickle_load_args,
                )
                return unpickler.load()
        handle.seek(start)
        return _load_legacy(handle, map_location, weights_only, pickle_load_args)


# --- PyTorch's legacy format (before 1.6): pickles one after the other, then the storages -------

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


def _ignore(*args, **kwargs) -> None:
    return None


def _load_legacy(handle, map_location, weights_only: bool, pickle_load_args: dict):
    head = pickle.Unpickler(handle, **pickle_load_args)
    try:
        magic = head.load()
    except Exception as e:
        raise pickle.UnpicklingError(
            f"funcgrad.load: not a checkpoint of torch.save or funcgrad.save (neither a zip "
            f"file nor PyTorch's legacy format: {type(e).__name__}: {e})"
        ) from None
    if magic != _LEGACY_MAGIC:
        raise pickle.UnpicklingError(
            "funcgrad.load: not a checkpoint of torch.save or funcgrad.save (no zip archive, and "
            "no magic number of PyTorch's legacy format)"
        )
    if head.load() != _LEGACY_PROTOCOL:
        raise pickle.UnpicklingError("funcgrad.load: unknown legacy protocol version")
    sys_info = head.load()
    little = not isinstance(sys_info, dict) or sys_info.get("little_endian", True)
    # The object's pickle names its storages; their bytes follow it. Read the pickle once to
    # learn the storages, then the bytes, then the pickle again with the storages filled in.
    start = handle.tell()
    keys: dict[str, tuple[_StorageType, int, str]] = {}

    class _Scan(_Unpickler):
        def find_class(self, module, name):
            found = super().find_class(module, name)
            return _ignore if found in _REBUILDERS else found

        def persistent_load(self, pid):
            if pid[0] == "storage":
                _, kind, key, location, numel = pid[:5]
                keys.setdefault(str(key), (kind, int(numel), str(location)))
            return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _Scan(handle, None, None, weights_only, **pickle_load_args).load()
    order = pickle.Unpickler(handle, **pickle_load_args).load()
    data: dict[str, _Storage] = {}
    for key in order:
        kind, numel, location = keys[str(key)]
        count = int.from_bytes(handle.read(8), "little" if little else "big")
        dtype = (
            np.dtype(np.uint16) if kind.name == _BFLOAT16 else (kind.dtype or np.dtype(np.uint8))
        )
        dtype = dtype.newbyteorder("<" if little else ">")
        array = np.frombuffer(handle.read(count * dtype.itemsize), dtype=dtype).astype(
            dtype.newbyteorder("=")
        )
        if kind.name == _BFLOAT16:
            array = (array.astype(np.uint32) << 16).view(np.float32)
        data[str(key)] = _place(_Storage(array, location), map_location)
    end = handle.tell()
    handle.seek(start)

    class _Fill(_Unpickler):
        def persistent_load(self, pid):
            if pid[0] == "storage":
                storage = data[str(pid[2])]
                view = pid[5] if len(pid) > 5 else None
                if view is not None:  # (view key, offset, size): a slice of a storage
                    _, offset, size = view
                    storage = _Storage(storage.array[offset : offset + size], storage.location)
                return storage
            raise pickle.UnpicklingError(f"funcgrad.load: unknown persistent id {pid!r}")

    result = _Fill(handle, None, map_location, weights_only, **pickle_load_args).load()
    handle.seek(end)
    return result


# --- the weights_only allowlist --------------------------------------------------------------------


def _name_of(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list) -> None:
    """Allow these functions and classes in `load(weights_only=True)`.

    Each entry is an object, or `(object, "module.name")` to allow it under
    the name the file uses.

    Examples:
        >>> import funcgrad as torch
        >>> torch.serialization.add_safe_globals([complex])
        >>> complex in torch.serialization.get_safe_globals()
        True
        >>> torch.serialization.clear_safe_globals()
    """
    for entry in safe_globals:
        if isinstance(entry, tuple):
            obj, name = entry
            _safe[name] = obj
        else:
            _safe[_name_of(entry)] = entry


def get_safe_globals() -> list:
    """Return the objects `add_safe_globals` allowed."""
    return list(_safe.values())


def clear_safe_globals() -> None:
    """Forget every object `add_safe_globals` allowed."""
    _safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list) -> Iterator[None]:
    """Allow these objects in `load(weights_only=True)` inside the block only."""
    before = dict(_safe)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _safe.clear()
        _safe.update(before)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """Return the globals of a checkpoint that `load(weights_only=True)` would refuse."""
    import pickletools

    handle, _, stack = _open_for_reading(f)
    with stack, zipfile.ZipFile(handle) as zf:
        records = _Records(zf, None, False)
        found = []
        for opcode, arg, _ in pickletools.genops(records.read_pickle()):
            if opcode.name == "GLOBAL":
                module, name = str(arg).split(" ", 1)
                full = f"{module}.{name}"
                if _torch_name(module, name) is None and full not in _ALLOWED and full not in _safe:
                    found.append(full)
        return sorted(set(found))


__getattr__ = _module_getattr("torch.serialization", "funcgrad.serialization")
