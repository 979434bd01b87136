#!/usr/bin/env bash
# test/install/check_project.sh - configure examples/cmake_project against an installed fluidc, build it, train a
# few steps, classify with the checkpoint, and check the rebuild rules (nothing touched: no work; program touched:
# only that program's target rebuilt).
# usage: check_project.sh PREFIX PROJECT_DIR MODEL_DIR BUILD_DIR CXX DATA_DIR
set -euo pipefail
prefix=$1 project=$2 models=$3 build=$4 cxx=$5 data=$6
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake -S "$project" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DMODEL_DIR="$models" \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; fail "configure"; }
grep -q "Fluidc_DIR:PATH=$prefix/lib/cmake/Fluidc" "$build/CMakeCache.txt" || fail "Fluidc not found in $prefix"
ninja -C "$build" -j2 > "$build.build.log" 2>&1 || { cat "$build.build.log"; fail "build"; }
# The fluidc that ran is the installed one.
cmds=$(ninja -C "$build" -t commands digits_trainer)
grep -qF "$prefix/bin/fluidc emit" <<< "$cmds" || fail "build did not run $prefix/bin/fluidc"

# Train a few steps from Paddle's initial weights, then classify the test split with the checkpoint.
"$build/digits_trainer" --data x="$data/data/train_x.npy" --data label="$data/data/train_label.npy" \
  --params "$data/init.pdiparams" --batch-size 32 --steps 30 --no-shuffle --log-every 10 \
  --save-dir "$build/trained" --save "$build/trained.pdiparams" | tee "$build.train.log"
grep -q "final loss" "$build.train.log" || fail "trainer reported no final loss"
"$build/digits_classifier" --params "$build/trained" --feed x="$data/data/test_x.npy" --fetch-dir "$build/predictions"
test -s "$build/predictions/save_infer_model_scale_0.tmp_0.npy" || fail "classifier wrote no predictions"
"$build/digits_classifier" --feed x="$data/data/test_x.npy" > /dev/null  # the embedded weights
"$build/digits_finetune" --params "$data/model.pdiparams" --data x="$data/data/train_x.npy" \
  --data label="$data/data/train_label.npy" --steps 5 --log-every 5 > /dev/null
# The library-embedding application, when this fluidc has --emit lib (FLUIDC_HAS_LIBRARY).
if [ -x "$build/classify_one" ]; then
  out=$("$build/classify_one")
  echo "$out"
  grep -q "predicted digit 1 " <<< "$out" || fail "classify_one does not recognise its bundled 1"
else
  echo "note: no classify_one (this fluidc has no --emit lib)"
fi

# Nothing touched: nothing to do.
out=$(ninja -C "$build" -n)
grep -q "no work to do" <<< "$out" || fail "second build is not a no-op: $out"
# The training program touched: its emit, compile and link re-run, and nothing of the other targets.
sleep 1
touch "$models/main.pdmodel"
out=$(ninja -C "$build" -n)
echo "$out"
grep -q "fluidc: emitting .*main.pdmodel into digits_trainer.fluidc" <<< "$out" || fail "touching main.pdmodel does not re-run fluidc"
grep -q "Linking CXX executable digits_trainer" <<< "$out" || fail "touching main.pdmodel does not relink digits_trainer"
grep -q "digits_classifier\|digits_finetune" <<< "$out" && fail "touching main.pdmodel rebuilds other programs"
ninja -C "$build" > /dev/null
out=$(ninja -C "$build" -n)
grep -q "no work to do" <<< "$out" || fail "build after the rebuild is not a no-op"
if [ -x "$build/classify_one" ]; then  # the library's program touched: fluidc re-runs, the application relinks
  sleep 1
  touch "$models/model.pdmodel"
  out=$(ninja -C "$build" -n)
  grep -q "fluidc: compiling .*model.pdmodel into digits_model.fluidc/libdigits_model.a" <<< "$out" || fail "touching model.pdmodel does not rebuild the library"
  grep -q "Linking CXX executable classify_one" <<< "$out" || fail "touching model.pdmodel does not relink classify_one"
  ninja -C "$build" > /dev/null
  "$build/classify_one" > /dev/null
fi
echo "ok: sample project at $project built against $prefix"
