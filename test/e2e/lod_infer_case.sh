#!/usr/bin/env bash
# test/e2e/lod_infer_case.sh - an inference fixture on LoD input (tools/fixtures_crf_tagger.py): builds the model with
# its parameters, runs each case's inputs (inputs/FEED_CASE.npy, offsets in FEED_CASE.lod<l>.npy, fed with --lod) and
# compares every fetch with Paddle's expected/FETCH_CASE.npy: within 1e-5 relative (1e-7 absolute), or exactly for the
# fetches the fixture's `exact` file lists (decoded tag paths); every LoD the fetches carry must equal Paddle's.
# A real program without weights (tools/fixtures_real_models.py) is given as PROGRAM, with SYNTH_PARAMS to
# synthesize them; its fixture's `fetch` file names intermediates to fetch as well (--fetch), and its
# `tolerance` file ("RTOL ATOL"), when there is one, replaces 1e-5 / 1e-7 for the inexact fetches.
# usage: lod_infer_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR [PROGRAM SYNTH_PARAMS]
set -euo pipefail
source "$(dirname "$0")/compare_lod.sh"
fluidc=$1 compare=$2 fixture=$3 work=$4 program=${5:-} synth=${6:-}
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
if [ -n "$program" ]; then
  "$synth" "$program" "$work/weights.pdiparams"
  extra=()
  [ ! -s "$fixture/fetch" ] || extra=(--fetch "$(cat "$fixture/fetch")")
  "$fluidc" build "$program" --params "$work/weights.pdiparams" "${extra[@]}" -o "$work/model"
else
  "$fluidc" build "$fixture/model.pdmodel" --params "$fixture/model.pdiparams" -o "$work/model"
fi
is_lod() { [[ $1 =~ \.lod[0-9]+\.npy$ ]]; }
cases=0
# One case per suffix of the LoD inputs FEED_CASE.lod0.npy (several LoD feeds share a case).
for case in $(for f in "$fixture"/inputs/*.lod0.npy; do f=$(basename "$f" .lod0.npy); echo "${f##*_}"; done | sort -u); do
  feeds=()
  for f in "$fixture"/inputs/*_"$case".npy; do
    is_lod "$f" && continue
    stem=$(basename "$f" .npy) name=${stem%_"$case"}
    levels=$(ls "$fixture/inputs/$stem".lod*.npy 2>/dev/null | sort -V | paste -sd, || true)
    feeds+=(--feed "$name=$f")
    [ -z "$levels" ] || feeds+=(--lod "$name=$levels")
  done
  out=$work/out_$case
  "$work/model" "${feeds[@]}" --fetch-dir "$out" > /dev/null
  compared=0
  for f in "$fixture"/expected/*_"$case".npy; do
    is_lod "$f" && continue
    stem=$(basename "$f" .npy) name=${stem%_"$case"}
    tol=(--rtol 1e-5 --atol 1e-7)
    [ ! -f "$fixture/tolerance" ] || { read -r rt at < "$fixture/tolerance"; tol=(--rtol "$rt" --atol "$at"); }
    grep -qxF "$name" "$fixture/exact" && tol=(--rtol 0 --atol 0)
    echo "$case $name:"
    "$compare" "$out/$name.npy" "$f" "${tol[@]}"
    compare_lod "$compare" "$out/$name" "$fixture/expected/$stem" "$name"
    compared=$((compared + 1))
  done
  [ "$compared" -gt 0 ] || { echo "no expected/*_$case.npy in $fixture"; exit 1; }
  cases=$((cases + 1))
done
[ "$cases" -gt 0 ] || { echo "no inputs/*.lod0.npy in $fixture"; exit 1; }
echo "$cases input sets match Paddle (LoD offsets exactly)"
