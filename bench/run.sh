#!/usr/bin/env bash
# bench/run.sh - the benchmark: installs the Python peers (never needed by the tests), builds fluidc, runs
# every workload on every system in one run and prints the table (also bench/results/latest.json).
# usage: bash bench/run.sh [--reps N] [--threads N] [--only SUBSTRING-OF-A-ROW-TITLE]
#        bash bench/run.sh --rss [--reps N] [--steps N] [--only mlp,lenet]   (bench/memory_rss.py)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" fluidc sgemm_rate stream_rate > /dev/null
python3 -m pip install -q -r "$root/bench/requirements.txt"
command -v /usr/bin/time > /dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get install -y -qq time; }
# Fixed hash seed: Paddle's while op lists its inputs in Python set order, so the RNN's ProgramDesc is
# the same in every run only with it.
# `bench/run.sh --rss [ARGS]`: peak RSS of the train steps against Paddle and PyTorch (bench/memory_rss.py).
if [ "${1:-}" = --rss ]; then shift; PYTHONHASHSEED=0 exec python3 "$root/bench/memory_rss.py" "$@"; fi
PYTHONHASHSEED=0 python3 "$root/bench/bench.py" "$@"
