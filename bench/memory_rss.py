#!/usr/bin/env python3
# bench/memory_rss.py - peak RSS of one train step loop per system (fluidc with and without its memory plan,
# Paddle's Executor, PyTorch eager), each in a child process of its own, beside its step time.
#
# The models, programs, weights and step loops are bench.py's and workloads.py's; this file only runs each
# system in a fresh child and reads the child's peak resident set (/usr/bin/time's %M, the child's
# ru_maxrss).  A child that only imports the framework gives the baseline that the framework
# costs before any model exists, so the table shows the raw peak (what a user pays; the targets are
# judged on it) and the peak minus that baseline.
# usage: python3 bench/memory_rss.py [--reps N] [--batch N] [--steps N] [--threads N] [--only mlp,lenet]
#        (run it through `bash bench/run.sh --rss ...` to get the peers installed and fluidc built first)
import argparse, json, os, platform, re, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path

import numpy as np

import bench
from rss_report import BASELINES, KIB, arena_bytes, render_table
from workloads import MODELS

ROOT = bench.ROOT
# (model name in workloads.MODELS, its row title here); ResNet-18 is left out of the default run, which
# is the (an MLP and a CNN at batch 256): `--only resnet18 --batch 8` runs it at bench.py's batch.
ROWS = {"mlp": "MLP 784-512-256-10 (Adam)", "lenet": "LeNet-5 (Momentum)", "resnet18": "ResNet-18 (Momentum)"}
SYSTEMS = ("fluidc_plan", "fluidc_no_plan", "paddle", "torch")


# ---------------------------------------------------------------- one child, measured

class Sampler(threading.Thread):
    """Polls /proc/PID/status of the measured process (the child of /usr/bin/time) while it runs and keeps
    the split of its largest sampled VmRSS into anonymous memory (heap, stacks: tensors, data) and
    file-backed pages (the binary's and libraries' code): what the peak alone cannot say.  A sample every
    5 ms may miss a short spike; the peak from /usr/bin/time does not."""

    def __init__(self, time_pid):
        super().__init__(daemon=True)
        self.time_pid, self.best, self.done = time_pid, {}, threading.Event()

    def run(self):
        pid = None
        while pid is None and not self.done.is_set():  # /usr/bin/time's one child, once it has forked
            try:
                kids = open(f"/proc/{self.time_pid}/task/{self.time_pid}/children").read().split()
            except OSError:
                return
            if kids:
                pid = kids[0]
            else:
                self.done.wait(0.001)
        while pid is not None and not self.done.is_set():
            try:
                text = open(f"/proc/{pid}/status").read()
            except OSError:
                return
            f = {k: int(v) for k, v in re.findall(r"^(VmRSS|RssAnon|RssFile|RssShmem):\s+(\d+) kB", text, re.M)}
            if f.get("VmRSS", 0) > self.best.get("VmRSS", 0):
                self.best = f
            self.done.wait(0.005)


def measured_child(cmd, env, log):
    """Runs `cmd` under /usr/bin/time; returns (its output, its peak RSS in KiB, the sampler's split at
    its peak).  Not ru_maxrss from wait4 here: Linux keeps the high-water mark of the address space
    replaced by exec, and a child forked from this process (Paddle imported) starts at this process's
    size; /usr/bin/time is small, so the child it forks starts small.  Raises when the child fails."""
    rss_file = Path(str(log) + ".rss")
    with open(log, "w+") as out:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *map(str, cmd)], stdout=out,
                             stderr=subprocess.STDOUT, env=env)
        sampler = Sampler(p.pid)
        sampler.start()
        p.wait()
        sampler.done.set()
        sampler.join()
        out.seek(0)
        text = out.read()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited with {p.returncode}:\n{text[-3000:]}")
    return text, int(rss_file.read_text().split()[-1]), sampler.best


# ---------------------------------------------------------------- what runs inside the Python children

class _NameMap:
    """Stands in for the Paddle layer that workloads.copy_structured reads variable names from
    (layer.state_dict()[key].name), so the PyTorch child never imports Paddle."""

    def __init__(self, names):
        self.names = names

    def state_dict(self):
        return {k: type("Var", (), {"name": v})() for k, v in self.names.items()}


