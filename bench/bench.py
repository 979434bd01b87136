#!/usr/bin/env python3
# bench/bench.py - fluidc side by side with Paddle's Executor, PyTorch eager and ONNX Runtime on the same
# models, weights and data, in one run: medians of several repetitions, min-max, ratios (peer / fluidc).
# Run it through bench/run.sh, which installs the Python peers and builds fluidc first.
import argparse, json, os, platform, re, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FLUIDC = ROOT / "build" / "bin" / "fluidc"


def median_minmax(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": len(xs)}


# ---------------------------------------------------------------- models (written by Paddle)

def paddle_programs(kind, batch, work):
    """Writes main/startup (training) or an inference model for `kind`; returns paths and metadata."""
    import paddle
    import paddle.nn.functional as F
    paddle.enable_static()
    paddle.seed(7)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        if kind == "fit_a_line":
            x = paddle.static.data("x", [-1, 13], "float32")
            y = paddle.static.data("y", [-1, 1], "float32")
            pred = paddle.static.nn.fc(x, 1)
            loss = paddle.mean(F.square_error_cost(pred, y))
            paddle.optimizer.SGD(learning_rate=0.001).minimize(loss)
            feeds = {"x": ("float32", 13), "y": ("float32", 1)}
        else:
            x = paddle.static.data("x", [-1, 784], "float32")
            label = paddle.static.data("label", [-1, 1], "int64")
            h = F.relu(paddle.nn.Linear(784, 512)(x))
            h = F.relu(paddle.nn.Linear(512, 256)(h))
            logits = paddle.nn.Linear(256, 10)(h)
            probs = F.softmax(logits)
            loss = paddle.mean(F.cross_entropy(logits, label))
            infer = main.clone(for_test=True)
            paddle.optimizer.Adam(learning_rate=0.001).minimize(loss)
            feeds = {"x": ("float32", 784), "label": ("int64", 1)}
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        persist = sorted(v.name for v in main.list_vars() if v.persistable and v.name not in ("feed", "fetch"))
        paddle.static.io.save_vars(exe, str(work), main, vars=[main.global_block().var(n) for n in persist],
                                   filename="init.pdiparams")
        weights = {n: np.array(scope.find_var(n).get_tensor()) for n in persist}
        out = {"main": work / "main.pdmodel", "startup": work / "startup.pdmodel", "loss": loss.name,
               "feeds": feeds, "weights": weights, "init": work / "init.pdiparams", "paddle": (main, startup)}
        out["main"].write_bytes(main.desc.serialize_to_string())
        out["startup"].write_bytes(startup.desc.serialize_to_string())
        if kind == "mlp":
            prefix = str(work / "infer")
            paddle.static.save_inference_model(prefix, [x], [probs], exe, program=infer)
            out["infer"] = (work / "infer.pdmodel", work / "infer.pdiparams")
    return out


def make_data(feeds, rows, seed=0):
    rng = np.random.default_rng(seed)
    data = {}
    for name, (dtype, width) in feeds.items():
        data[name] = (rng.integers(0, 10, (rows, 1)).astype(np.int64) if dtype == "int64"
                      else rng.standard_normal((rows, width)).astype(np.float32))
    return data


# ---------------------------------------------------------------- systems

def run(cmd, env=None):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, env=env).stdout


def fluidc_train(prog, data, batch, steps, work, env):
    exe = work / "trainer"
    t0 = time.perf_counter()
    run([FLUIDC, "build", prog["main"], "--startup", prog["startup"], "-o", exe])
    build_s = time.perf_counter() - t0
    # Two logging intervals of `steps` steps over the data twice: the second
    # interval's rate is the steady state (the first pays oneDNN's JIT and
    # first-touch page faults, which the peers' warm-up step also excludes).
    args = [exe, "--params", prog["init"], "--batch-size", batch, "--steps", 2 * steps, "--no-shuffle",
            "--log-every", steps]
    for name, arr in data.items():
        np.save(work / f"{name}.npy", arr)
        args += ["--data", f"{name}={work / (name + '.npy')}"]
    out = run(args, env)
    rate = float(re.findall(r"([0-9.]+) steps/s", out.split("done:")[0])[-1])
    return 1e3 / rate, build_s, exe


