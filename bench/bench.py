#!/usr/bin/env python3
# bench/bench.py - fluidc side by side with Paddle's Executor, PyTorch eager and ONNX Runtime on the same
# models, weights and data, in one run: medians of several repetitions, min-max, ratios (peer / fluidc).
# The models and their rows are in bench/workloads.py; this file is the model-independent harness.
# Run it through bench/run.sh, which installs the Python peers and builds fluidc first.
import argparse, json, os, platform, re, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

from workloads import MODELS

ROOT = Path(__file__).resolve().parent.parent
FLUIDC = ROOT / "build" / "bin" / "fluidc"
LOSS_RTOL = 1e-4  # first-step losses of the systems must agree this closely: else it is not one model


def median_minmax(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": len(xs)}


def run(cmd, env=None):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, env=env).stdout


def available(module):
    try:
        __import__(module)
        return True
    except Exception:
        return False


# ---------------------------------------------------------------- programs (written by Paddle)

def paddle_programs(model, work):
    """Writes the model's main/startup programs, their initial weights and (if it has an inference
    output) an inference model; returns their paths, the loss name, the weights and the programs."""
    import paddle
    paddle.enable_static()
    paddle.seed(7)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        loss, infer_out = model.paddle_forward()
        infer = main.clone(for_test=True) if infer_out is not None else None  # before the backward exists
        model.paddle_optimizer().minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        persist = sorted(v.name for v in main.list_vars() if v.persistable and v.name not in ("feed", "fetch"))
        paddle.static.io.save_vars(exe, str(work), main, vars=[main.global_block().var(n) for n in persist],
                                   filename="init.pdiparams")
        weights = {n: np.array(scope.find_var(n).get_tensor()) for n in persist}
        out = {"main": work / "main.pdmodel", "startup": work / "startup.pdmodel", "loss": loss.name,
               "weights": weights, "init": work / "init.pdiparams", "paddle": (main, startup)}
        out["main"].write_bytes(main.desc.serialize_to_string())
        out["startup"].write_bytes(startup.desc.serialize_to_string())
        if infer is not None:
            feed = main.global_block().var(model.infer_input)
            paddle.static.save_inference_model(str(work / "infer"), [feed], [infer_out], exe, program=infer)
            out["infer"] = (work / "infer.pdmodel", work / "infer.pdiparams")
    return out


# ---------------------------------------------------------------- training, per system

def fluidc_build(args, exe):
    t0 = time.perf_counter()
    run([FLUIDC, "build", *args, "-o", exe])
    return time.perf_counter() - t0


def trainer_args(exe, prog, data, batch, steps, work):
    args = [exe, "--params", prog["init"], "--batch-size", batch, "--steps", steps, "--no-shuffle"]
    for name, arr in data.items():
        np.save(work / f"{name}.npy", arr)
        args += ["--data", f"{name}={work / (name + '.npy')}"]
    return args


def fluidc_train(exe, prog, data, batch, steps, work, env):
    # Two logging intervals of `steps` steps over the data twice: the second
    # interval's rate is the steady state (the first pays oneDNN's JIT and
    # first-touch page faults, which the peers' warm-up step also excludes).
    out = run(trainer_args(exe, prog, data, batch, 2 * steps, work) + ["--log-every", steps], env)
    rate = float(re.findall(r"([0-9.]+) steps/s", out.split("done:")[0])[-1])
    return 1e3 / rate


def fluidc_first_loss(exe, prog, data, batch, work, env):
    run(trainer_args(exe, prog, data, batch, 1, work) + ["--losses-out", work / "losses.npy"], env)
    return float(np.load(work / "losses.npy")[0])


def paddle_train(prog, data, batch, steps):
    """(ms per step over `steps` timed steps or None for 0, the warm-up step's loss).  The warm-up pays
    program preparation; it starts from the weights fluidc and PyTorch get, so its loss is comparable."""
    import paddle
    main, startup = prog["paddle"]
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)  # creates every persistable (optimizer state too) ...
        for name, arr in prog["weights"].items():  # ... but a second startup run draws other weights
            scope.find_var(name).get_tensor().set(arr, paddle.CPUPlace())
        feeds = [{k: v[i * batch:(i + 1) * batch] for k, v in data.items()} for i in range(max(steps, 1))]
        first = exe.run(main, feed=feeds[0], fetch_list=[prog["loss"]])[0]
        if not steps:
            return None, float(first)
        t0 = time.perf_counter()
        for f in feeds:
            exe.run(main, feed=f, fetch_list=[prog["loss"]])
        return (time.perf_counter() - t0) / steps * 1e3, float(first)