def child_main(args):
    """One system's step loop (bench.paddle_train / bench.torch_train) on what the parent wrote to
    --work: the serialized programs, the initial weights, the data.  Prints one JSON line."""
    kind = args.child
    if kind.startswith("import_"):  # a baseline: python, numpy (imported above) and the framework, nothing else
        if kind != "import_python_numpy":
            __import__(kind[len("import_"):])
        print(json.dumps({}))
        return
    work = Path(args.work)
    meta = json.loads((work / "meta.json").read_text())
    model = next(m for m in MODELS if m.name == meta["model"])
    data = {n: np.load(work / f"{n}.npy") for n in meta["feeds"]}
    weights = dict(np.load(work / "weights.npz"))
    if kind == "paddle":
        import paddle
        paddle.enable_static()
        paddle.set_flags({"FLAGS_use_mkldnn": False})  # as bench.py: the Executor as it runs by default
        progs = tuple(paddle.static.Program.parse_from_string((work / f).read_bytes())
                      for f in ("main.pdmodel", "startup.pdmodel"))
        prog = {"paddle": progs, "weights": weights, "loss": meta["loss"]}
        ms, first = bench.paddle_train(prog, data, args.batch, args.steps)
    elif kind == "torch":
        import torch
        torch.set_num_threads(args.threads)
        if meta.get("names"):
            model.layer = _NameMap(meta["names"])
        ms, first = bench.torch_train(model, {"weights": weights}, data, args.batch, args.steps)
    else:
        raise SystemExit(f"unknown child {kind}")
    print(json.dumps({"ms": ms, "first_loss": first}))


# ---------------------------------------------------------------- the parent

def prepare(model, args, work, fluidc):
    """Writes the model's programs, weights and data for the children and builds the two trainers;
    returns (the children's commands per system, facts about the row, fluidc's build error or None)."""
    prog = bench.paddle_programs(model, work)
    data = model.data(args.batch * args.steps, np.random.default_rng(0))
    exe = {"fluidc_plan": work / "trainer_plan", "fluidc_no_plan": work / "trainer_no_plan"}
    trainer = bench.trainer_args("EXE", prog, data, args.batch, 2 * args.steps, work)[1:]  # saves the .npy data
    np.savez(work / "weights.npz", **prog["weights"])
    names = {k: v.name for k, v in model.layer.state_dict().items()} if hasattr(model, "layer") else None
    (work / "meta.json").write_text(json.dumps({"model": model.name, "feeds": sorted(data), "loss": prog["loss"],
                                                "names": names}))
    facts = {"data_bytes": sum(a.nbytes for a in data.values()),
             "persistable_bytes": sum(a.nbytes for a in prog["weights"].values())}
    py = [sys.executable, Path(__file__).resolve(), "--batch", args.batch, "--steps", args.steps,
          "--threads", args.threads, "--work", work, "--child"]
    cmds = {"paddle": py + ["paddle"], "torch": py + ["torch"]}
    error = None
    for system, extra in (("fluidc_plan", ["--memory-report"]), ("fluidc_no_plan", ["--no-memory-plan"])):
        p = subprocess.run([str(c) for c in [fluidc, "build", prog["main"], "--startup", prog["startup"], *extra,
                                             "-o", exe[system]]], capture_output=True, text=True)
        if p.returncode != 0:
            error = bench.build_error(p.stderr + p.stdout) or f"fluidc build exited with {p.returncode}"
            break
        if system == "fluidc_plan":
            facts.update(arena_bytes(p.stdout, args.batch))
        cmds[system] = [exe[system], *trainer, "--log-every", args.steps, "--threads", args.threads,
                        "--losses-out", work / f"losses_{system}.npy"]
    return cmds, facts, error


