#!/usr/bin/env python3
# bench/bench.py - fluidc side by side with Paddle's Executor, Paddle Inference (inference rows), PyTorch
# eager and ONNX Runtime on the same models, weights and data, in one run: medians of several
# repetitions, min-max, ratios (peer / fluidc).  A row fluidc cannot build yet keeps its peers' numbers.
# The models and their rows are in bench/workloads.py; this file is the model-independent harness.
# Run it through bench/run.sh, which installs the Python peers and builds fluidc first.
import argparse, json, os, platform, re, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

from workloads import MODELS

ROOT = Path(__file__).resolve().parent.parent
FLUIDC = ROOT / "build" / "bin" / "fluidc"
LOSS_RTOL = 1e-4  # first-step losses of the systems must agree this closely: else it is not one model
OUT_TOL = 1e-3    # inference outputs must agree this closely (relative to the output's largest |value|)
PEERS = ("paddle", "paddle_inference", "torch", "onnxruntime")  # the table's column order


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

class BuildFailed(Exception):
    """fluidc could not compile the row's program (e.g. an op it has no kernel for yet)."""


def fluidc_build(args, exe):
    """Seconds `fluidc build` took; raises BuildFailed with fluidc's first error line, so the row keeps
    its peers' numbers and says why fluidc has none."""
    if not FLUIDC.exists():  # a peers-only run before the compiler is built still gives the peers' side
        raise BuildFailed(f"{FLUIDC} does not exist (build it first)")
    t0 = time.perf_counter()
    p = subprocess.run([str(c) for c in [FLUIDC, "build", *args, "-o", exe]], capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildFailed(build_error(p.stderr + p.stdout) or f"fluidc build exited with {p.returncode}")
    return time.perf_counter() - t0


def build_error(text):
    """fluidc's first error line without the temporary program path in front, and, where it goes on with
    an indented list (the unsupported op types), the listed names: "error: 4 unsupported op types (...):
    conv2d, conv2d_grad, pool2d, pool2d_grad"."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    first = lines[0].strip()
    first = first[first.index("error:"):] if "error:" in first else first
    listed = []
    for ln in lines[1:]:
        if not ln.startswith((" ", "\t")):
            break
        listed.append(ln.split()[0])
    return first.rstrip(":") + (": " + ", ".join(listed) if listed else "")


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
    return fluidc_steady_ms(out)


def fluidc_steady_ms(out):
    """ms per step of the last logging interval before "done:" in a trainer's output (fluidc_train's
    second interval: the steady state); also read by bench/memory_rss.py and bench/cuda_bench.py."""
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


def torch_step(model, m):
    """One training step of PyTorch module `m` with the model's loss and optimizer, as a function of a
    batch (module input, loss target) that returns the loss read back (also bench/cuda_bench.py's)."""
    opt, loss_fn = model.torch_optimizer(m.parameters()), model.torch_loss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def torch_train(model, prog, data, batch, steps):
    """As paddle_train, for the model's PyTorch module, loss and optimizer."""
    step = torch_step(model, model.torch_module(prog["weights"]))
    batches = [model.torch_batch({k: v[i * batch:(i + 1) * batch] for k, v in data.items()})
               for i in range(max(steps, 1))]
    first = step(*batches[0])
    if not steps:
        return None, first
    t0 = time.perf_counter()
    for x, y in batches:
        step(x, y)
    return (time.perf_counter() - t0) / steps * 1e3, first


def check_same_model(title, losses):
    """Fails the run unless every system's first step (same weights, same batch) gives fluidc's loss
    (Paddle's where fluidc could not build the row): a mismatch means the peers are not running the
    model fluidc compiled, so no ratio would mean much."""
    ref_name = "fluidc" if "fluidc" in losses else "paddle"
    ref = losses[ref_name]
    print(f"check: {title}: first-step loss " + ", ".join(f"{k} {v:.7g}" for k, v in losses.items()),
          file=sys.stderr)
    bad = [k for k, v in losses.items() if not abs(v - ref) <= LOSS_RTOL * max(abs(v), abs(ref))]
    if bad:
        raise SystemExit(f"FAILED: {title}: first-step loss of {', '.join(bad)} differs from {ref_name}'s {ref:.7g} "
                         f"by more than {LOSS_RTOL} relative: {losses}")


# ---------------------------------------------------------------- inference, per system

def check_same_output(title, outputs):
    """The inference counterpart of check_same_model: every system's output for the same input must be
    the Paddle Executor's (the saved program run as written) within OUT_TOL of its largest |value|."""
    ref = outputs["paddle"]
    # Relative to the output's own scale, however small: MobileNetV2's activations shrink through its
    # blocks on random weights (BatchNorm's statistics are the initial 0 and 1), its logits are ~1e-7.
    scale = float(np.abs(ref).max()) or 1.0
    errs = {k: float(np.abs(np.asarray(v).reshape(ref.shape) - ref).max()) / scale for k, v in outputs.items()}
    print(f"check: {title}: max |output - Paddle Executor's| / {scale:.4g}: "
          + ", ".join(f"{k} {v:.2g}" for k, v in errs.items()), file=sys.stderr)
    bad = [k for k, v in errs.items() if not v <= OUT_TOL]
    if bad:
        raise SystemExit(f"FAILED: {title}: output of {', '.join(bad)} differs from the Paddle Executor's by "
                         f"more than {OUT_TOL} relative: {errs}")


# Each *_infer returns (median ms of `repeat` timed runs, the output of the untimed warm-up run).

def fluidc_infer(exe, x, repeat, work, env):
    np.save(work / "x.npy", x)
    fetch = work / "fetch"
    out = run([exe, "--feed", f"x={work / 'x.npy'}", "--repeat", repeat, "--fetch-dir", fetch], env)
    result = np.load(next(fetch.glob("*.npy")))  # the one inference output, whatever its name
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)), result


