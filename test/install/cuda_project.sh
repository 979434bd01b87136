#!/usr/bin/env bash
# test/install/cuda_project.sh - the CUDA target from an install: the installed (and moved) fluidc builds with
# --target cuda against its own prefix, and a CMake project builds add_fluid_program(... TARGET cuda) with nvcc.
# Without a GPU the binaries answer --version and --help and exit 77 when run (docs/cuda.md).
# Exits 77 (skipped) when this build has no CUDA runtime to install.
# usage: cuda_project.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
if [ ! -e "$work/prefix/lib/libfluidc_cuda_kernels.a" ]; then
  echo "this build has no CUDA runtime (FLUIDC_CUDA off or no nvcc): skipped" >&2
  exit 77
fi
test -e "$work/prefix/lib/libfluidc_cuda_runtime.a" || fail "install lacks lib/libfluidc_cuda_runtime.a"
test -e "$work/prefix/include/fluidc/runtime/cuda/host_ops.h" || fail "install lacks the CUDA runtime headers"
mlp=$src/examples/mlp_classifier
mv "$work/prefix" "$work/moved"
prefix=$work/moved

# fluidc build --target cuda from the moved install uses that prefix, never the build tree.
(cd "$work" && env -u FLUIDC_HOME "$prefix/bin/fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" \
   --target cuda -v -o "$work/cuda_classifier" 2> "$work/build_cmd.log") || { cat "$work/build_cmd.log"; fail "installed build"; }
grep -qF -- "-I$prefix/include/fluidc " "$work/build_cmd.log" || fail "installed fluidc does not use $prefix/include/fluidc"
grep -qF -- "-L$prefix/lib " "$work/build_cmd.log" || fail "installed fluidc does not use $prefix/lib"
grep -qF -e "-L$build/lib " -e "-I$src " "$work/build_cmd.log" && fail "installed fluidc uses the build tree"
"$work/cuda_classifier" --version | grep -q "compiled by fluidc"

check_binary() {  # BINARY: --help works anywhere; a run without a device says so and exits 77
  "$1" --help > /dev/null
  set +e
  "$1" --feed x="$mlp/data/test_x.npy" > "$work/run.txt" 2>&1
  local rc=$?
  set -e
  if [ $rc -eq 77 ]; then grep -q "no CUDA device" "$work/run.txt" || fail "$1: exit 77 without the message"
  elif [ $rc -ne 0 ]; then cat "$work/run.txt"; fail "$1 failed ($rc)"; fi
}
check_binary "$work/cuda_classifier"

# A CMake project: add_fluid_program(... TARGET cuda), embedded weights, nvcc through CMake's CUDA language.
mkdir -p "$work/project"
cat > "$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(cuda_sample LANGUAGES CXX CUDA)
find_package(Fluidc REQUIRED)
add_fluid_program(classifier PROGRAM "$mlp/model.pdmodel" PARAMS "$mlp/model.pdiparams" TARGET cuda)
CMAKE
cmake -S "$work/project" -B "$work/project/b" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; fail "configure"; }
cmake --build "$work/project/b" > "$work/project_build.log" 2>&1 || { cat "$work/project_build.log"; fail "project build"; }
grep -q "emitting .* for CUDA" "$work/project_build.log" || fail "the fluidc step did not run"
check_binary "$work/project/b/classifier"
echo "ok: the install builds CUDA binaries from fluidc build and from add_fluid_program"
