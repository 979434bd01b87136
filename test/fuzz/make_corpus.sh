#!/usr/bin/env bash
# test/fuzz/make_corpus.sh OUT - seed corpora for the fuzz targets, one folder per target, from test/fixtures.
# Only small files are taken (libFuzzer mutates small inputs best; big ones slow every run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
max=${FLUIDC_FUZZ_SEED_MAX_BYTES:-16384}
rm -rf "$out"
mkdir -p "$out"/{fuzz_program_binary,fuzz_program_text,fuzz_npy,fuzz_tensor_record,fuzz_cli}

# copy DEST FILE...: file names keep their fixture path (slashes -> _) so a seed can be traced back.
copy() {
  local dest=$1; shift
  for f in "$@"; do
    rel=${f#"$root"/}
    cp "$f" "$out/$dest/${rel//\//_}"
  done
}
small() { find "$root/test/fixtures" "$@" -type f -size -"$((max + 1))"c | sort; }

copy fuzz_program_binary $(small -name '*.pdmodel') $(small -name '__model__')
# Paddle 3 PIR programs reach the same parser (Program::parse tells them by their JSON).
copy fuzz_program_binary $(small -name 'inference.json')
copy fuzz_program_text $(find "$root/test/lit" -name '*.pbtxt' -size -"$((max + 1))"c | sort)
# A handful of each dtype is enough for npy; the 250 fixtures differ mostly in their numbers.
copy fuzz_npy $(small -name '*.npy' | awk 'NR % 8 == 1') $(small -path '*/runtime/*.npy')
copy fuzz_tensor_record $(small -name '*.pdiparams') $(small -path '*/params_dir/*')

# Command lines as the e2e tests give them (test/e2e/*.sh), NUL-separated.
argv() { local name=$1; shift; printf '%s\0' "$@" > "$out/fuzz_cli/$name"; }
argv train --data x=x.npy --data y=y.npy --params init.pdiparams --batch-size 20 --steps 20 --no-shuffle \
  --save final.pdiparams --losses-out losses.npy
argv resume --data x=x.npy --resume final.pdiparams --steps 0 --save resaved.pdiparams
argv infer --feed x=input.npy --fetch-dir out/ --repeat=3 --threads 2
argv bad --feed =x.npy --repeat -1 --epochs=1e3 stray

for d in "$out"/*; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
