#!/usr/bin/env python3
"""tools/memory_plan_ratios.py - arena / lower bound of the memory plan over every fixture program.

  memory_plan_ratios.py [FLUIDC]    (default: build/bin/fluidc)

Runs `fluidc emit PROGRAM --memory-report` (the passes `fluidc build` runs) on each program under
test/fixtures and examples/, prints one Markdown row per arena (planned bytes, lower bound = most bytes live
at once, bytes without a plan, ratio) and a summary: the share of arenas within 1.05x of the lower bound and
the largest ratio. Per-batch arenas are in bytes per unit of the batch N.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARENA = re.compile(r"^\s*(static|per-batch) arena: (\d+) bytes(?: x N)? for (\d+) variables?\n"
                   r"\s*without a plan (\d+) bytes(?: x N)?, lower bound (\d+) bytes", re.M)


def programs():
    seen = set()
    for top in ("test/fixtures", "examples"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.suffix in (".pdmodel", "") and p.is_file() and (p.suffix == ".pdmodel" or p.name.endswith("__model__")):
                if "startup" in p.name or p in seen:
                    continue
                seen.add(p)
                yield p


def main():
    fluidc = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "bin" / "fluidc")
    rows, failed = [], []
    with tempfile.TemporaryDirectory() as work:
        for p in programs():
            startup = p.with_name("startup.pdmodel")
            cmd = [fluidc, "emit", str(p), "--memory-report", "-o", work]
            if startup.exists() and p.name == "main.pdmodel":
                cmd[3:3] = ["--startup", str(startup)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                failed.append(str(p.relative_to(ROOT)))
                continue
            for kind, arena, n, unplanned, lb in ARENA.findall(r.stdout):
                rows.append((str(p.relative_to(ROOT)), kind, int(arena), int(lb), int(unplanned), int(n)))
    print("| program | arena | vars | planned bytes | lower bound | without a plan | arena/lower bound |")
    print("|---|---|---|---|---|---|---|")
    for prog, kind, arena, lb, unplanned, n in rows:
        print(f"| {prog} | {kind} | {n} | {arena} | {lb} | {unplanned} | {arena / lb:.3f} |")
    ratios = [arena / lb for _, _, arena, lb, _, _ in rows if lb > 0]
    within = sum(r <= 1.05 for r in ratios)
    print(f"\n{len(ratios)} arenas over {len({r[0] for r in rows})} programs: {within} "
          f"({100.0 * within / max(1, len(ratios)):.1f}%) within 1.05x of the lower bound, "
          f"largest ratio {max(ratios, default=0):.3f}; total planned {sum(r[2] for r in rows)} bytes vs "
          f"{sum(r[4] for r in rows)} without a plan")
    if failed:
        print(f"not compiled by `fluidc emit` ({len(failed)}): {', '.join(failed)}")


if __name__ == "__main__":
    main()