def torch_train(model, prog, data, batch, steps):
    """As paddle_train, for the model's PyTorch module, loss and optimizer."""
    import torch
    m = model.torch_module(prog["weights"])
    opt, loss_fn = model.torch_optimizer(m.parameters()), model.torch_loss()
    batches = [model.torch_batch({k: v[i * batch:(i + 1) * batch] for k, v in data.items()})
               for i in range(max(steps, 1))]

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    first = step(*batches[0])
    if not steps:
        return None, first
    t0 = time.perf_counter()
    for x, y in batches:
        step(x, y)
    return (time.perf_counter() - t0) / steps * 1e3, first


def check_same_model(title, losses):
    """Fails the run unless every system's first step (same weights, same batch) gives fluidc's loss:
    a mismatch means the peers are not running the model fluidc compiled, so no ratio would mean much."""
    ref = losses["fluidc"]
    print(f"check: {title}: first-step loss " + ", ".join(f"{k} {v:.7g}" for k, v in losses.items()),
          file=sys.stderr)
    bad = [k for k, v in losses.items() if not abs(v - ref) <= LOSS_RTOL * max(abs(v), abs(ref))]
    if bad:
        raise SystemExit(f"FAILED: {title}: first-step loss of {', '.join(bad)} differs from fluidc's {ref:.7g} "
                         f"by more than {LOSS_RTOL} relative: {losses}")


# ---------------------------------------------------------------- inference, per system

def fluidc_infer(exe, x, repeat, work, env):
    np.save(work / "x.npy", x)
    out = run([exe, "--feed", f"x={work / 'x.npy'}", "--repeat", repeat], env)
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def paddle_infer(prog, x, repeat):
    import paddle
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feed_names, fetch = paddle.static.load_inference_model(str(prog["infer"][0])[:-len(".pdmodel")], exe)
        exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch)
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)


def torch_infer(model, prog, x, repeat):
    import torch
    m = model.torch_module(prog["weights"]).eval()
    t = torch.from_numpy(x)
    times = []
    with torch.no_grad():
        model.torch_predict(m, t)
        for _ in range(repeat):
            t0 = time.perf_counter()
            model.torch_predict(m, t)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def ort_infer(model, prog, x, repeat, threads, work):
    import onnxruntime as ort
    import torch

    class Predict(torch.nn.Module):  # exports torch_predict whole (e.g. the MLP's softmax too)
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return model.torch_predict(self.m, x)
    path = work / f"{model.name}.onnx"
    if not path.exists():
        torch.onnx.export(Predict(model.torch_module(prog["weights"])).eval(), (torch.from_numpy(x),), str(path),
                          input_names=["x"], output_names=["probs"], dynamic_axes={"x": {0: "n"}}, dynamo=False)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    sess.run(None, {"x": x})
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sess.run(None, {"x": x})
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


# ---------------------------------------------------------------- the run

