#!/usr/bin/env bash
# The GPU check of issue #8, in one go (about five minutes on a fresh machine):
# installs what is missing, runs every CUDA test case (pytest -m cuda) and the
# GPU benchmark (benchmarks/gpu.py), and writes a short markdown report.
#
#   bash scripts/gpu_check.sh [REPORT.md]
#
# The report goes to REPORT.md, else to $OUT/gpu_report.md, else to
# ./gpu_report.md; the same summary is printed.
#
# Environment:
#   PYTHON                    the interpreter (default: python)
#   GPU_CHECK_STRICT=1        exit 4 instead of 0 when there is no GPU
#   GPU_CHECK_EXAMPLES        hypothesis examples per primitive and test (default 3)
#   GPU_CHECK_TEST_TIMEOUT    seconds for the tests (default 300)
#   GPU_CHECK_WORKERS         pytest-xdist workers, where it is installed (default auto)
#   GPU_CHECK_BENCH_TIMEOUT   seconds for the benchmark (default 90)
#   PIP_FIND_LINKS, PIP_NO_INDEX   honoured by pip, for machines without internet
#
# Exit codes:
#   0  the tests passed and the benchmark ran, or there is no NVIDIA GPU here
#      (the report then says "no GPU" and nothing was run)
#   1  CUDA test cases failed or timed out (the benchmark still ran; see the report)
#   2  the tests passed, but the benchmark failed (crashed, timed out, or its
#      gradients differ from the hand-written CuPy ones)
#   3  CuPy (or the test tools) could not be installed, CuPy sees no GPU
#      although nvidia-smi does, or CuPy cannot compile and run a kernel
#   4  no GPU, with GPU_CHECK_STRICT=1

set -u
cd "$(dirname "$0")/.."
START=$(date +%s)
PY="${PYTHON:-python}"
REPORT="${1:-${OUT:-.}/gpu_report.md}"
mkdir -p "$(dirname "$REPORT")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
EXAMPLES="${GPU_CHECK_EXAMPLES:-3}"

elapsed() { echo $(($(date +%s) - START)); }

report_header() {
    {
        echo "# funcgrad GPU check"
        echo
        echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
        echo "- python: $($PY -c 'import platform; print(platform.python_version())' 2>/dev/null || echo '?')"
    } >"$REPORT"
}

finish() {  # finish CODE SUMMARY
    {
        echo
        echo "**Result: $2** (exit code $1, $(elapsed) s)"
    } >>"$REPORT"
    echo "gpu_check: $2 (exit $1, $(elapsed) s); report: $REPORT"
    exit "$1"
}

report_header

# --- 1. is there an NVIDIA GPU? ------------------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >"$WORK/gpus" 2>&1 \
    || ! grep -q "^GPU" "$WORK/gpus"; then
    why="nvidia-smi is not installed"
    command -v nvidia-smi >/dev/null 2>&1 && why="nvidia-smi lists no GPU: $(head -n1 "$WORK/gpus")"
    {
        echo "- GPU: none ($why)"
        echo
        echo "No GPU: nothing was run. The CUDA test cases skip on such machines"
        echo "(\`pytest tests/gpu\` shows them as skipped with the reason)."
    } >>"$REPORT"
    if [ "${GPU_CHECK_STRICT:-0}" = "1" ]; then finish 4 "no GPU"; fi
    finish 0 "skipped: no GPU"
fi
CUDA_VERSION="$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\)\.\([0-9]*\).*/\1.\2/p' | head -n1)"
{
    echo "- GPU: $(sed -n 's/^GPU [0-9]*: \(.*\) (UUID.*/\1/p' "$WORK/gpus" | paste -sd ';' -)"
    echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1), CUDA (driver) ${CUDA_VERSION:-?}"
} >>"$REPORT"

