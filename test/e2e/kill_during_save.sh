#!/usr/bin/env bash
# test/e2e/kill_during_save.sh - 30 trials of kill -9 while a trainer saves a checkpoint every step: the
# checkpoint is always a complete one (it loads, and re-saves byte-identical), and the temp files of
# killed saves are gone after the next save.
# usage: kill_during_save.sh FLUIDC FIXTURE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 fixture=$2 work=$3
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
"$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" -o "$work/trainer"
data=(--data "x=$fixture/data/x.npy" --data "label=$fixture/data/label.npy" --batch-size 8 --threads 1)
"$work/trainer" "${data[@]}" --steps 1 --save "$work/ckpt" > /dev/null
killed_mid_save=0
for trial in $(seq 1 30); do
  "$work/trainer" "${data[@]}" --steps 1000000 --save-every 1 --save "$work/ckpt" --log-every 1000000 > /dev/null &
  pid=$!
  # 20-220 ms: past start-up, into the save-every-step loop.
  sleep "0.$(printf '%03d' $((20 + RANDOM % 200)))"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  ls "$work"/ckpt.tmp.* > /dev/null 2>&1 && killed_mid_save=$((killed_mid_save + 1))
  # Whatever moment the kill hit, the checkpoint is a whole one: it loads and saves back identically.
  "$work/trainer" "${data[@]}" --resume "$work/ckpt" --steps 0 --save "$work/check" > /dev/null
  cmp "$work/ckpt" "$work/check"
done
echo "30 kills, $killed_mid_save of them left a temp file behind"
# The next save into the same place removes the killed saves' temp files.
"$work/trainer" "${data[@]}" --resume "$work/ckpt" --steps 0 --save "$work/ckpt" > /dev/null
leftover=$(find "$work" -name 'ckpt*.tmp.*' | wc -l)
if [ "$leftover" -ne 0 ]; then
  echo "temp files survived the next save:"; find "$work" -name 'ckpt*.tmp.*'; exit 1
fi
echo "no temp file survived the next save"
