"""Write `funcgrad/tensors/_torch_names.py`: the torch names funcgrad owes its users (issue #14).

The scope is read from PyTorch's own namespaces (this script imports torch):
the public names of `torch`, of `torch.Tensor` and of the submodules listed
in `NAMESPACES`, less what is not PyTorch's API (the standard library and
typing names their modules import, and other modules' objects re-exported).
A name of the scope that funcgrad lacks raises
`funcgrad.errors.NotProvidedError` (an `AttributeError`) where funcgrad
looks it up (`funcgrad.tensors.missing`); `BY_DESIGN` gives the reason of
the names left out on purpose. docs/api/torch-names.md lists every name and
whether funcgrad provides it (generated when the site is built).
Run it again with a new PyTorch:

    python scripts/torch_scope.py            (--check: exit 1 if the file is stale)
"""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "funcgrad" / "tensors" / "_torch_names.py"

# PyTorch's namespaces -> where funcgrad has them.
NAMESPACES: dict[str, str] = {
    "torch": "funcgrad",
    "torch.Tensor": "funcgrad.Tensor",
    "torch.autograd": "funcgrad.autograd",
    "torch.autograd.functional": "funcgrad.autograd.functional",
    "torch.autograd.forward_ad": "funcgrad.autograd.forward_ad",
    "torch.autograd.graph": "funcgrad.autograd.graph",
    "torch.backends": "funcgrad.backends",
    "torch.cuda": "funcgrad.cuda",
    "torch.distributions": "funcgrad.distributions",
    "torch.fft": "funcgrad.fft",
    "torch.func": "funcgrad.func",
    "torch.linalg": "funcgrad.linalg",
    "torch.nn": "funcgrad.nn",
    "torch.nn.functional": "funcgrad.nn.functional",
    "torch.nn.init": "funcgrad.nn.init",
    "torch.nn.utils": "funcgrad.nn.utils",
    "torch.optim": "funcgrad.optim",
    "torch.optim.lr_scheduler": "funcgrad.optim.lr_scheduler",
    "torch.profiler": "funcgrad.profiler",
    "torch.random": "funcgrad.random",
    "torch.serialization": "funcgrad.serialization",
    "torch.special": "funcgrad.special",
    "torch.utils.checkpoint": "funcgrad.utils.checkpoint",
    "torch.utils.data": "funcgrad.utils.data",
}

# Names that are not PyTorch's API although its modules show them: build flags, and the
# TorchScript, dispatcher and benchmarking internals that torch/__init__.py re-exports from C++.
NOT_API = {
    "torch": set(
        "TYPE_CHECKING USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH PRIVATE_OPS LoggerBase "
        "classproperty compiled_with_cxx11_abi get_file_path prepare_multiprocessing_environment "
        "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 torch version torch_version "
        "return_types windows AVG SUM AggregationType ArgumentSpec BenchmarkConfig "
        "BenchmarkExecutionStats BufferDict CallStack Capsule Code CompilationUnit "
        "CompleteArgumentSpec ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable "
        "DisableTorchFunction DisableTorchFunctionSubclass DispatchKey DispatchKeySet ErrorReport "
        "ExcludeDispatchKeyGuard ExecutionPlan FatalError FileCheck Gradient GraphExecutorState "
        "IODescriptor InferredType JITException LockingLogger NoopLogger OperatorInfo "
        "PyTorchFileReader PyTorchFileWriter StaticModule Tag ThroughputBenchmark TracingState "
        "import_ir_module import_ir_module_from_buffer merge_type_from_type_comment "
        "parse_ir parse_schema parse_type_comment unify_type_list vitals_enabled set_vital "
        "read_vitals has_cuda has_cudnn has_mkldnn has_mps has_lapack has_mkl has_openmp "
        "has_spectral init_num_threads wait fork".split()
    ),
}
# TorchScript's type classes (AnyType, TensorType ...), also internals.
NOT_API_PATTERN = re.compile(r"^[A-Z]\w*Type$")

