#!/usr/bin/env bash
# tools/gpu_collective.sh - a 1-rank NCCL job of the `collective` fixture on a GPU machine that lacks fluidc's build
# dependencies and MPI (docs/distributed.md, "Collective mode on CUDA (NCCL)"): cuda_run_collective_1's check.
# usage: tools/gpu_collective.sh pack [BUILD_DIR]   (here: writes .gpu/coll.tar.xz, OpenMPI's files included)
#        tools/gpu_collective.sh check [OUT_DIR]    (there, as root, from the repository root)
# `pack` builds the CUDA collective binary (the 2-rank split with its loss-gradient scale rewritten to 1, as
# run_collective.py --ranks 1 does), and here, on the CPU, the startup values and one process's 50 steps from
# them. `check` unpacks OpenMPI into / (the GPU image has none), runs the binary as one rank under mpirun and
# compares its losses and parameters with the CPU process's within 1e-5 (run_job.py's check_params); two ranks
# given the one GPU must be refused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stage=.gpu/coll
fixture=test/fixtures/distribute/collective
data() { echo --data "x=$stage/x.npy" --data "y=$stage/y.npy" --no-shuffle --batch-size 8; }

pack() {
  local build=${1:-build} f
  local fluidc=$build/bin/fluidc
  rm -rf "$stage" && mkdir -p "$stage"
  python3 -c "import sys; sys.path.insert(0, 'test/dist'); import run_job; run_job.make_data('$stage', 32, w_scale=0.3)"
  "$fluidc" opt $fixture/main.pdmodel --startup $fixture/startup.pdmodel --passes=distribute --collective \
    --nranks 2 --startup-out $stage/c.startup.pbtxt -o $stage/c.pbtxt
  python3 - "$stage/c.pbtxt" << 'EOF'
import re, sys
text = open(sys.argv[1]).read()
one, n = re.subn(r'(name: "scale"\s*type: FLOAT\s*f: )0\.5\b', r"\g<1>1", text)
assert n == 1, "want one 0.5 scale (the loss gradient's), found %d" % n
open(sys.argv[1], "w").write(one)
EOF
  "$fluidc" build $stage/c.pbtxt --startup $stage/c.startup.pbtxt --target cuda -o $stage/coll
  "$fluidc" build $stage/c.pbtxt --startup $stage/c.startup.pbtxt -o $stage/coll_cpu
  "$fluidc" build $fixture/main.pdmodel --startup $fixture/startup.pdmodel -o $stage/single
  # shellcheck disable=SC2046
  $stage/coll_cpu $(data) --steps 0 --save $stage/init0.params
  # shellcheck disable=SC2046
  $stage/single $(data) --steps 50 --params $stage/init0.params --losses-out $stage/loss_single.npy \
    --save-dir $stage/final_single
  rm -f $stage/coll_cpu $stage/single
  # OpenMPI's runtime (Debian's packages: binaries, libraries, plugins, help texts), unpacked at / there.
  for f in openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7; do
    dpkg -L "$f"
  done | sort -u | while read -r f; do if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done > $stage/ompi.files
  find /etc/alternatives -name '*mpi*' >> $stage/ompi.files
  tar -cf $stage/ompi.tar -T $stage/ompi.files 2> /dev/null
  tar -C .gpu -cf - coll | xz -6 -T0 > .gpu/coll.tar.xz
  rm -rf "$stage"
  ls -l .gpu/coll.tar.xz
}

check() {
  local out=${1:-.gpu/out} lib dir rc
  mkdir -p "$out"
  rm -rf "$stage" && xz -dc .gpu/coll.tar.xz | tar -C .gpu -xf -
  tar -C / -xf $stage/ompi.tar
  for lib in libnccl.so.2 libcublas.so.13 libcudnn.so.9; do
    dir=$(find /usr/local /opt /usr/lib -name "$lib" 2> /dev/null | head -1 || true)
    if [ -n "$dir" ]; then
      dir=$(dirname "$dir")
      export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
  done
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  ldd $stage/coll | grep -E "nccl|mpi|cublas|not found" | tee "$out/ldd.txt"
  nvidia-smi -L | tee "$out/device.txt" || true
  set +e
  # shellcheck disable=SC2046
  timeout 300 mpirun --allow-run-as-root --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
    --mca oob_tcp_if_include lo -np 1 env NCCL_DEBUG=WARN $stage/coll $(data) --steps 50 --log-every 10 \
    --losses-out $stage/loss0.npy --save-dir $stage/final0 --cuda-stats 2>&1 | tee "$out/run.log"
  rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" -eq 0 ] || { echo "FAIL: the 1-rank NCCL job exited $rc"; return 1; }
  # Two ranks given one GPU: refused on every rank, naming both.
  set +e
  # shellcheck disable=SC2046
  CUDA_VISIBLE_DEVICES=0 timeout 120 mpirun --allow-run-as-root --oversubscribe --mca btl self,tcp \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo -np 2 $stage/coll $(data) --steps 1 > "$out/shared.log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 0 ] || ! grep -q "ranks 0 and 1 would share CUDA device 0" "$out/shared.log"; then
    echo "FAIL: two ranks on one GPU: exit $rc"; tail -20 "$out/shared.log"; return 1
  fi
  echo "shared device: two ranks on one GPU refused"
  python3 - "$stage" << 'EOF' 2>&1 | tee "$out/compare.txt"
import os, sys
sys.path.insert(0, "test/dist")
from run_job import check_params, read_npy_f32
work = sys.argv[1]
got, want = read_npy_f32(work + "/loss0.npy"), read_npy_f32(work + "/loss_single.npy")
worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, want))
print("losses: %d steps, first %.6f / %.6f, last %.6f / %.6f, worst relative difference %.3g"
      % (len(got), got[0], want[0], got[-1], want[-1], worst))
assert len(got) == len(want) == 50 and worst <= 1e-5, "the losses differ"
check_params(work, sorted(os.listdir(work + "/final_single")), 1, "rank", 1e-5)
print("PASS: a 1-rank NCCL job matches one CPU process within 1e-5")
EOF
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  check) shift; check "$@" ;;
  *) echo "usage: $0 pack [BUILD_DIR] | check [OUT_DIR]" >&2; exit 2 ;;
esac