def measure_row(model, args, env, fluidc, work_root):
    work = work_root / model.name
    work.mkdir()
    print(f"{model.name}: writing programs and data, building the trainers", file=sys.stderr)
    cmds, facts, error = prepare(model, args, work, fluidc)
    if error:
        print(f"fluidc: {model.name}: build failed, measuring the peers only: {error}", file=sys.stderr)
    runs = {s: [] for s in SYSTEMS if s in cmds}
    for rep in range(args.reps):
        for system, cmd in cmds.items():  # interleaved, so a burst of load on the machine hits every system
            t0 = time.perf_counter()
            text, rss, split = measured_child(cmd, env, work / f"{system}.log")
            if system.startswith("fluidc"):
                ms, first = bench.fluidc_steady_ms(text), float(np.load(work / f"losses_{system}.npy")[0])
            else:
                res = json.loads(text.strip().splitlines()[-1])
                ms, first = res["ms"], res["first_loss"]
            runs[system].append({"peak_rss_kib": rss, "ms": ms, "first_loss": first, "at_peak_kib": split})
            print(f"  rep {rep + 1}/{args.reps} {system}: peak RSS {rss / KIB:.1f} MiB, {ms:.3g} ms/step "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        if rep == 0:  # same weights, same first batch: one model on every system, or no comparison
            bench.check_same_model(ROWS[model.name], {("fluidc" if s == "fluidc_plan" else s): r[0]["first_loss"]
                                                      for s, r in runs.items()})
    entry = {"facts": facts, "systems": {}}
    if error:
        entry["fluidc_error"] = error
    for system, rs in runs.items():
        entry["systems"][system] = {
            "peak_rss_kib": bench.median_minmax([r["peak_rss_kib"] for r in rs]),
            "ms": bench.median_minmax([r["ms"] for r in rs]),
            "first_loss": rs[0]["first_loss"],
            # the sampled split of the run whose peak was the median one
            "at_peak_kib": sorted(rs, key=lambda r: r["peak_rss_kib"])[len(rs) // 2]["at_peak_kib"]}
    return entry


def measure_baselines(args, env, work_root):
    out = {}
    for kind in BASELINES:
        cmd = [sys.executable, Path(__file__).resolve(), "--child", f"import_{kind}"]
        runs = sorted((measured_child(cmd, env, work_root / f"import_{kind}.log")[1:] for _ in range(args.reps)),
                      key=lambda r: r[0])
        out[kind] = dict(bench.median_minmax([r[0] for r in runs]), at_peak_kib=runs[len(runs) // 2][1])
        print(f"baseline {BASELINES[kind]}: {out[kind]['median'] / KIB:.1f} MiB", file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=5, help="children per system and model (default 5)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=10, help="timed steps per child (fluidc: after as many warm-up "
                                                         "steps; the peers: after one); the data holds this many "
                                                         "batches")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", default="mlp,lenet", help=f"comma-separated models, of {', '.join(ROWS)}")
    ap.add_argument("--fluidc", default=str(bench.FLUIDC))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "memory_rss.json"))
    ap.add_argument("--note", default="", help="appended to the table's first line (e.g. 'machine shared')")
    ap.add_argument("--keep-work", action="store_true", help="keep the temporary directory (programs, trainers, "
                                                                 "children's logs) and print its path")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # the parent's way of running one system
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child_main(args)
    wanted = [m for m in args.only.split(",") if m]
    unknown = [m for m in wanted if m not in ROWS]
    if unknown or args.reps < 1 or args.batch < 1 or args.steps < 1:
        ap.error(f"unknown model(s) {unknown} (known: {', '.join(ROWS)})" if unknown
                 else "--reps, --batch and --steps must be at least 1")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), FLUIDC_NUM_THREADS=str(args.threads))
    import paddle  # the parent writes the programs; its own RSS is not measured
    torch_version = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                                   capture_output=True, text=True).stdout.strip() or None
    if torch_version is None:
        raise SystemExit("PyTorch is not installed in this Python: pip install -r bench/requirements.txt")
    results = {"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
               "threads": args.threads, "batch": args.batch, "steps": args.steps, "reps": args.reps,
               "paddle": paddle.__version__, "torch": torch_version, "note": args.note,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "workloads": {}}
    work_root = Path(tempfile.mkdtemp(prefix="fluidc-rss-"))
    try:
        results["baselines"] = measure_baselines(args, env, work_root)
        for model in (m for m in MODELS if m.name in wanted):
            title = f"{ROWS[model.name]} train step, batch {args.batch}"
            results["workloads"][title] = measure_row(model, args, env, Path(args.fluidc), work_root)
    finally:
        if args.keep_work:
            print(f"work directory kept: {work_root}", file=sys.stderr)
        else:
            shutil.rmtree(work_root, ignore_errors=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(render_table(results))


if __name__ == "__main__":
    main()