def paddle_train(prog, data, batch, steps, threads):
    import paddle
    main, startup = prog["paddle"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        feeds = [{k: v[i * batch:(i + 1) * batch] for k, v in data.items()} for i in range(steps)]
        exe.run(main, feed=feeds[0], fetch_list=[prog["loss"]])  # warm-up: program preparation
        t0 = time.perf_counter()
        for f in feeds:
            exe.run(main, feed=f, fetch_list=[prog["loss"]])
        return (time.perf_counter() - t0) / steps * 1e3


def torch_model(kind, weights):
    import torch
    if kind == "fit_a_line":
        m = torch.nn.Linear(13, 1)
        pairs = [(m, "fc_0")]
    else:
        m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
        # Paddle numbers layers with gaps (linear_0, linear_2, ...): take its weights in order.
        names = sorted({k.split(".")[0] for k in weights if k.startswith("linear_") and k.endswith(".w_0")},
                       key=lambda n: int(n.split("_")[1]))
        pairs = list(zip([m[0], m[2], m[4]], names))
    with torch.no_grad():
        for layer, p in pairs:  # Paddle stores [in, out]; torch [out, in]
            layer.weight.copy_(torch.from_numpy(weights[p + ".w_0"].T.copy()))
            layer.bias.copy_(torch.from_numpy(weights[p + ".b_0"]))
    return m


def torch_train(kind, prog, data, batch, steps):
    import torch
    m = torch_model(kind, prog["weights"])
    if kind == "fit_a_line":
        opt, loss_fn = torch.optim.SGD(m.parameters(), lr=0.001), torch.nn.MSELoss()
        ys = [torch.from_numpy(data["y"][i * batch:(i + 1) * batch]) for i in range(steps)]
    else:
        opt, loss_fn = torch.optim.Adam(m.parameters(), lr=0.001), torch.nn.CrossEntropyLoss()
        ys = [torch.from_numpy(data["label"][i * batch:(i + 1) * batch, 0]) for i in range(steps)]
    xs = [torch.from_numpy(data["x"][i * batch:(i + 1) * batch]) for i in range(steps)]

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    step(xs[0], ys[0])
    t0 = time.perf_counter()
    for x, y in zip(xs, ys):
        step(x, y)
    return (time.perf_counter() - t0) / steps * 1e3


def fluidc_infer(prog, x, repeat, work, env):
    exe = work / "infer"
    t0 = time.perf_counter()
    run([FLUIDC, "build", prog["infer"][0], "--params", prog["infer"][1], "-o", exe])
    build_s = time.perf_counter() - t0
    np.save(work / "x.npy", x)
    out = run([exe, "--feed", f"x={work / 'x.npy'}", "--repeat", repeat], env)
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)), build_s, exe


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