# --- 2. install what is missing ----------------------------------------------------------------
if ! $PY -c "import cupy, pytest, hypothesis, optree, attrs, numpy" >/dev/null 2>&1; then
    case "${CUDA_VERSION%%.*}" in
        11) extras=".[dev]"; wheel="cupy-cuda11x" ;;
        *) extras=".[dev,gpu]"; wheel="" ;;  # the gpu extra is cupy-cuda12x
    esac
    echo "gpu_check: installing: pip install -e \"$extras\" $wheel"
    if ! timeout 240 $PY -m pip install -q --disable-pip-version-check -e "$extras" $wheel \
        >"$WORK/pip.log" 2>&1; then
        {
            echo "- install: FAILED (pip install -e \"$extras\" $wheel); last lines:"
            echo
            echo '```'
            tail -n 15 "$WORK/pip.log"
            echo '```'
        } >>"$REPORT"
        finish 3 "install failed"
    fi
    echo "- install: pip install -e \"$extras\" $wheel ($(elapsed) s)" >>"$REPORT"
else
    echo "- install: nothing missing" >>"$REPORT"
fi
if ! $PY -c "import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() < 1)" >"$WORK/cupy.log" 2>&1; then
    {
        echo "- CuPy: sees no GPU although nvidia-smi does (wrong CuPy wheel for the driver?):"
        echo
        echo '```'
        tail -n 5 "$WORK/cupy.log"
        echo '```'
    } >>"$REPORT"
    finish 3 "CuPy sees no GPU"
fi
# A kernel compiled (NVRTC) and a matmul (cuBLAS): without a CUDA Toolkit on the
# machine, CuPy >= 14 needs the toolkit from PyPI (the [ctk] extra of its wheel).
SMOKE='import cupy; a = cupy.arange(4.0); print(float(a @ a + cupy.tanh(a).sum()))'
if ! $PY -c "$SMOKE" >"$WORK/smoke.log" 2>&1; then
    case "${CUDA_VERSION%%.*}" in 11) ctk="cupy-cuda11x" ;; *) ctk="cupy-cuda12x[ctk]" ;; esac
    echo "gpu_check: CuPy cannot compile or run kernels; trying pip install \"$ctk\""
    timeout 240 $PY -m pip install -q --disable-pip-version-check "$ctk" >>"$WORK/pip.log" 2>&1
    if ! $PY -c "$SMOKE" >"$WORK/smoke.log" 2>&1; then
        {
            echo "- CuPy: imports but cannot run a kernel (CUDA Toolkit libraries missing?); tried pip install \"$ctk\":"
            echo
            echo '```'
            tail -n 8 "$WORK/smoke.log"
            echo '```'
        } >>"$REPORT"
        finish 3 "CuPy cannot run kernels"
    fi
    echo "- install: pip install \"$ctk\" (CUDA libraries from PyPI)" >>"$REPORT"
fi
echo "- CuPy: $($PY -c 'import cupy; print(cupy.__version__, "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())' 2>&1 | tail -n1)" >>"$REPORT"

# --- 3. the CUDA test cases ---------------------------------------------------------------------
code=0
echo "gpu_check: running the CUDA test cases (pytest -m cuda tests)"
# pytest-xdist where it is installed (a fresh machine compiles every kernel once per process,
# but the 2,000 cases take minutes on one); SIGINT at the limit, so pytest still prints its
# summary, and each failure written as it happens (tests/gpu/failure_log.py) in case it cannot;
# KILL 30 s later (-k 30) if it is stuck in a CUDA call that SIGINT cannot interrupt.
XDIST=""
$PY -c "import xdist" >/dev/null 2>&1 && XDIST="-n ${GPU_CHECK_WORKERS:-auto}"
FAILURES="$(dirname "$REPORT")/gpu_failures.txt"
: >"$FAILURES"
HYPOTHESIS_PROFILE=ci FUNCGRAD_DEVICE_EXAMPLES="$EXAMPLES" FUNCGRAD_FAILURE_LOG="$FAILURES" \
    timeout -s INT -k 30 "${GPU_CHECK_TEST_TIMEOUT:-300}" \
    $PY -m pytest -q -m cuda tests -p tests.gpu.failure_log -p no:cacheprovider -p no:randomly \
    $XDIST -rfEs --tb=line >"$WORK/tests.log" 2>&1
