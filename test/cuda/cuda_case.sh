#!/usr/bin/env bash
# test/cuda/cuda_case.sh - a fixture built with --target cuda: compiled and linked (build), or also run
# on the GPU and compared with Paddle's numbers and the CPU binary's (run). Without a CUDA device the
# binary exits 77 and so does this script: CTest reports the case as skipped (SKIP_RETURN_CODE 77).
# run = prepare + check. The two halves also run apart, on two machines, for a GPU machine without
# fluidc's build dependencies (tools/gpu_suite.sh): prepare (no GPU needed) builds the CUDA binary and
# writes the CPU binary's outputs into WORK_DIR; check (no fluidc needed) runs the CUDA binary from
# WORK_DIR and compares.
# usage: cuda_case.sh build|run|prepare|check train|infer FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR
#        [BATCH_SIZE [noreplay]]   (train)   [PADDLE_RTOL]   (infer; default 1e-5)   (check ignores FLUIDC)
# noreplay: the last of the 20 steps has other feed shapes (a partial batch), so it runs eagerly.
set -euo pipefail
source "$(dirname "$0")/../e2e/fixture_feeds.sh"
mode=$1 kind=$2 fluidc=$3 compare=$4 fixture=$5 work=$6 batch=${7:-0} replay=${8:-replay} paddle_rtol=${7:-1e-5}
# No GPU device node: the run case skips before compiling (its build case compiles the same program).
if { [ "$mode" = run ] || [ "$mode" = check ]; } && ! ls /dev/nvidia[0-9]* > /dev/null 2>&1; then
  echo "no NVIDIA device node (/dev/nvidiaN): skipped" >&2
  exit 77