def measure(model, r, prog, work, args, env, have):
    """Times one row `r` of `model` on every system; returns (times per system, extra)."""
    times = {"fluidc": [], "paddle": [], "torch": [], "onnxruntime": []}
    extra = {}
    exe = work / ("trainer" if r.mode == "train" else "infer")
    for rep in range(args.reps):
        rng = np.random.default_rng(rep)
        if r.mode == "train":
            data = model.data(r.batch * r.steps, rng)
            build_s = fluidc_build([prog["main"], "--startup", prog["startup"]], exe)
            if rep == 0:  # before any timing: is this one model on all systems?
                losses = {"fluidc": fluidc_first_loss(exe, prog, data, r.batch, work, env),
                          "paddle": paddle_train(prog, data, r.batch, 0)[1]}
                if have["torch"]:
                    losses["torch"] = torch_train(model, prog, data, r.batch, 0)[1]
                check_same_model(r.title, losses)
            times["fluidc"].append(fluidc_train(exe, prog, data, r.batch, r.steps, work, env))
            times["paddle"].append(paddle_train(prog, data, r.batch, min(r.steps, 200))[0])
            if have["torch"]:
                times["torch"].append(torch_train(model, prog, data, r.batch, min(r.steps, 500))[0])
        else:
            x = model.data(r.batch, rng)[model.infer_input]
            build_s = fluidc_build([prog["infer"][0], "--params", prog["infer"][1]], exe)
            times["fluidc"].append(fluidc_infer(exe, x, r.steps, work, env))
            times["paddle"].append(paddle_infer(prog, x, min(r.steps, 300)))
            if have["torch"]:
                times["torch"].append(torch_infer(model, prog, x, r.steps))
            if have["torch"] and have["onnxruntime"]:
                times["onnxruntime"].append(ort_infer(model, prog, x, r.steps, args.threads, work))
        extra.setdefault("fluidc_build_s", []).append(build_s)
    extra["binary_bytes"] = exe.stat().st_size
    if r.mode == "infer":
        # Start to first result: a fresh process, params embedded, one run.
        starts = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            run([exe, "--feed", f"x={work / 'x.npy'}"], env)
            starts.append((time.perf_counter() - t0) * 1e3)
        extra["start_to_result_ms"] = median_minmax(starts)
        out = subprocess.run(["/usr/bin/time", "-f", "%M", str(exe), "--feed", f"x={work / 'x.npy'}"],
                             capture_output=True, text=True, env=env)
        extra["peak_rss_kib"] = int(out.stderr.strip().splitlines()[-1]) if out.returncode == 0 else None
    return times, extra


def gemm_bound(model, r, entry, env):
    """GEMM-bound work against the machine's practical peak, measured now: the row's GEMM FLOPs over its
    fluidc time, next to oneDNN sgemm's rate on the model's own GEMM shape."""
    flops, (m, n, k) = model.gemm(r.batch)
    sgemm = ROOT / "build" / "bin" / "sgemm_rate"
    peak = statistics.median(float(run([sgemm, m, n, k, 50], env)) for _ in range(3))
    achieved = flops / (entry["fluidc"]["median"] / 1e3) / 1e9
    return {"workload": r.gemm_bound, "gflops": achieved, f"sgemm_gflops_{m}x{n}x{k}": peak,
            "fraction_of_peak": achieved / peak}


def read_floor(model, r, entry, env):
    """Batch-1 inference is bound by reading the weights: one thread's time to read that many bytes
    (already in cache, as between runs), measured now, next to fluidc's and PyTorch's times."""
    nbytes = model.weight_bytes()
    probe = ROOT / "build" / "bin" / "stream_rate"
    ms, gbps = (statistics.median(v) for v in zip(*(map(float, run([probe, nbytes]).split()) for _ in range(3))))
    out = {"workload": r.title, "bytes": nbytes, "floor_ms": ms, "gbps": gbps, "fluidc_ms": entry["fluidc"]["median"]}
    if "torch" in entry:
        out["torch_ms"] = entry["torch"]["median"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "latest.json"))
    args = ap.parse_args()
    # One thread count for every system: fluidc's binaries read FLUIDC_NUM_THREADS, Paddle's math library
    # and oneDNN (the sgemm peak probe) OMP_NUM_THREADS; PyTorch and ONNX Runtime are set below.
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), FLUIDC_NUM_THREADS=str(args.threads),
               DNNL_MAX_CPU_ISA=os.environ.get("DNNL_MAX_CPU_ISA", "ALL"))
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import paddle
    paddle.set_flags({"FLAGS_use_mkldnn": False})
    have = {m: available(m) for m in ("torch", "onnxruntime")}
    if have["torch"]:
        import torch
        torch.set_num_threads(args.threads)
    results = {"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
               "threads": args.threads, "paddle": paddle.__version__,
               "torch": __import__("torch").__version__ if have["torch"] else None,
               "onnxruntime": __import__("onnxruntime").__version__ if have["onnxruntime"] else None,
               "workloads": {}}
    work_root = Path(tempfile.mkdtemp(prefix="fluidc-bench-"))
    gemm_rows, floor_rows = [], []
    for model in MODELS:
        prog = None  # written once per model, shared by its rows
        for r in model.runs:
            work = work_root / f"{model.name}_{r.mode}_{r.batch}"
            work.mkdir()
            if prog is None:
                (work_root / f"prog_{model.name}").mkdir()
                prog = paddle_programs(model, work_root / f"prog_{model.name}")
            times, extra = measure(model, r, prog, work, args, env, have)
            entry = {k: median_minmax(v) for k, v in times.items() if v}
            entry["extra"] = {k: (median_minmax(v) if isinstance(v, list) else v) for k, v in extra.items()}
            for peer in ("paddle", "torch", "onnxruntime"):
                if peer in entry:
                    entry[peer]["ratio"] = entry[peer]["median"] / entry["fluidc"]["median"]
            results["workloads"][r.title] = entry
            gemm_rows += [(model, r, entry)] if r.gemm_bound else []
            floor_rows += [(model, r, entry)] if r.read_floor else []
            print(f"done: {r.title}", file=sys.stderr)
    if (ROOT / "build" / "bin" / "sgemm_rate").exists():  # the probe runs after the rows, as always
        for model, r, entry in gemm_rows:  # at most one row has gemm_bound: the JSON keeps one
            results["gemm_bound"] = gemm_bound(model, r, entry, env)
    if (ROOT / "build" / "bin" / "stream_rate").exists():
        for model, r, entry in floor_rows:  # one row so far: the JSON keeps one
            results["read_floor"] = read_floor(model, r, entry, env)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(render_table(results))