def paddle_infer(prog, x, repeat):
    import paddle
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feed_names, fetch = paddle.static.load_inference_model(str(prog["infer"][0])[:-len(".pdmodel")], exe)
        first = exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch)[0]
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch)
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times), first


def paddle_inference_infer(prog, x, repeat, threads):
    """Paddle Inference, what a Paddle user deploys with: the saved inference model, IR passes (fusions)
    and oneDNN on.  The input is copied in once before timing; a timed run is run() plus copying the
    output out, as the other peers' timed calls return their output."""
    from paddle import inference
    config = inference.Config(str(prog["infer"][0]), str(prog["infer"][1]))
    config.disable_gpu()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(threads)
    config.switch_ir_optim(True)
    config.disable_glog_info()  # its pass log would bury the table
    predictor = inference.create_predictor(config)
    inp = predictor.get_input_handle(predictor.get_input_names()[0])
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    inp.reshape(x.shape)
    inp.copy_from_cpu(x)
    predictor.run()  # warm-up: oneDNN builds its primitives on the first run
    first = out.copy_to_cpu()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        predictor.run()
        out.copy_to_cpu()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), first


def torch_infer(model, prog, x, repeat):
    import torch
    m = model.torch_module(prog["weights"]).eval()
    t = torch.from_numpy(x)
    times = []
    with torch.no_grad():
        first = model.torch_predict(m, t).numpy()
        for _ in range(repeat):
            t0 = time.perf_counter()
            model.torch_predict(m, t)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), first


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
    first = sess.run(None, {"x": x})[0]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sess.run(None, {"x": x})
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), first


# ---------------------------------------------------------------- the run

def train_rep(model, r, prog, work, args, env, have, rep, times, exe, built):
    """One repetition of a train row; `built`: fluidc compiled the row's program."""
    data = model.data(r.batch * r.steps, np.random.default_rng(rep))
    if rep == 0:  # before any timing: is this one model on all systems?
        losses = {"fluidc": fluidc_first_loss(exe, prog, data, r.batch, work, env)} if built else {}
        losses["paddle"] = paddle_train(prog, data, r.batch, 0)[1]
        if have["torch"]:
            losses["torch"] = torch_train(model, prog, data, r.batch, 0)[1]
        check_same_model(r.title, losses)
    if built:
        times["fluidc"].append(fluidc_train(exe, prog, data, r.batch, r.steps, work, env))
    times["paddle"].append(paddle_train(prog, data, r.batch, min(r.steps, 200))[0])
    if have["torch"]:
        times["torch"].append(torch_train(model, prog, data, r.batch, min(r.steps, 500))[0])


PEER_SETTLE_S = 1.0  # infer_rep's pause between systems when they use every core


def infer_rep(model, r, prog, work, args, env, have, rep, times, exe, built):
    """One repetition of an inference row; the first also checks that every system computes the same."""
    x = model.data(r.batch, np.random.default_rng(rep))[model.infer_input]
    np.save(work / "x.npy", x)
    runs = {"paddle": lambda: paddle_infer(prog, x, min(r.steps, 300)),
            "paddle_inference": lambda: paddle_inference_infer(prog, x, r.steps, args.threads)}
    if built:
        runs["fluidc"] = lambda: fluidc_infer(exe, x, r.steps, work, env)
    if have["torch"]:
        runs["torch"] = lambda: torch_infer(model, prog, x, r.steps)
    if have["torch"] and have["onnxruntime"]:
        runs["onnxruntime"] = lambda: ort_infer(model, prog, x, r.steps, args.threads, work)
    outputs = {}
    for system, fn in runs.items():
        if args.threads > 1:
            # The peers' OpenMP workers spin on after their run (KMP_BLOCKTIME, GOMP_SPINCOUNT); with
            # every core in use they would take cores from the next system. A pause lets them sleep.
            time.sleep(PEER_SETTLE_S)
        ms, outputs[system] = fn()
        times[system].append(ms)
    if rep == 0:
        check_same_output(r.title, outputs)


