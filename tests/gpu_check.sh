#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU, CuPy and PyTorch already installed (no network needed):
# the `[cuda]` half of the test suite on the GPU, then bench/cuda.py. Run from anywhere:
#
#   bash tests/gpu_check.sh [LOG_DIR]          (LOG_DIR defaults to test-artifacts/gpu)
#
# It writes LOG_DIR/tests.log (one line per test, so a run cut short still names every result so far),
# LOG_DIR/failed.txt (the node ids that failed), LOG_DIR/bench.log, and prints a summary. Knobs, as
# environment variables: PYTHON (default python3), WORKERS (16), TEST_S (seconds for the tests, 420),
# BENCH_S (150), TEACHTORCH_HYPOTHESIS (quick: fewer generated examples per property; ci for all of them).
#
# What earlier runs taught (2026-11-27, H200, CuPy 14.2, torch 2.11 on the machine):
# * the machine's PyTorch may not be the pinned one (requirements/constraints.txt): a parity test that fails
#   there may be a PyTorch version difference, so the failures' `[cpu]` twins are rerun with the same
#   PyTorch: a failure in both is the version, a failure in `[cuda]` alone is the GPU;
# * node ids hold spaces (`[cuda-nll_loss 5-d-sum]`): read id lists line by line, never word by word.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT_DIR=${1:-test-artifacts/gpu}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT_DIR"
export PYTHONUNBUFFERED=1 TEACHTORCH_HYPOTHESIS=${TEACHTORCH_HYPOTHESIS:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
$PYTHON -c "import sys, numpy, cupy, torch; print('python', sys.version.split()[0], 'numpy', numpy.__version__,
    'cupy', cupy.__version__, 'torch', torch.__version__)"
$PYTHON -c "import teachtorch as tt; assert tt.cuda.is_available(), 'teachtorch sees no GPU'
x = tt.arange(6., device='cuda').reshape(2, 3); print('smoke:', (x.t() @ x).sum().item(), '(expect 165.0)')" || exit 1

# The device-generic files: the ones with a `[cuda]` test (collected, not guessed).
$PYTHON -m pytest -q -o addopts="" -p no:cacheprovider --co -k cuda tests --ignore=tests/browser 2>/dev/null \
    | grep '::' | cut -d: -f1 | sort -u > "$OUT_DIR/files.txt"
readarray -t FILES < "$OUT_DIR/files.txt"

# a test stuck on the GPU is stopped after 120 s where pytest-timeout is installed
TIMEOUT_ARG=$($PYTHON -c "import pytest_timeout" 2>/dev/null && echo "--timeout=120")
start=$(date +%s)
timeout "${TEST_S:-420}" $PYTHON -m pytest -o addopts="" -p no:cacheprovider -p no:benchmark -n "${WORKERS:-16}" \
    -v $TIMEOUT_ARG -k cuda "${FILES[@]}" > "$OUT_DIR/tests.log" 2>&1
echo "tests: rc=$? in $(( $(date +%s) - start )) s (124: cut short at TEST_S)"
grep -Eo ' (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ' "$OUT_DIR/tests.log" | sort | uniq -c
grep -E ' (FAILED|ERROR) tests/' "$OUT_DIR/tests.log" | sed -E 's/.* (FAILED|ERROR) //; s/ +$//' | sort -u \
    > "$OUT_DIR/failed.txt"
echo "failed: $(wc -l < "$OUT_DIR/failed.txt") (ids in $OUT_DIR/failed.txt)"

if [ -s "$OUT_DIR/failed.txt" ]; then
    # the failures' tracebacks, then their [cpu] twins with the same PyTorch
    readarray -t FAILED < <(head -n 300 "$OUT_DIR/failed.txt")
    timeout 120 $PYTHON -m pytest -o addopts="" -p no:cacheprovider -p no:benchmark -n "${WORKERS:-16}" -q \
        --tb=short "${FAILED[@]}" > "$OUT_DIR/failed_tracebacks.log" 2>&1
    readarray -t TWINS < <(printf '%s\n' "${FAILED[@]}" | sed 's/\[cuda\]/[cpu]/; s/\[cuda-/[cpu-/; s/-cuda\]/-cpu]/')
    timeout 60 $PYTHON -m pytest -o addopts="" -p no:cacheprovider -p no:benchmark -n "${WORKERS:-16}" -q \
        -rf --tb=no "${TWINS[@]}" > "$OUT_DIR/cpu_twins.log" 2>&1
    echo "their [cpu] twins: $(tail -n 1 "$OUT_DIR/cpu_twins.log")"
fi

start=$(date +%s)
timeout "${BENCH_S:-150}" $PYTHON bench/cuda.py > "$OUT_DIR/bench.log" 2>&1
echo "bench/cuda.py: rc=$? in $(( $(date +%s) - start )) s"
cat "$OUT_DIR/bench.log"