def render_table(results):
    lines = [f"threads: {results['threads']} (all systems), cpus: {results['cpus']}, Paddle {results['paddle']}, "
             f"PyTorch {results['torch']}, ONNX Runtime {results['onnxruntime']}; times in ms per step / per run, "
             "median [min-max] of the repetitions; ratio = peer / fluidc (higher: fluidc faster)", "",
             "| workload | fluidc | Paddle Executor | ratio | PyTorch eager | ratio | ONNX Runtime | ratio |",
             "|---|---|---|---|---|---|---|---|"]

    def cell(e):
        return f"{e['median']:.4g} [{e['min']:.4g}-{e['max']:.4g}]"
    for title, e in results["workloads"].items():
        row = [title, cell(e["fluidc"])]
        for peer in ("paddle", "torch", "onnxruntime"):
            row += [cell(e[peer]), f"{e[peer]['ratio']:.2f}x"] if peer in e else ["-", "-"]
        lines.append("| " + " | ".join(row) + " |")
    if "gemm_bound" in results:
        g = results["gemm_bound"]
        shape, peak = next((k[len("sgemm_gflops_"):], v) for k, v in g.items() if k.startswith("sgemm_gflops_"))
        # the wording is the MLP row's (Adam): the only row with gemm_bound so far
        lines += ["", f"GEMM-bound: fluidc's {g['workload']} runs at {g['gflops']:.1f} GFLOP/s (whole step, Adam "
                      f"included) = {100 * g['fraction_of_peak']:.0f}% of oneDNN sgemm's "
                      f"{peak:.1f} GFLOP/s ({shape}) measured in the same run"]
    if "read_floor" in results:
        f = results["read_floor"]
        line = (f"Read floor: {f['workload']} reads {f['bytes'] / 1e6:.2f} MB of weights per run; one thread reads "
                f"that many cached bytes in {f['floor_ms']:.4f} ms ({f['gbps']:.1f} GB/s, bench/stream_rate); "
                f"fluidc's run takes {f['fluidc_ms'] / f['floor_ms']:.2f}x that")
        if "torch_ms" in f:
            line += f"; 5x PyTorch eager would be {f['torch_ms'] / 5:.4f} ms"
        lines += ["", line]
    lines.append("")
    lines.append("| workload | fluidc build (s) | binary (bytes) | start to first result (ms) | peak RSS (KiB) |")
    lines.append("|---|---|---|---|---|")
    for title, e in results["workloads"].items():
        x = e["extra"]
        lines.append(f"| {title} | {x['fluidc_build_s']['median']:.2f} | {x['binary_bytes']} | "
                     f"{x['start_to_result_ms']['median']:.2f} | {x.get('peak_rss_kib')} |"
                     if "start_to_result_ms" in x else
                     f"| {title} | {x['fluidc_build_s']['median']:.2f} | {x['binary_bytes']} | - | - |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
