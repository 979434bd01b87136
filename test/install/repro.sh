#!/usr/bin/env bash
# test/install/repro.sh - reproducible artefacts: two `fluidc build`s of one program in different directories give
# byte-identical generated sources and binaries (with -g too), and fluidc's static libraries hold no timestamps.
# usage: repro.sh FLUIDC SOURCE_DIR WORK_DIR LIB_DIR
set -euo pipefail
fluidc=$1 src=$2 work=$3 libdir=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/one/deeper" "$work/two"
mlp=$src/examples/mlp_classifier
build_all() {  # DIR: the trainer, the inference binary with embedded weights, and a -g trainer, built from DIR
  (cd "$1" &&
   "$fluidc" build "$mlp/main.pdmodel" --startup "$mlp/startup.pdmodel" --save-temps trainer.src -o trainer &&
   "$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" --save-temps model.src -o model &&
   FLUIDC_CXXFLAGS=-g "$fluidc" build "$mlp/main.pdmodel" --startup "$mlp/startup.pdmodel" -o trainer_g)
}
build_all "$work/one/deeper"
build_all "$work/two"
for f in trainer model trainer_g trainer.src/model.cc model.src/model.cc model.src/params.S model.src/params.bin; do
  cmp "$work/one/deeper/$f" "$work/two/$f" || fail "$f differs between two builds in different directories"
done
for f in trainer model trainer_g; do
  strings -a "$work/two/$f" | grep -F "$work" && fail "$f names its build directory"
done
# Deterministic archives (ar D): every member's date is the epoch, its uid and gid 0.
for lib in "$libdir"/libfluidc_runtime.a "$libdir"/libfluidc_kernels.a; do
  bad=$(ar tv "$lib" | grep -v " 0/0 .* 1970 " || true)
  [ -z "$bad" ] || fail "$lib has members with timestamps or owners: $(echo "$bad" | head -2)"
done
echo "ok: identical sources and binaries from two directories; deterministic archives"
