#!/usr/bin/env bash
# test/install/library.sh - add_fluid_program(LIBRARY): `fluidc build --emit lib` at build time, the header found,
# the archive linked, and the rebuild rules. Exit 77 (SKIPPED) while fluidc has no `--emit lib`.
# usage: library.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX
set -euo pipefail
build=$1 src=$2 work=$3 cxx=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
help=$("$build/bin/fluidc" --help 2>&1 || true)
grep -q -- "--emit lib" <<< "$help" || { echo "SKIPPED: this fluidc has no --emit lib"; exit 77; }
rm -rf "$work" && mkdir -p "$work/models"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
mlp=$src/examples/mlp_classifier
cp "$mlp/model.pdmodel" "$mlp/model.pdiparams" "$work/models/"
cmake -S "$src/test/install/lib_project" -B "$work/b" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DMODEL_DIR="$work/models" -DCMAKE_CXX_COMPILER="$cxx" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
ninja -C "$work/b" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }
test -f "$work/b/digits_lib.fluidc/libdigits_lib.a" -a -f "$work/b/digits_lib.fluidc/digits_lib.h" || fail "no libdigits_lib.a + digits_lib.h"
"$work/b/embed"
out=$(ninja -C "$work/b" -n)
grep -q "no work to do" <<< "$out" || fail "second build is not a no-op"
sleep 1 && touch "$work/models/model.pdmodel"
out=$(ninja -C "$work/b" -n)
grep -q "fluidc: compiling" <<< "$out" || fail "touching the program does not re-run fluidc"
grep -q "Linking CXX executable embed" <<< "$out" || fail "touching the program does not relink the application"
echo "ok: library target built, linked and rebuilt"
