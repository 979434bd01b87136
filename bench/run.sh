#!/usr/bin/env bash
# bench/run.sh - the benchmark: installs the Python peers (never needed by the tests), builds fluidc, runs
# every workload on every system in one run and prints the table (also bench/results/latest.json).
# usage: bash bench/run.sh [--reps N] [--threads N] [--only SUBSTRING-OF-A-ROW-TITLE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" fluidc sgemm_rate stream_rate > /dev/null
python3 -m pip install -q -r "$root/bench/requirements.txt"
command -v /usr/bin/time > /dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get install -y -qq time; }
# Fixed hash seed: Paddle's while op lists its inputs in Python set order, so the RNN's ProgramDesc is
# the same in every run only with it.
PYTHONHASHSEED=0 python3 "$root/bench/bench.py" "$@"
