#!/usr/bin/env bash
# test/install/jit_run.sh - `fluidc run`: a program compiled in memory and run in the ORC JIT gives the same
# checkpoints and outputs as the binary `fluidc build` makes (a trainer, a CNN trainer through the GEMM and
# conv kernels, an inference program), needs no compiler on $PATH, and reports errors like the binary.
# usage: jit_run.sh FLUIDC SOURCE_DIR WORK_DIR LIB_DIR     (exit 77: this fluidc has no embedded compiler)
set -euo pipefail
fluidc=$1 src=$2 work=$3 lib=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
"$fluidc" --version | grep -q "^embedded compiler: .*clang" || { echo "SKIP: fluidc built without the embedded Clang"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
unset CXX

# Every kernel object with a thread_local (a TLS relocation) has its emulated-TLS twin in the JIT's archive
# (compiler/driver/CMakeLists.txt): the JIT links no native TLS, and a kernel missed there fails only the
# programs that use it.
if command -v objdump > /dev/null; then
  objdump -r "$lib/libfluidc_kernels.a" | awk '/file format/ {o = $1} /R_X86_64_(TLS|DTPOFF|GOTTPOFF|TPOFF)/ {print o}' |
    sed 's/:$//' | sort -u > tls_objects
  ar t "$lib/libfluidc_runtime_jit.a" | sort -u > jit_objects
  missing=$(comm -23 tls_objects jit_objects)
  [ -z "$missing" ] || fail "kernels with thread_locals missing from libfluidc_runtime_jit.a: $missing"
  [ -s tls_objects ] || fail "objdump found no TLS relocation in the kernels: the check checks nothing"
fi
fx=$src/test/fixtures mlp=$src/examples/mlp_classifier fit=$src/examples/fit_a_line

# NAME PROGRAM_ARGS -- RUN_ARGS...: the checkpoint (--save) of `fluidc run` and of the built binary, compared.
same_training() {
  local name=$1; shift
  local build_args=() run_args=()
  while [ "$1" != "--" ]; do build_args+=("$1"); shift; done
  shift
  run_args=("$@")
  "$fluidc" build "${build_args[@]}" -o "bin_$name"
  "./bin_$name" "${run_args[@]}" --save "bin_$name.pdiparams" > "bin_$name.log"
  "$fluidc" run "${build_args[@]}" -- "${run_args[@]}" --save "jit_$name.pdiparams" > "jit_$name.log"
  cmp "bin_$name.pdiparams" "jit_$name.pdiparams" || fail "$name: fluidc run saved other parameters than the binary"
  diff <(grep -o "loss [^ ]*" "bin_$name.log") <(grep -o "loss [^ ]*" "jit_$name.log") ||
    fail "$name: fluidc run printed other losses than the binary"
  grep -q "loss" "jit_$name.log" || fail "$name: fluidc run printed no loss"
  echo "same: $name"
}
same_training fit_a_line "$fit/main.pdmodel" --startup "$fit/startup.pdmodel" -- \
  --data x="$fit/data/train_x.npy" --data y="$fit/data/train_y.npy" --params "$fit/init.pdiparams" \
  --batch-size 20 --epochs 2 --seed 1 --log-every 5
l=$fx/lenet_digits
same_training lenet "$l/main.pdmodel" --startup "$l/startup.pdmodel" -- \
  --data x="$l/data/x.npy" --data label="$l/data/label.npy" --params "$l/init.pdiparams" \
  --batch-size 16 --steps 4 --log-every 1

# Inference: the fetched tensors, byte for byte; built without clang++ on $PATH (only the embedded Clang).
mkdir -p bare
"$fluidc" build "$mlp/model.pdmodel" -o bin_infer
./bin_infer --params "$mlp/model.pdiparams" --feed x="$mlp/data/test_x.npy" --fetch-dir out_bin > /dev/null
PATH=$work/bare "$fluidc" run "$mlp/model.pdmodel" -- --params "$mlp/model.pdiparams" \
  --feed x="$mlp/data/test_x.npy" --fetch-dir out_jit > /dev/null
diff -r out_bin out_jit > /dev/null || fail "inference: fluidc run fetched other tensors than the binary"
ls out_jit/*.npy > /dev/null || fail "inference: fluidc run fetched nothing"
echo "same: mlp inference (no compiler on \$PATH)"

# A long program, compiled as several translation units (model.cc and model_shard*.cc): all of them linked.
python3 "$src/tools/gen_scaling_programs.py" chain 2600 chain.pbtxt
python3 -c '
import struct, sys
head = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (4, 8), }"
head += " " * (63 - (10 + len(head)) % 64) + "\n"
vals = [((i * 37) % 17 - 8) / 4.0 for i in range(32)]
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + struct.pack("<32f", *vals))
' > chain_x.npy
"$fluidc" build chain.pbtxt --save-temps chain_src -o bin_chain
ls chain_src/model_shard1.cc > /dev/null || fail "the chain program was not sharded: the multi-unit JIT went untested"
./bin_chain --feed x=chain_x.npy --fetch-dir out_chain_bin > /dev/null
"$fluidc" run chain.pbtxt -- --feed x=chain_x.npy --fetch-dir out_chain_jit > /dev/null
diff -r out_chain_bin out_chain_jit > /dev/null || fail "sharded program: fluidc run fetched other tensors than the binary"
ls out_chain_jit/*.npy > /dev/null || fail "sharded program: fluidc run fetched nothing"
echo "same: a program of $(ls chain_src/model*.cc | wc -l) translation units"

# The program's own errors: its message and exit status 1, as from the binary (not a crash in the JIT).
set +e
"$fluidc" run "$mlp/model.pdmodel" -- --params "$mlp/model.pdiparams" --feed x=no_such.npy > /dev/null 2> err.txt
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "no_such.npy: cannot open" err.txt || fail "a missing feed under fluidc run: exit $rc: $(cat err.txt)"
# Weights are the program's option, never baked in by run.
set +e
"$fluidc" run "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" > /dev/null 2> err.txt
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "pass them to the program after --" err.txt || fail "fluidc run --params: exit $rc: $(cat err.txt)"
echo "ok: fluidc run matches fluidc build and reports errors"