def torch_infer(prog, x, repeat):
    import torch
    m = torch_model("mlp", prog["weights"]).eval()
    t = torch.from_numpy(x)
    times = []
    with torch.no_grad():
        torch.softmax(m(t), -1)
        for _ in range(repeat):
            t0 = time.perf_counter()
            torch.softmax(m(t), -1)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def ort_infer(prog, x, repeat, threads, work):
    import onnxruntime as ort
    import torch

    class WithSoftmax(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return torch.softmax(self.m(x), -1)
    path = work / "mlp.onnx"
    if not path.exists():
        torch.onnx.export(WithSoftmax(torch_model("mlp", prog["weights"])).eval(), (torch.from_numpy(x),), str(path),
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


def available(module):
    try:
        __import__(module)
        return True
    except Exception:
        return False


# ---------------------------------------------------------------- the run

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "latest.json"))
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), DNNL_MAX_CPU_ISA=os.environ.get("DNNL_MAX_CPU_ISA", "ALL"))
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import paddle
    paddle.set_flags({"FLAGS_use_mkldnn": False})
    have_torch, have_ort = available("torch"), available("onnxruntime")
    if have_torch:
        import torch
        torch.set_num_threads(args.threads)
    rows, results = [], {"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                         "threads": args.threads, "paddle": paddle.__version__,
                         "torch": __import__("torch").__version__ if have_torch else None,
                         "onnxruntime": __import__("onnxruntime").__version__ if have_ort else None,
                         "workloads": {}}
    work_root = Path(tempfile.mkdtemp(prefix="fluidc-bench-"))
    workloads = [("fit_a_line train step, batch 20", "fit_a_line", "train", 20, 2000),
                 ("MLP 784-512-256-10 train step, batch 64", "mlp", "train", 64, 100),
                 ("MLP 784-512-256-10 train step, batch 512", "mlp", "train", 512, 20),
                 ("MLP inference, batch 1", "mlp", "infer", 1, 2000),
                 ("MLP inference, batch 256", "mlp", "infer", 256, 100)]
    progs = {}
    for title, kind, mode, batch, steps in workloads:
        work = work_root / f"{kind}_{mode}_{batch}"
        work.mkdir()
        if kind not in progs:
            pw = work_root / f"prog_{kind}"
            pw.mkdir()
            progs[kind] = paddle_programs(kind, batch, pw)
        prog = progs[kind]
        times = {"fluidc": [], "paddle": [], "torch": [], "onnxruntime": []}
        extra = {}
        for rep in range(args.reps):
            if mode == "train":
                data = make_data(prog["feeds"], batch * steps, seed=rep)
                ms, build_s, exe = fluidc_train(prog, data, batch, steps, work, env)
                times["fluidc"].append(ms)
                times["paddle"].append(paddle_train(prog, data, batch, min(steps, 200), args.threads))
                if have_torch:
                    times["torch"].append(torch_train(kind, prog, data, batch, min(steps, 500)))
            else:
                x = make_data({"x": ("float32", 784)}, batch, seed=rep)["x"]
                ms, build_s, exe = fluidc_infer(prog, x, steps, work, env)
                times["fluidc"].append(ms)
                times["paddle"].append(paddle_infer(prog, x, min(steps, 300)))
                if have_torch:
                    times["torch"].append(torch_infer(prog, x, steps))
                if have_ort and have_torch:
                    times["onnxruntime"].append(ort_infer(prog, x, steps, args.threads, work))
            extra.setdefault("fluidc_build_s", []).append(build_s)
        extra["binary_bytes"] = exe.stat().st_size
        if mode == "infer":
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
        entry = {k: median_minmax(v) for k, v in times.items() if v}
        entry["extra"] = {k: (median_minmax(v) if isinstance(v, list) else v) for k, v in extra.items()}
        base = entry["fluidc"]["median"]
        for peer in ("paddle", "torch", "onnxruntime"):
            if peer in entry:
                entry[peer]["ratio"] = entry[peer]["median"] / base
        results["workloads"][title] = entry
        rows.append((title, entry))
        print(f"done: {title}", file=sys.stderr)
    # GEMM-bound work against the machine's practical peak, measured now: the
    # batch-512 MLP step's GEMM FLOPs (forward, weight gradients, and input
    # gradients of layers 2-3; the fed input needs none) over its time.
    b512 = results["workloads"].get("MLP 784-512-256-10 train step, batch 512")
    sgemm = ROOT / "build" / "bin" / "sgemm_rate"
    if b512 and sgemm.exists():
        peak = statistics.median(float(run([sgemm, 512, 512, 784, 50], env)) for _ in range(3))
        layers = [(784, 512), (512, 256), (256, 10)]
        flops = 2 * 512 * (2 * sum(i * o for i, o in layers) + sum(i * o for i, o in layers[1:]))
        achieved = flops / (b512["fluidc"]["median"] / 1e3) / 1e9
        results["gemm_bound"] = {"workload": "MLP train step, batch 512", "gflops": achieved,
                                 "sgemm_gflops_512x512x784": peak, "fraction_of_peak": achieved / peak}
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
        lines += ["", f"GEMM-bound: fluidc's {g['workload']} runs at {g['gflops']:.1f} GFLOP/s (whole step, Adam "
                      f"included) = {100 * g['fraction_of_peak']:.0f}% of oneDNN sgemm's "
                      f"{g['sgemm_gflops_512x512x784']:.1f} GFLOP/s (512x512x784) measured in the same run"]
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
