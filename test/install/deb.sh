#!/usr/bin/env bash
# test/install/deb.sh - `cpack -G DEB` makes fluidc_<version>_amd64.deb with its dependencies declared; unpacked
# with `dpkg -x` into a temporary root, it builds and runs the sample project. Exit 77 (SKIPPED) without cpack/dpkg.
# usage: deb.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX VERSION
set -euo pipefail
build=$1 src=$2 work=$3 cxx=$4 version=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" > /dev/null || { echo "SKIPPED: $tool is not installed"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$work/pkg/fluidc_${version}_$(dpkg --print-architecture).deb
test -f "$deb" || { ls "$work/pkg"; fail "no $deb"; }
dpkg-deb -f "$deb" Depends | tee "$work/depends"
# What the installed fluidc needs at run time: the C++ compiler it runs and the shared libraries it links.
if "$build/bin/fluidc" --version | grep -q "^embedded compiler: .*clang"; then
  # The embedded Clang compiles: its built-in headers and the linker, not a compiler package.
  for pkg in libclang-common-14-dev binutils libstdc++-12-dev libclang-cpp14 libllvm14; do
    grep -q "$pkg" "$work/depends" || fail "Depends lacks $pkg (the embedded compiler needs it)"
  done
else
  grep -q "clang" "$work/depends" || fail "Depends lacks the C++ compiler"
fi
for lib in $(ldd "$build/bin/fluidc" | awk '/=>/ {print $1}' | grep -E 'protobuf|fmt|clang|LLVM'); do
  pkg=$(dpkg -S "*/$lib" 2> /dev/null | head -1 | cut -d: -f1) || true
  [ -z "$pkg" ] || grep -q "$pkg" "$work/depends" || fail "Depends lacks $pkg (bin/fluidc links $lib)"
done
dpkg-deb -c "$deb" > "$work/contents"
grep -q "./usr/lib/cmake/Fluidc/FluidcConfig.cmake" "$work/contents" || fail "package lacks FluidcConfig.cmake"
dpkg -x "$deb" "$work/root"
prefix=$work/root/usr
mlp=$src/examples/mlp_classifier
# The unpacked fluidc builds against the unpacked runtime.
env -u FLUIDC_HOME "$prefix/bin/fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -v \
  -o "$work/classifier" 2> "$work/build_cmd.log" || { cat "$work/build_cmd.log"; fail "unpacked fluidc build"; }
grep -qF -- "-I$prefix/include/fluidc " "$work/build_cmd.log" || fail "unpacked fluidc does not use $prefix/include/fluidc"
"$work/classifier" --feed x="$mlp/data/test_x.npy" > /dev/null
mkdir -p "$work/src/models"
cp -r "$src/examples/cmake_project" "$work/src/project"
cp "$mlp"/{main,startup,model}.pdmodel "$mlp/model.pdiparams" "$work/src/models/"
"$src/test/install/check_project.sh" "$prefix" "$work/src/project" "$work/src/models" "$work/sample" "$cxx" "$mlp"