# Names left out on purpose: a regular expression per reason, matched against `namespace.name`.
BY_DESIGN: dict[str, str] = {
    "a dtype NumPy does not have (funcgrad's dtypes are NumPy's); use float16, float32, "
    "float64 or an integer dtype": r"(^|\.)(bfloat16|BFloat16\w*|float8\w*|float4\w*|complex32|chalf"
    r"|cfloat_?|bits\w+|u?int[1-7]|Float8\w*|.*_e[458]m\d\w*)$",
    "mixed precision (autocast, GradScaler) is not provided: funcgrad computes each dtype in "
    "itself; cast explicitly (x.half(), x.float())": r"(^|\.)(\w*autocast\w*|amp|GradScaler"
    r"|\w*_fast_dtype|is_autocast\w*)$",
    "quantized tensors are not provided": r"(^|\.)(\w*quantiz\w*|q_\w+|qscheme|q?u?int\d+x\d+"
    r"|q(u)?int\d+|QU?Int\w+|fbgemm_\w+|int_repr|per_(tensor|channel)_\w+|fake_quant\w*"
    r"|dequantize|\w*_qparams\w*|is_quantized|quantized\w*)$",
    "sparse tensors are not provided (funcgrad's tensors are dense NumPy or CuPy arrays)": r"(^|\.)(\w*sparse\w*|smm|hspmm|sspaddmm|spmm|indices|values|crow_indices|col_indices"
    r"|ccol_indices|row_indices|coalesce|is_coalesced|dense_dim|sparse_dim|_nnz|"
    r"sparse_(coo|csr|csc|bsr|bsc)|to_dense|saddmm)$",
    "a kernel of one PyTorch backend (cuDNN, MIOpen, oneDNN ...), not an operation of its own": r"(^|\.)(mkldnn\w*|cudnn_\w+|miopen_\w+|native_\w+|\w*_mps\w*|is_mkldnn|to_mkldnn"
    r"|mps|xpu|mtia|hpu|ipu|xla|is_xpu|is_mps|is_xla|is_hpu|is_ipu|is_mtia|is_vulkan|is_maia"
    r"|is_meta|vulkan\w*|accelerator|cpu)$",
    "compiling, tracing and exporting are not provided: funcgrad runs eagerly on NumPy and "
    "CuPy (funcgrad.jit replays a traced plan)": r"^torch\.(compiler|jit|export|fx|onnx"
    r"|package|library|cond|while_loop|associative_scan|scan|ops|classes|_dynamo|overrides"
    r"|is_dynamo\w*|cpp|SymInt|SymFloat|SymBool|sym_\w+|Sym\w+|ScriptModule|ScriptFunction"
    r"|Graph|Value|Block|Node|Use|Type|FunctionSchema|Argument|AliasDb|Future|futures"
    r"|Aliasing\w*|\w*Script\w*|is_compiling|set_float32_matmul_precision_)$",
    "nested and named tensors are not provided": r"(^|\.)(nested\w*|is_nested|names|rename_?"
    r"|refine_names|align_to|align_as|align_tensors|has_names|jagged)$",
    "funcgrad's graph saves no tensors for the backward pass (each node holds the value it "
    "computed, read-only), so there is nothing to pack or unpack; to save memory, checkpoint "
    "(funcgrad.utils.checkpoint)": r"^torch\.autograd\.graph\.(saved_tensors_hooks|save_on_cpu"
    r"|disable_saved_tensors_hooks|allow_mutation_on_saved_tensors)$",
    "single-process multi-device DataParallel is not provided: use "
    "nn.parallel.DistributedDataParallel, one process per device (PyTorch recommends it "
    "over DataParallel)": r"^torch\.nn\.(parallel\.)?(DataParallel|data_parallel)$",
    "funcgrad tensors hold NumPy or CuPy arrays, not PyTorch storages": r"(^|\.)(\w*Storage\w*"
    r"|storage|untyped_storage|storage_type|set_|share_memory_|is_shared|data_ptr|_cdata"
    r"|pin_memory|is_pinned|record_stream|from_file|is_storage)$",
}


