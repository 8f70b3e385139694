"""`Tensor` methods of the tensor API (issue #14) that are not one primitive's declared method.

Each is the PyTorch-style function of its name with the tensor first
(`x.sort(dim)` is `funcgrad.sort(x, dim)`); each in-place method
(`x.scatter_(...)`, `x.masked_fill_(...)`) computes that function and
rebinds the tensor to the result through `funcgrad.tensors.inplace`.
`funcgrad/tensors/methods.py` installs them on `Tensor`.
"""

from __future__ import annotations

from funcgrad.errors import DtypeError
from funcgrad.tensors import _conveniences as _C
from funcgrad.tensors import _generated as _G
from funcgrad.tensors import _shaping
from funcgrad.tensors import functions as F
from funcgrad.tensors._shape_inplace import shape_inplace
from funcgrad.tensors.dtypes import torch_name
from funcgrad.tensors.inplace import inplace


def _where(self, condition, y):
    """Return `self` where `condition` holds, else `y` (`funcgrad.where(condition, self, y)`)."""
    return F.where(condition, self, y)


def _masked_fill_values(self, mask, value):
    # in place, an integer tensor takes a value that requires grad as a constant (PyTorch's
    # out-of-place masked_fill refuses it: its result could not require grad)
    if getattr(value, "requires_grad", False) and self.dtype.kind not in "fc":
        value = value.detach()
    return F.masked_fill(self, mask, value)


def _polygamma(self, n):
    """Return `funcgrad.polygamma(n, self)` (the method takes `n` after the tensor)."""
    return F.polygamma(n, self)


def _float_power_in_place(self, exponent):
    # the result is float64 (complex128): PyTorch refuses to write it into another dtype
    wanted = "complex128" if self.dtype.kind == "c" or isinstance(exponent, complex) else "float64"
    if str(self.dtype) != wanted:
        raise DtypeError(
            f"funcgrad.Tensor.float_power_: the base given to float_power_ has dtype "
            f"{torch_name(self.dtype)} but the operation's result requires dtype "
            f"{torch_name(wanted)}"
        )
    return F.float_power(self, exponent)


def _remainder(self, other):
    # generated from the record: looked up when called (this module loads before a
    # regeneration adds it)
    return _G.remainder(self, other)


def _flip(fn):
    def reflected(self, other):
        return fn(other, self)

    reflected.__name__ = f"r{fn.__name__}"
    return reflected