def startup_costs(exe, work, args, env):
    """Start to first result (a fresh process, params embedded, one run) and its peak RSS."""
    starts = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        run([exe, "--feed", f"x={work / 'x.npy'}"], env)
        starts.append((time.perf_counter() - t0) * 1e3)
    out = subprocess.run(["/usr/bin/time", "-f", "%M", str(exe), "--feed", f"x={work / 'x.npy'}"],
                         capture_output=True, text=True, env=env)
    return {"start_to_result_ms": median_minmax(starts),
            "peak_rss_kib": int(out.stderr.strip().splitlines()[-1]) if out.returncode == 0 else None}


def measure(model, r, prog, work, args, env, have):
    """Times one row `r` of `model` on every system; returns (times per system, extra, fluidc's build
    error or None).  fluidc is built once per repetition (the build time is reported too); if the first
    build fails, the row is measured on the peers only."""
    times = {"fluidc": [], **{p: [] for p in PEERS}}
    extra = {"fluidc_build_s": []}
    exe = work / ("trainer" if r.mode == "train" else "infer")
    build_args = ([prog["main"], "--startup", prog["startup"]] if r.mode == "train"
                  else [prog["infer"][0], "--params", prog["infer"][1]])
    error = None
    for rep in range(args.reps):
        if error is None:
            try:
                extra["fluidc_build_s"].append(fluidc_build(build_args, exe))
            except BuildFailed as e:
                error = str(e)
                print(f"fluidc: {r.title}: build failed, measuring the peers only: {error}", file=sys.stderr)
        rep_fn = train_rep if r.mode == "train" else infer_rep
        rep_fn(model, r, prog, work, args, env, have, rep, times, exe, error is None)
    if error is None:
        extra["binary_bytes"] = exe.stat().st_size
        if r.mode == "infer":
            extra.update(startup_costs(exe, work, args, env))
    return times, extra, error


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


def row_entry(times, extra, error):
    """A row's JSON: median/min/max per system, each peer's ratio to fluidc (none without a fluidc time:
    no number is made up for a row fluidc cannot build), and the extras."""
    entry = {k: median_minmax(v) for k, v in times.items() if v}
    if error is not None:
        entry["fluidc"] = {"error": error}
    entry["extra"] = {k: (median_minmax(v) if isinstance(v, list) else v) for k, v in extra.items() if v != []}
    for peer in PEERS:
        if peer in entry and "median" in entry["fluidc"]:
            entry[peer]["ratio"] = entry[peer]["median"] / entry["fluidc"]["median"]
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "latest.json"))
    ap.add_argument("--only", default="", metavar="SUBSTRING",
                    help="run only the rows whose title contains SUBSTRING (e.g. ResNet)")
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
        for r in (r for r in model.runs if args.only in r.title):
            work = work_root / f"{model.name}_{r.mode}_{r.batch}"
            work.mkdir()
            if prog is None:
                (work_root / f"prog_{model.name}").mkdir()
                prog = paddle_programs(model, work_root / f"prog_{model.name}")
            times, extra, error = measure(model, r, prog, work, args, env, have)
            entry = row_entry(times, extra, error)
            results["workloads"][r.title] = entry
            if error is None:  # both compare fluidc's own time with a bound
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
             "| workload | fluidc | Paddle Executor | ratio | Paddle Inference | ratio | PyTorch eager | ratio "
             "| ONNX Runtime | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def cell(e):  # "-" where there is no time (fluidc could not build the row; a peer that was not run)
        return f"{e['median']:.4g} [{e['min']:.4g}-{e['max']:.4g}]" if e and "median" in e else "-"
    for title, e in results["workloads"].items():
        row = [title, cell(e.get("fluidc"))]
        for peer in PEERS:
            row += [cell(e.get(peer)), f"{e[peer]['ratio']:.2f}x" if "ratio" in e.get(peer, {}) else "-"]
        lines.append("| " + " | ".join(row) + " |")
    errors = [(t, e["fluidc"]["error"]) for t, e in results["workloads"].items() if "error" in e.get("fluidc", {})]
    if errors:
        lines += [""] + [f"fluidc could not build {t}: {err}" for t, err in errors]
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
        if "fluidc_build_s" not in x:  # fluidc could not build it: nothing of its own to report
            lines.append(f"| {title} | - | - | - | - |")
            continue
        lines.append(f"| {title} | {x['fluidc_build_s']['median']:.2f} | {x['binary_bytes']} | "
                     f"{x['start_to_result_ms']['median']:.2f} | {x.get('peak_rss_kib')} |"
                     if "start_to_result_ms" in x else
                     f"| {title} | {x['fluidc_build_s']['median']:.2f} | {x['binary_bytes']} | - | - |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
