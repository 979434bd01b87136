#!/usr/bin/env bash
# test/e2e/plan_identical.sh - a fixture built with the memory plan and with --no-memory-plan gives
# bit-identical results: a trainer's 20 losses and final weights, an inference program's every output.
# usage: plan_identical.sh FLUIDC train|infer FIXTURE_DIR WORK_DIR [BATCH_SIZE]
set -euo pipefail
source "$(dirname "$0")/fixture_feeds.sh"
fluidc=$1 kind=$2 fixture=$3 work=$4 batch=${5:-8}
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
if [ "$kind" = train ]; then
  "$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" --memory-report -o "$work/planned" \
    > "$work/report.txt"
  "$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" --no-memory-plan -o "$work/owned"
  data=()
  for f in "$fixture"/data/*.npy; do
    [[ $f =~ \.lod[0-9]+\.npy$ ]] && continue  # a sequence input's offsets (train_case.sh)
    name=$(basename "$f" .npy)
    data+=(--data "$name=$f")
    [ -e "$fixture/data/$name.lod0.npy" ] && data+=(--lod "$name=$fixture/data/$name.lod0.npy")
  done
  for v in planned owned; do
    "$work/$v" "${data[@]}" --params "$fixture/init.pdiparams" --batch-size "$batch" --steps 20 --no-shuffle \
      --log-every 100 --losses-out "$work/$v.losses.npy" --save "$work/$v.pdiparams" > /dev/null
  done
  cmp "$work/planned.losses.npy" "$work/owned.losses.npy"
  cmp "$work/planned.pdiparams" "$work/owned.pdiparams"
else
  params=()
  [ -f "$fixture/model.pdiparams" ] && params=(--params "$fixture/model.pdiparams")
  "$fluidc" build "$fixture/model.pdmodel" "${params[@]}" --memory-report -o "$work/planned" > "$work/report.txt"
  "$fluidc" build "$fixture/model.pdmodel" "${params[@]}" --no-memory-plan -o "$work/owned"
  cases=0
  for expected in "$fixture"/expected_*.npy; do
    case=$(basename "$expected" .npy)
    case=${case#expected_}
    case_feeds "$fixture" "$case"
    for v in planned owned; do "$work/$v" "${feeds[@]}" --fetch-dir "$work/$v.$case" > /dev/null; done
    for f in "$work/owned.$case"/*; do cmp "$f" "$work/planned.$case/$(basename "$f")"; done
    cases=$((cases + 1))
  done
  [ "$cases" -gt 0 ] || { echo "no expected_*.npy in $fixture"; exit 1; }
fi
echo "bit-identical with and without the memory plan ($(grep -c 'arena:' "$work/report.txt" || true) arenas planned)"
