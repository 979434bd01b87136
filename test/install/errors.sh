#!/usr/bin/env bash
# test/install/errors.sh - add_fluid_program's configure-time errors name the problem: PARAMS without ASM, TARGET
# cuda in a project without CUDA (or from an install without the CUDA runtime), LIBRARY with a fluidc lacking
# --emit lib, a missing program, a stray argument.
# usage: errors.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
mlp=$src/examples/mlp_classifier
n=0
expect_error() {  # CALL MESSAGE: a project whose one add_fluid_program(CALL) fails configuring with MESSAGE
  n=$((n + 1))
  mkdir -p "$work/p$n"
  printf 'cmake_minimum_required(VERSION 3.25)\nproject(t LANGUAGES CXX)\nfind_package(Fluidc REQUIRED)\nadd_fluid_program(%s)\n' \
    "$1" > "$work/p$n/CMakeLists.txt"
  if cmake -S "$work/p$n" -B "$work/p$n/b" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/p$n.log" 2>&1; then
    fail "add_fluid_program($1) configured"
  fi
  tr -s ' \n' '  ' < "$work/p$n.log" | grep -qF "$2" || { cat "$work/p$n.log"; fail "add_fluid_program($1): no '$2'"; }
}
expect_error "a PROGRAM $mlp/model.pdmodel PARAMS $mlp/model.pdiparams" "enable ASM in your project"
if [ -e "$work/prefix/lib/libfluidc_cuda_kernels.a" ]; then
  expect_error "a PROGRAM $mlp/model.pdmodel TARGET cuda" "enable CUDA in your project: project(... LANGUAGES CXX CUDA)"
else
  expect_error "a PROGRAM $mlp/model.pdmodel TARGET cuda" "TARGET cuda: this fluidc was installed without its CUDA runtime"
fi
expect_error "a PROGRAM $mlp/model.pdmodel TARGET tpu" "TARGET must be cpu or cuda"
expect_error "a PROGRAM $mlp/nothing.pdmodel" "PROGRAM $mlp/nothing.pdmodel does not exist"
expect_error "a PROGRAM $mlp/model.pdmodel STARTUPP x" "unknown arguments: STARTUPP;x"
expect_error "a STARTUP $mlp/startup.pdmodel" "PROGRAM file is required"
help=$("$work/prefix/bin/fluidc" --help 2>&1 || true)
grep -q -- "--emit lib" <<< "$help" || expect_error "a PROGRAM $mlp/model.pdmodel LIBRARY" "LIBRARY needs \`fluidc build --emit lib\`"
echo "ok: $n configure errors, each naming its cause"