class ApiMethods:
    """The methods of the tensor API's functions: sorting, gathering, scattering, masking ..."""

    __slots__ = ()

    # --- conveniences: new tensors like this one, sizes, layout, predicates, Python loops
    new_ones = _C._new_ones
    new_zeros = _C._new_zeros
    new_full = _C._new_full
    new_empty = _C._new_empty
    new_tensor = _C._new_tensor
    type_as = _C._type_as
    element_size = _C._element_size
    nbytes = property(_C._nbytes, doc="The size of the values in bytes.")
    itemsize = property(_C._element_size, doc="The size of one element in bytes.")
    ndimension = _C._ndimension
    stride = _C._stride
    storage_offset = _C._storage_offset
    is_floating_point = F.is_floating_point
    is_complex = F.is_complex
    is_signed = _C._is_signed
    is_nonzero = F.is_nonzero
    is_same_size = F.is_same_size
    apply_ = _C._apply_loop
    map_ = _C._map_loop

    # --- extrema, sorting, order statistics
    aminmax = F.aminmax
    sort = F.sort
    argsort = F.argsort
    msort = F.msort
    topk = F.topk
    kthvalue = F.kthvalue
    median = F.median
    nanmedian = F.nanmedian
    mode = F.mode
    cummax = F.cummax
    cummin = F.cummin
    quantile = F.quantile
    nanquantile = F.nanquantile
    nansum = F.nansum
    nanmean = F.nanmean
    count_nonzero = F.count_nonzero

    # --- products
    addmm = F.addmm
    addmv = F.addmv
    addbmm = F.addbmm
    baddbmm = F.baddbmm
    addr = F.addr
    mv = F.mv
    vdot = F.vdot
    ger = F.ger
    inner = F.inner
    kron = F.kron
    cross = F.cross

    addmm_ = inplace("addmm_", F.addmm)
    addmv_ = inplace("addmv_", F.addmv)
    addbmm_ = inplace("addbmm_", F.addbmm)
    baddbmm_ = inplace("baddbmm_", F.baddbmm)
    addr_ = inplace("addr_", F.addr)

    dist = F.dist
    renorm = F.renorm
    renorm_ = inplace("renorm_", F.renorm)

    # --- matrices
    svd = F.svd
    qr = F.qr
    cholesky = F.cholesky
    cholesky_solve = F.cholesky_solve
    cholesky_inverse = F.cholesky_inverse
    slogdet = F.slogdet
    logdet = F.logdet
    pinverse = F.pinverse
    matrix_power = F.matrix_power
    matrix_exp = F.matrix_exp

    # --- shapes
    split = F.split
    chunk = F.chunk
    tensor_split = F.tensor_split
    hsplit = F.hsplit
    vsplit = F.vsplit
    dsplit = F.dsplit
    unbind = F.unbind
    fliplr = F.fliplr
    flipud = F.flipud
    roll = F.roll
    rot90 = F.rot90
    tile = F.tile
    repeat = _shaping.repeat
    repeat_interleave = F.repeat_interleave
    broadcast_to = F.broadcast_to
    unflatten = F.unflatten
    ravel = F.ravel
    movedim = F.movedim
    moveaxis = F.moveaxis
    swapaxes = F.swapaxes
    swapdims = F.swapdims
    unsqueeze_ = shape_inplace("unsqueeze_")
    squeeze_ = shape_inplace("squeeze_")
    t_ = shape_inplace("t_")
    transpose_ = shape_inplace("transpose_")
    swapaxes_ = shape_inplace("swapaxes_")
    swapdims_ = shape_inplace("swapdims_")
    diag = F.diag
    diag_embed = F.diag_embed
    diagflat = F.diagflat
    trace = F.trace
    diff = F.diff

    # --- elementwise math
    lerp = F.lerp
    floor = F.floor
    ceil = F.ceil
    trunc = F.trunc
    fix = F.fix
    round = F.round
    frac = F.frac
    rsqrt = F.rsqrt
    sgn = F.sgn
    signbit = F.signbit
    positive = F.positive
    floor_divide = F.floor_divide
    float_power = F.float_power
    logit = F.logit
    mvlgamma = F.mvlgamma
    nan_to_num = F.nan_to_num
    eq = F.eq
    ne = F.ne
    lt = F.lt
    le = F.le
    gt = F.gt
    ge = F.ge
    not_equal = F.not_equal
    less = F.less
    less_equal = F.less_equal
    greater = F.greater
    greater_equal = F.greater_equal
    isnan = F.isnan
    isinf = F.isinf
    isfinite = F.isfinite
    isposinf = F.isposinf
    isneginf = F.isneginf
    isreal = F.isreal
    isclose = F.isclose
    bitwise_and = F.bitwise_and
    bitwise_or = F.bitwise_or
    bitwise_xor = F.bitwise_xor
    bitwise_left_shift = F.bitwise_left_shift
    bitwise_right_shift = F.bitwise_right_shift
    bitwise_not = F.bitwise_not
    logical_and = F.logical_and
    logical_or = F.logical_or
    logical_xor = F.logical_xor
    logical_not = F.logical_not
    conj = F.conj
    conj_physical = F.conj_physical
    resolve_conj = F.resolve_conj
    resolve_neg = F.resolve_neg
    angle = F.angle
    polygamma = _polygamma

    lerp_ = inplace("lerp_", F.lerp)
    floor_ = inplace("floor_", F.floor)
    ceil_ = inplace("ceil_", F.ceil)
    trunc_ = inplace("trunc_", F.trunc)
    fix_ = inplace("fix_", F.fix)
    round_ = inplace("round_", F.round)
    frac_ = inplace("frac_", F.frac)
    rsqrt_ = inplace("rsqrt_", F.rsqrt)
    sgn_ = inplace("sgn_", F.sgn)
    floor_divide_ = inplace("floor_divide_", F.floor_divide)
    float_power_ = inplace("float_power_", _float_power_in_place)
    logit_ = inplace("logit_", F.logit)
    mvlgamma_ = inplace("mvlgamma_", F.mvlgamma)
    nan_to_num_ = inplace("nan_to_num_", F.nan_to_num)
    eq_ = inplace("eq_", F.eq)
    ne_ = inplace("ne_", F.ne)
    lt_ = inplace("lt_", F.lt)
    le_ = inplace("le_", F.le)
    gt_ = inplace("gt_", F.gt)
    ge_ = inplace("ge_", F.ge)
    not_equal_ = inplace("not_equal_", F.not_equal)
    less_ = inplace("less_", F.less)
    less_equal_ = inplace("less_equal_", F.less_equal)
    greater_ = inplace("greater_", F.greater)
    greater_equal_ = inplace("greater_equal_", F.greater_equal)
    bitwise_and_ = inplace("bitwise_and_", F.bitwise_and)
    bitwise_or_ = inplace("bitwise_or_", F.bitwise_or)
    bitwise_xor_ = inplace("bitwise_xor_", F.bitwise_xor)
    bitwise_left_shift_ = inplace("bitwise_left_shift_", F.bitwise_left_shift)
    bitwise_right_shift_ = inplace("bitwise_right_shift_", F.bitwise_right_shift)
    bitwise_not_ = inplace("bitwise_not_", F.bitwise_not)
    logical_and_ = inplace("logical_and_", F.logical_and)
    logical_or_ = inplace("logical_or_", F.logical_or)
    logical_xor_ = inplace("logical_xor_", F.logical_xor)
    logical_not_ = inplace("logical_not_", F.logical_not)
    conj_physical_ = inplace("conj_physical_", F.conj_physical)
    polygamma_ = inplace("polygamma_", _polygamma)

    # --- operators: remainders, floor division, bitwise and shifts
    __mod__ = _remainder
    __rmod__ = _flip(_remainder)
    __imod__ = inplace("__imod__", _remainder)
    __floordiv__ = F.floor_divide
    __rfloordiv__ = _flip(F.floor_divide)
    __ifloordiv__ = inplace("__ifloordiv__", F.floor_divide)
    __and__ = __rand__ = F.bitwise_and
    __or__ = __ror__ = F.bitwise_or
    __xor__ = __rxor__ = F.bitwise_xor
    __iand__ = inplace("__iand__", F.bitwise_and)
    __ior__ = inplace("__ior__", F.bitwise_or)
    __ixor__ = inplace("__ixor__", F.bitwise_xor)
    __invert__ = F.bitwise_not
    __lshift__ = F.bitwise_left_shift
    __rlshift__ = _flip(F.bitwise_left_shift)
    __ilshift__ = inplace("__ilshift__", F.bitwise_left_shift)
    __rshift__ = F.bitwise_right_shift
    __rrshift__ = _flip(F.bitwise_right_shift)
    __irshift__ = inplace("__irshift__", F.bitwise_right_shift)

    # --- masking and nonzero entries (gather and scatter declare theirs in their records)
    masked_fill = F.masked_fill
    where = _where
    nonzero = F.nonzero
    argwhere = F.argwhere
    unique = F.unique

    masked_fill_ = inplace("masked_fill_", _masked_fill_values)
