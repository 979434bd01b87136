#!/usr/bin/env bash
# test/install/sample_project.sh - `cmake --install` to a temporary prefix; the installed fluidc uses that prefix's
# runtime (never the build tree's, also after the prefix is moved); the sample project builds against it.
# usage: sample_project.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX
set -euo pipefail
build=$1 src=$2 work=$3 cxx=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in bin/fluidc lib/libfluidc_runtime.a lib/libfluidc_kernels.a include/fluidc/runtime/model.h \
         include/fluidc/kernels/matmul.h lib/cmake/Fluidc/FluidcConfig.cmake lib/cmake/Fluidc/FluidcConfigVersion.cmake \
         lib/cmake/Fluidc/FluidcFunctions.cmake; do
  test -e "$work/prefix/$f" || fail "install lacks $f"
done

# The installed fluidc compiles against the prefix it sits in, wherever that prefix is moved.
mlp=$src/examples/mlp_classifier
mv "$work/prefix" "$work/moved"
prefix=$work/moved
(cd "$work" && env -u FLUIDC_HOME "$prefix/bin/fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" \
   -v -o "$work/classifier" 2> "$work/build_cmd.log") || { cat "$work/build_cmd.log"; fail "installed fluidc build"; }
grep -qF -- "-I$prefix/include/fluidc " "$work/build_cmd.log" || fail "installed fluidc does not use $prefix/include/fluidc"
grep -qF -- "-L$prefix/lib " "$work/build_cmd.log" || fail "installed fluidc does not use $prefix/lib"
grep -qF -e "-L$build/lib " -e "-I$src " "$work/build_cmd.log" && fail "installed fluidc uses the build tree"
"$work/classifier" --feed x="$mlp/data/test_x.npy" > /dev/null
if "$prefix/bin/fluidc" --version | grep -q "^embedded compiler: .*clang"; then  # `fluidc run` from the install
  (cd "$work" && env -u FLUIDC_HOME "$prefix/bin/fluidc" run "$mlp/model.pdmodel" -- --params "$mlp/model.pdiparams" \
     --feed x="$mlp/data/test_x.npy" > /dev/null) || fail "installed fluidc run"
fi
env -u FLUIDC_HOME "$prefix/bin/fluidc" emit "$mlp/model.pdmodel" -o "$work/emitted"
grep -qF "\"$prefix/include/fluidc\"" "$work/emitted/CMakeLists.txt" || fail "fluidc emit's CMakeLists.txt does not use the install"
# $FLUIDC_HOME still overrides (here: the same install, named explicitly).
FLUIDC_HOME=$prefix "$build/bin/fluidc" build "$mlp/model.pdmodel" -v -o "$work/classifier2" 2> "$work/home_cmd.log"
grep -qF -- "-I$prefix/include/fluidc " "$work/home_cmd.log" || fail "\$FLUIDC_HOME is not used"

# The sample project and its programs, copied out of the repository (the test touches a program).
mkdir -p "$work/src/models"
cp -r "$src/examples/cmake_project" "$work/src/project"
cp "$mlp"/{main,startup,model}.pdmodel "$mlp/model.pdiparams" "$work/src/models/"
"$src/test/install/check_project.sh" "$prefix" "$work/src/project" "$work/src/models" "$work/sample" "$cxx" "$mlp"