fi
if [ "$kind" = train ]; then
  program=("$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel")
  data=()
  for f in "$fixture"/data/*.npy; do
    data+=(--data "$(basename "$f" .npy)=$f")
  done
  steps=(--params "$fixture/init.pdiparams" --batch-size "$batch" --steps 20 --no-shuffle --log-every 5)
  # Shuffled batches: the CUDA trainer gathers rows in any order on the device (runtime/cuda/device_feeds.h).
  shuffled=(--params "$fixture/init.pdiparams" --batch-size "$batch" --steps 20 --seed 3 --log-every 5)
else
  program=("$fixture/model.pdmodel")
  [ -f "$fixture/model.pdiparams" ] && program+=(--params "$fixture/model.pdiparams")
fi

build_cuda() {
  local start
  start=$(date +%s.%N)
  "$fluidc" build "${program[@]}" --target cuda -o "$work/cuda_bin"
  echo "nvcc build of $(basename "$fixture") (--target cuda): $(echo "$(date +%s.%N) - $start" | bc) s"
  # Runs without a GPU: --version and --help need no device.
  "$work/cuda_bin" --version | grep -q "compiled by fluidc"
  "$work/cuda_bin" --help > "$work/help.txt"
  grep -q -- "--feeds-from-host" "$work/help.txt"  # the CUDA flags are listed
}

# The CPU binary's outputs, the reference the CUDA binary must reproduce.
cpu_reference() {
  "$fluidc" build "${program[@]}" -o "$work/cpu_bin"
  if [ "$kind" = train ]; then
    "$work/cpu_bin" "${data[@]}" "${steps[@]}" --losses-out "$work/losses_cpu.npy" \
      --save "$work/final_cpu.pdiparams" > /dev/null
    "$work/cpu_bin" "${data[@]}" "${shuffled[@]}" --losses-out "$work/losses_cpu_shuffled.npy" > /dev/null
  else
    local expected case
    for expected in "$fixture"/expected_*.npy; do
      case=$(basename "$expected" .npy)
      case=${case#expected_}
      case_feeds "$fixture" "$case"
      "$work/cpu_bin" "${feeds[@]}" --fetch-dir "$work/cpu_$case" > /dev/null
    done
  fi
  rm "$work/cpu_bin"
}

check_train() {
  local rc
  set +e
  "$work/cuda_bin" "${data[@]}" "${steps[@]}" --cuda-stats --losses-out "$work/losses_cuda.npy" \
    --save "$work/final_cuda.pdiparams" 2> "$work/stats.txt"
  rc=$?
  set -e
  cat "$work/stats.txt" >&2
  [ $rc -eq 0 ] || exit $rc  # 77: no device (skipped)
  # The issue's bounds: 20-step losses within 1e-4 of Paddle's and of the CPU binary's.
  "$compare" "$work/losses_cuda.npy" "$fixture/losses.npy" --rtol 1e-4
  "$compare" "$work/losses_cuda.npy" "$work/losses_cpu.npy" --rtol 1e-4
  "$compare" "$work/final_cuda.pdiparams" "$work/final_cpu.pdiparams" --rtol 1e-4 --atol 1e-6
  # Steady state: the last step was one graph launch that allocated nothing.
  if [ "$replay" = replay ]; then
    grep -q "last step: 0 cudaMalloc calls, 0 kernel launches (a graph replay)" "$work/stats.txt"
  else
    grep -q "graph launches" "$work/stats.txt"
  fi
  # The training data lives on the device: every step's feeds were gathered there.
  grep -Eq "ops run on the host, [1-9][0-9]* feeds gathered on the device" "$work/stats.txt"
  # Without the graph, each batch copied up from the host: the same losses.
  "$work/cuda_bin" "${data[@]}" "${steps[@]}" --no-cuda-graph --feeds-from-host \
    --losses-out "$work/losses_nograph.npy" > /dev/null
  "$compare" "$work/losses_nograph.npy" "$work/losses_cpu.npy" --rtol 1e-4
  # Shuffled batches, gathered on the device: the CPU binary's losses for the same seed.
  "$work/cuda_bin" "${data[@]}" "${shuffled[@]}" --losses-out "$work/losses_shuffled.npy" > /dev/null
  "$compare" "$work/losses_shuffled.npy" "$work/losses_cpu_shuffled.npy" --rtol 1e-4
}

check_infer() {
  local cases=0 expected case rc
  for expected in "$fixture"/expected_*.npy; do
    case=$(basename "$expected" .npy)
    case=${case#expected_}
    case_feeds "$fixture" "$case"
    set +e
    "$work/cuda_bin" "${feeds[@]}" --repeat 5 --fetch-dir "$work/cuda_$case"
    rc=$?
    set -e
    [ $rc -eq 0 ] || exit $rc
    # 1e-5 relative as the issue asks, unless the CPU binary's own e2e case needs more against Paddle
    # (PADDLE_RTOL, with its reason there); atol as test/e2e/infer_case.sh (softmax near zero).
    "$compare" "$work/cuda_$case"/*.npy "$expected" --rtol "$paddle_rtol" --atol 1e-7
    "$compare" "$work/cuda_$case"/*.npy "$work/cpu_$case"/*.npy --rtol 1e-5 --atol 1e-7
    cases=$((cases + 1))
  done
  [ $cases -gt 0 ]
}

check() { if [ "$kind" = train ]; then check_train; else check_infer; fi; }

case $mode in
  build)
    rm -rf "$work" && mkdir -p "$work"
    build_cuda
    # Without a device the binary says so and exits 77; with one, --help above already ran.
    set +e
    "$work/cuda_bin" --device 0 --no-such-flag > "$work/nodev.txt" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 77 ]; then grep -q "no CUDA device" "$work/nodev.txt"; fi ;;
  prepare) rm -rf "$work" && mkdir -p "$work" && build_cuda && cpu_reference ;;
  check) check ;;
  run)
    rm -rf "$work" && mkdir -p "$work"
    build_cuda
    cpu_reference
    check ;;
  *) echo "cuda_case.sh: unknown mode $mode" >&2; exit 2 ;;
esac