tests_rc=$?
summary="$(grep -E '^[0-9]+ (passed|failed|skipped|deselected)|(passed|failed|error)s? in ' "$WORK/tests.log" | tail -n1)"
{
    echo
    echo "## CUDA test cases"
    echo
    echo "\`pytest -m cuda tests\` with HYPOTHESIS_PROFILE=ci and $EXAMPLES examples per primitive and test:"
    echo "${summary:-no summary line (exit code $tests_rc)}"
} >>"$REPORT"
if [ "$tests_rc" -ne 0 ]; then
    code=1
    [ "$tests_rc" -eq 124 ] && echo "- timed out after ${GPU_CHECK_TEST_TIMEOUT:-300} s" >>"$REPORT"
    echo "- each failure's traceback: $FAILURES" >>"$REPORT"
    {
        echo
        echo "Failures (first 40):"
        echo
        echo '```'
        grep -E '^(FAILED|ERROR) ' "$WORK/tests.log" | head -n 40
        echo '```'
        echo
        echo "Last lines of the output:"
        echo
        echo '```'
        tail -n 15 "$WORK/tests.log"
        echo '```'
    } >>"$REPORT"
fi
if grep -q '^SKIPPED' "$WORK/tests.log"; then
    {
        echo
        echo "Skipped:"
        echo
        echo '```'
        grep '^SKIPPED' "$WORK/tests.log" | head -n 10
        echo '```'
    } >>"$REPORT"
fi

# --- 3b. the NCCL backend of funcgrad.distributed (one rank per GPU, as many as there are) -----
# tests/distributed/test_nccl.py is one of the CUDA test cases above; run here on its own so
# the report says how many GPUs took part (it skips, with the reason, without mpi4py or NCCL).
NGPU="$($PY -c 'import cupy; print(cupy.cuda.runtime.getDeviceCount())' 2>/dev/null || echo 0)"
$PY -c "import mpi4py" >/dev/null 2>&1 || timeout 240 $PY -m pip install -q --disable-pip-version-check -e ".[mpi]" >>"$WORK/pip.log" 2>&1
timeout 300 $PY -m pytest -q tests/distributed/test_nccl.py -p no:cacheprovider -rs --tb=short \
    >"$WORK/nccl.log" 2>&1
nccl_rc=$?
{
    echo
    echo "## NCCL backend (funcgrad.distributed, $NGPU GPU(s), mpiexec -n $NGPU)"
    echo
    echo "$(grep -E '(passed|failed|skipped|error)' "$WORK/nccl.log" | tail -n 2)"
    # NCCL takes one rank per GPU: on one GPU the world has one rank, where DDP has nothing
    # to average and send/recv no peer (the collectives, gather and scatter still run NCCL)
    if [ "$NGPU" = 1 ]; then echo "(one GPU: DDP and send/recv over NCCL need two or more, not run)"; fi
} >>"$REPORT"
[ "$nccl_rc" -ne 0 ] && code=1 && { echo '```'; tail -n 20 "$WORK/nccl.log"; echo '```'; } >>"$REPORT"

# --- 4. the benchmark ---------------------------------------------------------------------------
echo "gpu_check: running benchmarks/gpu.py"
timeout "${GPU_CHECK_BENCH_TIMEOUT:-90}" $PY benchmarks/gpu.py --json "$WORK/bench.json" \
    >"$WORK/bench.log" 2>&1
bench_rc=$?
{
    echo
    echo "## Benchmark (benchmarks/gpu.py)"
    echo
    echo '```'
    tail -n 12 "$WORK/bench.log"
    echo '```'
} >>"$REPORT"
if [ "$bench_rc" -ne 0 ]; then
    [ "$code" -eq 0 ] && code=2
    [ "$bench_rc" -eq 124 ] && echo "- timed out after ${GPU_CHECK_BENCH_TIMEOUT:-90} s" >>"$REPORT"
else
    $PY - "$WORK/bench.json" >>"$REPORT" 2>/dev/null <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
if "ms" in f:
    t = f["target_ratio"]
    for key in ("direct", "value_and_grad"):
        r = f["ms"][key]
        verdict = "within" if r["ratio_wall"] <= t else "ABOVE"
        print(f"- {key}: {r['ratio_wall']:.3f}x the hand-written CuPy per call, "
              f"{r['ratio_steady_state']:.3f}x in a row ({verdict} the target {t})")
EOF
fi

case "$code" in
    0) finish 0 "passed" ;;
    1) finish 1 "CUDA test cases failed$([ "$bench_rc" -ne 0 ] && echo ', and the benchmark too')" ;;
    *) finish 2 "benchmark failed" ;;
esac
