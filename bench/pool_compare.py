#!/usr/bin/env python3
"""bench/pool_compare.py - two builds' pool_rate (bench/pool_rate.cc) run interleaved: per layer the median of --runs
medians, old against new, one thread.

  python3 bench/pool_compare.py OLD_POOL_RATE NEW_POOL_RATE [--runs 5] [--reps 200]
OLD_POOL_RATE: the same pool_rate.cc linked against the earlier kernel library (how is up to the caller; the
figures in docs/performance.md say how theirs was made).
"""
import argparse
import os
import statistics
import subprocess


def run(exe, reps):
    out = subprocess.run([exe, str(reps)], check=True, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, FLUIDC_NUM_THREADS="1")).stdout
    return {name: float(us) for name, us in (line.split() for line in out.splitlines() if line.strip())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    times = {"old": [], "new": []}
    for _ in range(a.runs):  # interleaved, so a burst of load hits both alike
        times["old"].append(run(a.old, a.reps))
        times["new"].append(run(a.new, a.reps))
    print("load average: %s" % open("/proc/loadavg").read().split()[0:3])
    print("| layer | old us | new us | speed-up |")
    print("|---|---|---|---|")
    for name in times["old"][0]:
        old = statistics.median(r[name] for r in times["old"])
        new = statistics.median(r[name] for r in times["new"])
        print("| %s | %.1f | %.1f | %.2fx |" % (name, old, new, old / new))


if __name__ == "__main__":
    main()
