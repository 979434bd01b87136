#!/usr/bin/env bash
# test/install/embedded.sh - the embedded compiler: `fluidc build` with the Clang linked into fluidc gives the
# same bytes as `--cxx clang++` (trainers, inference with embedded weights, a sharded program compiled in
# parallel, a library, -g), works with no compiler on $PATH, and fails cleanly on a compile error.
# usage: embedded.sh FLUIDC SOURCE_DIR WORK_DIR     (exit 77: this fluidc has no embedded compiler)
set -euo pipefail
fluidc=$1 src=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
"$fluidc" --version | grep -q "^embedded compiler: .*clang" || { echo "SKIP: fluidc built without the embedded Clang"; exit 77; }
command -v clang++ > /dev/null || { echo "SKIP: no clang++ to compare with"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
unset CXX FLUIDC_NO_PCH  # the default compiler is the embedded one only without $CXX
export XDG_CACHE_HOME=$work/cache  # its precompiled headers
fx=$src/test/fixtures mlp=$src/examples/mlp_classifier
python3 "$src/tools/gen_scaling_programs.py" chain 2600 chain.pbtxt  # > 8 methods of 256 ops: model_shard*.cc

# NAME ARGS...: builds with the embedded compiler and with clang++ (both from --save-temps dirs of one name, so
# that -g builds name the same paths) and compares the outputs.
both() {
  local name=$1; shift
  rm -rf src.tmp && "$fluidc" build "$@" --save-temps src.tmp -o "emb_$name"
  rm -rf src.tmp && "$fluidc" build "$@" --save-temps src.tmp --cxx clang++ -o "ext_$name"
  cmp "emb_$name" "ext_$name" || fail "$name: the embedded compiler's output differs from clang++'s"
  echo "same: $name"
}
both fit_a_line "$fx/fit_a_line_sgd/main.pdmodel" --startup "$fx/fit_a_line_sgd/startup.pdmodel"
both mlp_trainer "$mlp/main.pdmodel" --startup "$mlp/startup.pdmodel"
both mlp_infer "$mlp/model.pdmodel" --params "$mlp/model.pdiparams"
both lenet "$fx/lenet_digits/main.pdmodel" --startup "$fx/lenet_digits/startup.pdmodel"
both chain chain.pbtxt
ls src.tmp/model_shard1.cc > /dev/null || fail "the chain program was not sharded: the parallel path went untested"
FLUIDC_CXXFLAGS=-g both mlp_infer_g "$mlp/model.pdmodel" --params "$mlp/model.pdiparams"
FLUIDC_CXXFLAGS=-O1 both mlp_O1 "$mlp/model.pdmodel" --params "$mlp/model.pdiparams"
"$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" --emit lib -o emb_lib/libmlp.a
"$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" --emit lib --cxx clang++ -o ext_lib/libmlp.a
cmp emb_lib/libmlp.a ext_lib/libmlp.a || fail "--emit lib: the embedded compiler's archive differs from clang++'s"
"$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" --emit lib -v -o emb_lib2/libmlp.a 2> lib.log
grep -q "^\[pch\] using" lib.log || fail "--emit lib did not use its precompiled header: $(grep pch lib.log)"
cmp emb_lib2/libmlp.a ext_lib/libmlp.a || fail "--emit lib: the precompiled header changes the archive"
echo "same: --emit lib"

# The precompiled header: built once, then used; without it the same bytes again.
ls cache/fluidc/*/pch > /dev/null || fail "no precompiled header in $work/cache/fluidc"
"$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -v -o pch_infer 2> pch.log
grep -q "^\[pch\] using" pch.log || fail "the cached precompiled header was not used: $(grep pch pch.log)"
FLUIDC_NO_PCH=1 "$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -v -o nopch_infer 2> nopch.log
grep -q "^\[pch\] not used: FLUIDC_NO_PCH" nopch.log || fail "FLUIDC_NO_PCH=1 did not turn the precompiled header off"
cmp pch_infer nopch_infer && cmp pch_infer ext_mlp_infer || fail "the precompiled header changes the binary"
# A header it read has changed (its recorded size and time no longer match): the entry is rebuilt, not used.
entry=$(dirname "$(sed -n 's/^\[pch\] using //p' pch.log)")
sed -i '2s/\t.*/\t1 1.000000000/' "$entry/inputs"
"$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -v -o stale_infer 2> stale.log
grep -q "^\[pch\] building .*changed" stale.log || fail "a stale precompiled header was not rebuilt: $(grep pch stale.log)"
cmp stale_infer ext_mlp_infer || fail "the rebuilt precompiled header changes the binary"
echo "ok: precompiled header cached, used, and changes nothing"
# fluidc's headers under the working directory (here the source tree, as $HOME over $HOME/.local): the map of
# the working directory then rewrites their __FILE__, so it joins the entry's key; the header is built under
# it, used from then on, and the bytes are still those of a build without it.
(cd "$src" && for n in 1 2; do
   "$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -v -o "$work/cwd_$n" 2> "$work/cwd_$n.log"
 done && FLUIDC_NO_PCH=1 "$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -o "$work/cwd_nopch")
grep -q "^\[pch\] using" cwd_2.log || fail "headers under the working directory: no precompiled header: $(grep pch cwd_2.log)"
cmp cwd_2 cwd_nopch || fail "headers under the working directory: the precompiled header changes the binary"
echo "ok: precompiled header with fluidc's headers under the working directory"

# No compiler on $PATH: only the linker and the archiver (binutils) are left.
mkdir -p bare
ln -sf "$(command -v ld)" bare/ld && ln -sf "$(command -v ar)" bare/ar
PATH=$work/bare "$fluidc" build "$mlp/model.pdmodel" --params "$mlp/model.pdiparams" -o bare_infer
cmp bare_infer emb_mlp_infer || fail "without clang++ on \$PATH the output differs"
./bare_infer --feed x="$mlp/data/test_x.npy" --fetch-dir out_bare > /dev/null
./ext_mlp_infer --feed x="$mlp/data/test_x.npy" --fetch-dir out_ext > /dev/null
diff -r out_bare out_ext > /dev/null || fail "the binary built without clang++ computes other outputs"
set +e
PATH=$work/bare "$fluidc" build "$mlp/model.pdmodel" --cxx clang++ -o none 2> err.txt
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "cannot run the C++ compiler 'clang++'" err.txt || fail "--cxx clang++ without clang++: exit $rc, $(cat err.txt)"
echo "ok: builds with no compiler on \$PATH; --cxx names the missing one"

# A compile error inside the embedded Clang: its diagnostic, exit 3, no output left behind.
set +e
FLUIDC_CXXFLAGS="-include no_such_header.h" "$fluidc" build "$mlp/model.pdmodel" -o broken 2> err.txt
rc=$?
set -e
[ "$rc" = 3 ] || fail "a failing embedded compile exited $rc, not 3: $(cat err.txt)"
grep -q "no_such_header.h" err.txt || fail "the embedded Clang's diagnostic is missing: $(cat err.txt)"
grep -q "the embedded Clang failed" err.txt || fail "fluidc does not say which compiler failed: $(cat err.txt)"
[ ! -e broken ] || fail "a failed build left its output behind"
# Clang itself crashing (its debugging pragma): the forked child dies, fluidc reports it and exits 3.
echo '#pragma clang __debug crash' > crash.h
set +e
FLUIDC_CXXFLAGS="-include $work/crash.h" "$fluidc" build "$mlp/model.pdmodel" -o crashed > crash.log 2>&1
rc=$?
set -e
[ "$rc" = 3 ] && grep -q "the embedded Clang failed" crash.log || fail "a crash in Clang: fluidc exited $rc: $(tail -3 crash.log)"
# --cxx is for `fluidc build` only.
set +e
"$fluidc" emit "$mlp/model.pdmodel" --cxx clang++ -o emitted 2> /dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "fluidc emit --cxx: exit $rc, not the usage error 2"
echo "ok: embedded compiler: same bytes as clang++ on every case, no compiler needed, errors reported"