def _public(obj: object, namespace: str) -> set[str]:
    """The public names of a module (or class) that are PyTorch's API."""
    declared = getattr(obj, "__all__", None) if isinstance(obj, types.ModuleType) else None
    names = set(declared) if declared is not None else {n for n in dir(obj) if n[:1] != "_"}
    if namespace == "torch":  # torch.__all__ leaves out submodules and a few functions
        names |= {n for n in dir(obj) if n[:1] != "_"}
    elif declared is not None:  # __all__ leaves out the submodules
        names |= {
            n
            for n in dir(obj)
            if isinstance(getattr(obj, n, None), types.ModuleType)
            and getattr(obj, n).__name__ == f"{namespace}.{n}"
        }
    found = set()
    for name in names:
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a lazy attribute that fails to import here
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__ == f"{namespace}.{name}":
                found.add(name)
            continue
        if isinstance(obj, type) or declared is not None:
            found.add(name)
            continue
        module = getattr(value, "__module__", None) or type(value).__module__
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            found.add(name)  # torch.pi, torch.inf ...
        elif isinstance(module, str) and module.startswith("torch"):
            found.add(name)
    found -= NOT_API.get(namespace, set())
    if namespace == "torch":
        found = {n for n in found if not NOT_API_PATTERN.match(n)}
    return found


def scope() -> dict[str, set[str]]:
    """Return `{namespace: names}` read from the installed PyTorch."""
    import torch

    for namespace in NAMESPACES:  # every namespace imported first: importing one adds names
        if namespace != "torch.Tensor":
            importlib.import_module(namespace)
    result = {}
    for namespace in NAMESPACES:
        obj = torch.Tensor if namespace == "torch.Tensor" else importlib.import_module(namespace)
        result[namespace] = _public(obj, namespace)
    return result


def by_design(names: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """Return `{namespace: {name: reason}}` for the names matched by `BY_DESIGN`."""
    patterns = [(reason, re.compile(rx)) for reason, rx in BY_DESIGN.items()]
    found: dict[str, dict[str, str]] = {}
    for namespace, members in names.items():
        for name in sorted(members):
            for reason, rx in patterns:
                if rx.search(f"{namespace}.{name}"):
                    found.setdefault(namespace, {})[name] = reason
                    break
    return found


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _words(names: set[str]) -> str:
    return "\n".join(textwrap.wrap(" ".join(sorted(names)), 96, break_on_hyphens=False))


def render() -> str:
    """Return the text of `funcgrad/tensors/_torch_names.py` for the installed PyTorch."""
    import torch

    names = scope()
    design = by_design(names)
    reasons = sorted(BY_DESIGN)
    out = [
        '"""The torch names funcgrad owes its users, and those it leaves out by design (issue #14).',
        "",
        "Generated by scripts/torch_scope.py from PyTorch's own namespaces (do not edit;",
        "run the script): `SCOPE` holds the public names of each namespace of PyTorch",
        f"{torch.__version__.split('+')[0]}, `BY_DESIGN` the reason of each name left out on purpose.",
        "A name of the scope that funcgrad lacks raises `funcgrad.errors.NotProvidedError`",
        "(`funcgrad.tensors.missing`).",
        '"""',
        "",
        f"TORCH_VERSION = {_q(torch.__version__.split('+')[0])}",
        "",
        "# Where funcgrad has each of PyTorch's namespaces.",
        "NAMESPACES: dict[str, str] = {",
        *(f"    {_q(k)}: {_q(v)}," for k, v in NAMESPACES.items()),
        "}",
        "",
        "_REASONS = (",
        *(f"    {_q(r)}," for r in reasons),
        ")",
        "",
        "SCOPE: dict[str, frozenset[str]] = {",
    ]
    for namespace in NAMESPACES:
        out += [f"    {_q(namespace)}: frozenset(", '        """']
        out += [_words(names[namespace])]
        out += ['""".split()', "    ),"]
    out += ["}", "", "# namespace -> name -> index of its reason in _REASONS", "_DESIGN = {"]
    for namespace in NAMESPACES:
        members = design.get(namespace, {})
        if not members:
            continue
        out.append(f"    {_q(namespace)}: {{")
        for name, reason in sorted(members.items()):
            out.append(f"        {_q(name)}: {reasons.index(reason)},")
        out.append("    },")
    out += [
        "}",
        "",
        "BY_DESIGN: dict[str, dict[str, str]] = {",
        "    namespace: {name: _REASONS[i] for name, i in members.items()}",
        "    for namespace, members in _DESIGN.items()",
        "}",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:  # what the tests run, in a fresh process (importing torch adds names)
        current = OUT.read_text(encoding="utf-8")
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python scripts/torch_scope.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
