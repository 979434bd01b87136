#!/usr/bin/env bash
# test/cuda/emit_cmake.sh - `fluidc emit --target cuda` writes a CMakeLists.txt that configures and builds
# the program with CMake's CUDA language (nvcc) into a binary that runs without a GPU as far as --version.
# usage: emit_cmake.sh FLUIDC FIXTURE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 fixture=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$fluidc" emit "$fixture/model.pdmodel" --params "$fixture/model.pdiparams" --target cuda -o "$work/src"
cmake -S "$work/src" -B "$work/build" -G Ninja > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/model" --version | grep -q "compiled by fluidc"
