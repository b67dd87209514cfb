#!/usr/bin/env bash
# GPU check for a machine with JAX + CUDA (no warp-lang needed, no network):
#   1. print the JAX devices and jwarp's view of cuda:0;
#   2. a small CUDA correctness check: jwarp kernels launched on cuda:0 vs the jnp versions
#      (benchmarks/gpu_correctness.py; the benchmark workloads at small, odd sizes);
#   3. the full benchmark suite on the GPU, results in $OUT/bench_cuda.json (or ./bench_cuda.json);
#   4. the Pallas path (benchmarks/gpu_pallas.py): correctness against the XLA path and jnp on cuda:0,
#      the in-place proof, Pallas vs XLA vs jnp timings for saxpy/stencil/histogram/cloth at 2^16..2^24
#      (table also in $OUT/pallas_cuda.txt).
# Run from anywhere: bash benchmarks/gpu_check.sh   (exit status: non-zero if any step fails)
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export XLA_PYTHON_CLIENT_PREALLOCATE="${XLA_PYTHON_CLIENT_PREALLOCATE:-false}"
unset JAX_PLATFORMS
PY="${PYTHON:-python}"
OUT_DIR="${OUT:-.}"
mkdir -p "$OUT_DIR"
status=0

echo "== devices"
"$PY" - <<'PYEOF' || status=1
import jax
print("jax", jax.__version__, "backend", jax.default_backend())
for d in jax.devices():
    print("  ", d, getattr(d, "device_kind", ""))
import jwarp as wp
print("jwarp cuda:0 ->", wp.get_device("cuda:0"), wp.get_device("cuda:0").jax_device)
PYEOF
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true

echo "== correctness (jwarp on cuda:0 vs jnp)"
"$PY" benchmarks/gpu_correctness.py || status=1

echo "== benchmarks (--device cuda)"
"$PY" benchmarks/run.py --device cuda --json "$OUT_DIR/bench_cuda.json" || status=1

echo "== Pallas path (wp.config.pallas='always' vs 'never' vs jnp)"
"$PY" benchmarks/gpu_pallas.py 2>&1 | tee "$OUT_DIR/pallas_cuda.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== done, status $status"
exit $status
