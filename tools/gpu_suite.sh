#!/usr/bin/env bash
# tools/gpu_suite.sh - the GPU suite (test/cuda's run cases and gpu_extra_cases.txt, the kernel comparison,
# bench/cuda_bench.py)
# on a GPU machine that lacks fluidc's build dependencies: `pack` builds everything here into one archive,
# `check` runs it there from the repository root, needing only bash, the CUDA driver, cuBLAS and python3
# (with numpy, and PyTorch for the benchmark's peer).
# usage: tools/gpu_suite.sh pack [BUILD_DIR]   (writes .gpu/pack.tar.xz; BUILD_DIR defaults to build)
#        tools/gpu_suite.sh check [OUT_DIR]    (unpacks .gpu/pack.tar.xz, writes logs to OUT_DIR; GPU_BENCH=0: no benchmark)
#        tools/gpu_suite.sh bench [OUT_DIR]    (the benchmark alone)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cases=(test/cuda/cases.txt test/cuda/gpu_extra_cases.txt)
mode=${1:-}

pack() {
  local build=${1:-build} stage=.gpu/stage name kind fixture rest
  rm -rf "$stage" && mkdir -p "$stage/cases" "$stage/bin"
  cp "$build/test/npy_compare" "$build/test/cuda/cuda_kernels_test" "$stage/bin/"
  while read -r name kind fixture rest; do
    echo "pack: $name" >&2
    # shellcheck disable=SC2086  # rest: BATCH and noreplay, as separate words
    test/cuda/cuda_case.sh prepare "$kind" "$build/bin/fluidc" "$stage/bin/npy_compare" \
      "test/fixtures/$fixture" "$stage/cases/$name" $rest > /dev/null
  done < <(cat "${cases[@]}" | grep '^[a-z]')
  # The benchmark's programs, weights and binaries (needs Paddle: FLUIDC_PYTHON, as bench/run.sh).
  "${FLUIDC_PYTHON:-python3}" bench/cuda_bench.py prepare "$stage/bench" --fluidc "$build/bin/fluidc"
  tar -C .gpu -cf - stage | xz -6 -T0 > .gpu/pack.tar.xz
  rm -rf "$stage"
  ls -l .gpu/pack.tar.xz
}

check() {
  local out=${1:-.gpu/out} stage=.gpu/stage name kind fixture rest rc failed=0 passed=0
  mkdir -p "$out"
  rm -rf "$stage" && xz -dc .gpu/pack.tar.xz | tar -C .gpu -xf -
  # cuBLAS and the CUDA runtime from the CUDA toolkit or from NVIDIA's wheels, wherever this machine has
  # them (the binaries link them dynamically).
  local lib dir
  for lib in libcublas.so.13 libcudart.so.13 libcudnn.so.9; do
    dir=$(find /usr/local /opt /usr/lib -name "$lib" 2> /dev/null | head -1 || true)
    [ -n "$dir" ] && export LD_LIBRARY_PATH="$(dirname "$dir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt" || true
  while read -r name kind fixture rest; do
    set +e
    # shellcheck disable=SC2086
    timeout 90 test/cuda/cuda_case.sh check "$kind" - "$stage/bin/npy_compare" "test/fixtures/$fixture" \
      "$stage/cases/$name" $rest > "$out/case_$name.log" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1)); echo "PASS cuda_run_$name"
    elif [ $rc -eq 77 ]; then
      failed=$((failed + 1)); echo "SKIP cuda_run_$name (no GPU), counted as failed"
    else
      failed=$((failed + 1)); echo "FAIL cuda_run_$name (exit $rc): $(tail -3 "$out/case_$name.log" | tr '\n' ' ')"
    fi
  done < <(cat "${cases[@]}" | grep '^[a-z]')
  set +e
  timeout 150 "$stage/bin/cuda_kernels_test" > "$out/cuda_kernels.log" 2>&1
  rc=$?
  set -e
  if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "PASS cuda_kernels"
  else failed=$((failed + 1)); echo "FAIL cuda_kernels (exit $rc): $(tail -5 "$out/cuda_kernels.log" | tr '\n' ' ')"; fi
  # compute-sanitizer's memcheck over the kernel comparison and a few training steps, where it works.
  if command -v compute-sanitizer > /dev/null; then
    local what
    for what in kernels train; do
      set +e
      if [ $what = kernels ]; then
        timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$stage/bin/cuda_kernels_test" \
          > "$out/memcheck_$what.log" 2>&1
      else
        local fx=test/fixtures/mlp_adam
        timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$stage/cases/mlp_adam/cuda_bin" \
          --data "x=$fx/data/x.npy" --data "label=$fx/data/label.npy" --params "$fx/init.pdiparams" \
          --batch-size 32 --steps 4 > "$out/memcheck_$what.log" 2>&1
      fi
      rc=$?
      set -e
      if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "PASS memcheck_$what"
      else failed=$((failed + 1)); echo "FAIL memcheck_$what (exit $rc): $(grep -m3 -E "ERROR|Invalid|error" "$out/memcheck_$what.log" | tr '\n' ' ')"; fi
    done
  else
    echo "compute-sanitizer not found: memcheck not run"
  fi
  echo "gpu suite: $passed passed, $failed failed"
  # GPU_BENCH=0 leaves the benchmark out (a caller that runs other checks first, then the benchmark alone).
  [ "${GPU_BENCH:-1}" = 0 ] || bench "$out"
  [ $failed -eq 0 ]
}

bench() {
  local out=${1:-.gpu/out}
  [ -d .gpu/stage/bench ] || xz -dc .gpu/pack.tar.xz | tar -C .gpu -xf -
  timeout 300 python3 bench/cuda_bench.py run .gpu/stage/bench --reps "${GPU_BENCH_REPS:-5}" --json "$out/cuda_bench.json" 2>&1 | tee "$out/cuda_bench.log" || true
}

case $mode in
  pack) shift; pack "$@" ;;
  check) shift; check "$@" ;;
  bench) shift; bench "$@" ;;
  *) echo "usage: tools/gpu_suite.sh pack [BUILD_DIR] | check [OUT_DIR] | bench [OUT_DIR]" >&2; exit 2 ;;
esac
