#!/usr/bin/env python3
# bench/memory_breakdown.py - where a compiled trainer's peak heap goes, by owner (arena, owned tensors, kernel scratch, data, ...).
#
# Runs each trainer that `bench/memory_rss.py --keep-work` left in WORK (WORK/<model>/trainer_plan and
# trainer_no_plan, with their .npy data and init.pdiparams) under `valgrind --tool=massif` for a few steps,
# takes the peak snapshot and the largest one taken during the steps (the peak can come while the
# parameters load), and sums their allocation stacks into the categories below (the first rule whose
# pattern occurs in a stack's frames wins).  Massif counts heap bytes, not resident pages: the code
# and the libraries (RssFile) and untouched heap are not in it; memory_rss.py's sampler gives those.
# usage: python3 bench/memory_breakdown.py WORK [--steps N] [--only mlp,lenet]   (needs valgrind, ms_print)
import argparse, re, subprocess, sys
from pathlib import Path

# (category, patterns of stack frames), in order: a stack is counted under the first category one of
# whose patterns occurs in it.
RULES = (
    ("conv scratch (thread-local im2col / layout buffers)", ("conv_buffer",)),
    ("GEMM packing buffers", ("sgemm",)),
    ("memory-plan arena", ("Arena::reserve",)),
    ("data (the .npy files, read whole)", ("read_npy",)),
    ("persistables (parameters, optimizer state)", ("initialize_state", "load_params", "read_params",
                                                    "startup_block", "Model::load")),
    ("owned tensors of the step", ("Model::main_block", "Model::run_block", "Model::main_")),
    ("fed batch and driver", ("run_trainer",)),
)
OTHER = "other (C++ runtime, below massif's threshold)"
MIB = 1024 * 1024


def snapshots(massif_file):
    """Every detailed snapshot of a massif run, from ms_print: (number, useful heap bytes, tree rows), the
    rows (depth, bytes, frame) from the allocation function outward."""
    text = subprocess.run(["ms_print", "--threshold=0.05", str(massif_file)], capture_output=True, text=True,
                          check=True).stdout
    lines, out, k = text.splitlines(), [], 0
    while k < len(lines):
        head = re.match(r"^\s*(\d+)\s+[\d,]+\s+[\d,]+\s+([\d,]+)\s+[\d,]+\s+[\d,]+\s*$", lines[k])
        k += 1
        if not head or k >= len(lines) or "heap allocation functions" not in lines[k]:
            continue
        rows = []
        for l in lines[k + 1:]:
            if l.startswith("-----"):
                break
            m = re.match(r"^([ |]*)->\s*[\d.]+% \(([\d,]+)B\) (.*)$", l)
            if m:
                rows.append((len(m.group(1)) // 2, int(m.group(2).replace(",", "")), m.group(3)))
        out.append((int(head.group(1)), int(head.group(2).replace(",", "")), rows))
    return out


def in_step(rows):
    """A snapshot taken once the steps have begun (a step's own allocations are in it): the parameters are
    loaded and the loading's scratch is gone."""
    return any("main_block" in f or "bind_arena" in f for _, _, f in rows)


def categorise(rows):
    """Sums the leaves of the tree (each with the frames from the allocation function outward) by RULES."""
    sums, stack = {}, []
    for k, (depth, size, frame) in enumerate(rows):
        del stack[depth:]
        stack.append(frame)
        leaf = k + 1 == len(rows) or rows[k + 1][0] <= depth
        if not leaf:
            continue
        path = " ".join(stack)
        cat = next((c for c, pats in RULES if any(p in path for p in pats)), OTHER)
        sums[cat] = sums.get(cat, 0) + size
    return sums


def run_massif(exe, model_dir, steps, out):
    data = [f"--data={p.stem}={p}" for p in sorted(model_dir.glob("*.npy")) if not p.stem.startswith("losses")]
    cmd = ["valgrind", "--tool=massif", "--depth=40", "--detailed-freq=1", "--max-snapshots=200",
           f"--massif-out-file={out}", str(exe), "--params", str(model_dir / "init.pdiparams"), "--batch-size",
           "256", "--steps", str(steps), "--no-shuffle", "--threads", "1", "--log-every", "1000", *data]
    subprocess.run(cmd, check=True, capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("work", help="a directory bench/memory_rss.py --keep-work left")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--only", default="mlp,lenet")
    args = ap.parse_args()
    work = Path(args.work)
    results = {}
    for model in args.only.split(","):
        for system in ("plan", "no_plan"):
            exe = work / model / f"trainer_{system}"
            out = work / model / f"massif_{system}.out"
            if not out.exists():
                print(f"{model} {system}: massif, {args.steps} steps", file=sys.stderr)
                run_massif(exe, work / model, args.steps, out)
            snaps = snapshots(out)
            peak = max(snaps, key=lambda s: s[1])
            step = max((s for s in snaps if in_step(s[2])), key=lambda s: s[1])
            for phase, snap in (("peak", peak), ("step", step)):
                label = "at load" if phase == "peak" and not in_step(peak[2]) else "in a step"
                results[(model, system, phase)] = (categorise(snap[2]), snap[1], label)
    cats = [c for c, _ in RULES] + [OTHER]
    cols = list(results)
    print("| heap (MiB) | " + " | ".join(f"{m} {s.replace('_', '-')}: {'peak' if p == 'peak' else 'step peak'}"
                                       for m, s, p in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for c in cats:
        print(f"| {c} | " + " | ".join(f"{results[k][0].get(c, 0) / MIB:.2f}" for k in cols) + " |")
    print("| **total heap** | " + " | ".join(f"**{results[k][1] / MIB:.2f}**" for k in cols) + " |")
    print("| taken | " + " | ".join(results[k][2] for k in cols) + " |")


if __name__ == "__main__":
    main()
