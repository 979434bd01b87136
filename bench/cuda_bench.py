#!/usr/bin/env python3
# bench/cuda_bench.py - the CUDA target against PyTorch eager CUDA on the same models, weights and data
# (issue 13's rows): training steps of fit_a_line (batch 20), the MLP 784-512-256-10 (batch 64, 4096) and
# the BERT-tiny-shaped encoder (batch 8), LeNet-5 (batch 64) and ResNet-18 (batch 32, 224x224).
# `prepare` (no GPU; needs Paddle) writes the programs, initial weights and the `--target cuda` trainers;
# `run` (on the GPU; needs numpy and PyTorch, not Paddle or fluidc) times them: medians of --reps runs,
# each a steady-state interval after a warm-up interval. tools/gpu_suite.sh carries `prepare`'s output
# to a GPU machine and calls `run` there.
import argparse, json, os, statistics, struct, subprocess, sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import fluidc_steady_ms, torch_step  # noqa: E402  (bench.py imports no Paddle at the top)
from workloads import BertTiny, FitALine, LeNet, Mlp, ResNet18  # noqa: E402

# (model, batch, timed steps): the CPU table's models; batch 4096 is the cuBLAS-bound row; BERT-tiny's,
# LeNet-5's and ResNet-18's steps run wholly on the device (cuBLAS, cuDNN and fluidc's kernels).
ROWS = [(FitALine(), 20, 2000), (Mlp(), 64, 500), (Mlp(), 4096, 100), (BertTiny(), 8, 200), (LeNet(), 64, 200),
        (ResNet18(), 32, 20)]
DATA_BATCHES = 8   # distinct batches of data; the trainer cycles through them (several epochs)
SYNTH_ABOVE = 8 << 20  # weights over this many bytes are synthesized on the GPU machine (the file would not travel)
PB_DTYPES = {"float32": 5, "int64": 3, "int32": 2}  # Paddle's VarType codes in TensorDesc
LOSS_RTOL = 1e-4   # fluidc's and PyTorch's first-step losses must agree: else it is not one model


def prepare(out, fluidc):
    import bench  # Paddle's side lives in bench.py (paddle_programs)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for model in {m.name: m for m, _, _ in ROWS}.values():
        work = out / model.name
        work.mkdir(exist_ok=True)
        prog = bench.paddle_programs(model, work)
        weights = prog["weights"]
        if sum(a.nbytes for a in weights.values()) > SYNTH_ABOVE:
            # Each persistable's shape and the statistics of Paddle's initial values: run() draws weights
            # like them (the same for fluidc and PyTorch) instead of carrying tens of MB of random floats.
            # The program's declared shape (a scalar learning rate is [] there, [1] in the scope's tensor).
            block = prog["paddle"][0].global_block()
            def declared(k, a):
                d = list(block.var(k).shape)
                return d if all(x >= 0 for x in d) and int(np.prod(d)) == a.size else list(a.shape)
            spec = {k: {"shape": declared(k, a), "dtype": str(a.dtype), "mean": float(a.mean()) if a.size else 0.0,
                        "std": float(a.std()) if a.size else 0.0} for k, a in weights.items()}
            (work / "weights_spec.json").write_text(json.dumps(spec))
            (work / "init.pdiparams").unlink()
        else:
            np.savez(work / "weights.npz", **weights)
        if hasattr(model, "layer"):  # torch_module maps weights through the Paddle layer's structured names
            (work / "layer_vars.json").write_text(json.dumps({k: v.name for k, v in model.layer.state_dict().items()}))
        subprocess.run([str(fluidc), "build", str(prog["main"]), "--startup", str(prog["startup"]),
                        "--target", "cuda", "-o", str(work / "trainer")], check=True)
        # Only what `run` needs travels: the binary, the initial weights in both formats.
        for f in work.iterdir():
            if f.name not in ("trainer", "init.pdiparams", "weights.npz", "layer_vars.json", "weights_spec.json"):
                f.unlink()
        manifest[model.name] = {"trainer": "trainer", "init": "init.pdiparams", "weights": "weights.npz"}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def save_data(data, work):
    """The trainer's --data arguments, the arrays written once."""
    args = []
    for name, arr in data.items():
        np.save(work / f"{name}.npy", arr)
        args += ["--data", f"{name}={work / (name + '.npy')}"]
    return args


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def write_combined(path, weights):
    """Paddle's combined parameter file, variables sorted by name: per variable a LoDTensor record (uint32
    version 0, uint64 LoD levels 0, uint32 version 0, int32 TensorDesc size, the TensorDesc proto: field 1
    data_type, field 2 each dim, then the raw data)."""
    with open(path, "wb") as f:
        for name in sorted(weights):
            a = np.asarray(weights[name])  # not ascontiguousarray: it makes a 0-D array 1-D; tobytes() is C order
            desc = b"\x08" + varint(PB_DTYPES[str(a.dtype)]) + b"".join(b"\x10" + varint(d) for d in a.shape)
            f.write(struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + a.tobytes())


def synthesize(spec_path, init_path):
    """Weights drawn with each persistable's saved statistics (constants stay constant), written where the
    trainer reads them; returns them for PyTorch."""
    rng = np.random.default_rng(1)
    weights = {}
    for name, v in json.loads(spec_path.read_text()).items():
        shape, dtype = tuple(v["shape"]), np.dtype(v["dtype"])
        if v["std"] == 0.0:
            weights[name] = np.full(shape, v["mean"], dtype=dtype)
        else:
            weights[name] = rng.normal(v["mean"], v["std"], shape).astype(dtype)
    write_combined(init_path, weights)
    return weights


class SavedLayer:
    """What copy_structured reads of a Paddle layer (state_dict()'s names and their variables), as prepare()
    saved it: the GPU machine has no Paddle."""

    def __init__(self, path):
        self.vars = json.loads(path.read_text())

    def state_dict(self):
        return {k: SimpleNamespace(name=v) for k, v in self.vars.items()}


def to_device(x, dev):
    """A batch's tensors (nested in tuples, as torch_batch returns them) on `dev`."""
    return tuple(to_device(t, dev) for t in x) if isinstance(x, tuple) else x.to(dev)


def fluidc_run(exe, init, data_args, batch, steps, extra=()):
    args = [exe, "--params", init, "--batch-size", batch, "--steps", steps, "--no-shuffle", *data_args, *extra]
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAILED: {' '.join(map(str, args))}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout, p.stderr


def torch_cuda(model, weights, data, batch, steps):
    """(ms per step over `steps` steps, first-step loss). Batches are placed on the device before timing
    (PyTorch's most favourable setup; fluidc's trainer copies each batch from host memory), and each
    step reads its loss back (.item()), as fluidc's trainer does."""
    import torch
    dev = torch.device("cuda")
    step = torch_step(model, model.torch_module(weights).to(dev))
    batches = [to_device(model.torch_batch({k: v[i * batch:(i + 1) * batch] for k, v in data.items()}), dev)
               for i in range(DATA_BATCHES)]
    first = step(*batches[0])
    for i in range(steps):  # warm-up interval, as fluidc's first logging interval
        step(*batches[i % DATA_BATCHES])
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(steps):
        step(*batches[i % DATA_BATCHES])
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / steps, first


def run(pack, reps, json_out):
    import torch
    # Float32 on both sides: fluidc's GEMMs and convolutions do not use TF32 (cuDNN in FMA math).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    manifest = json.loads((pack / "manifest.json").read_text())
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "tf32": {"matmul": torch.backends.cuda.matmul.allow_tf32, "cudnn": torch.backends.cudnn.allow_tf32},
               "reps": reps, "rows": {}}
    print(f"device: {results['device']}, torch {torch.__version__}, reps {reps}", file=sys.stderr)
    for model, batch, steps in ROWS:
        files = manifest[model.name]
        work = pack / model.name
        exe, init = work / files["trainer"], work / files["init"]
        if (work / "weights_spec.json").exists():
            weights = synthesize(work / "weights_spec.json", init)
        else:
            weights = dict(np.load(work / files["weights"]))
        if (work / "layer_vars.json").exists():
            model.layer = SavedLayer(work / "layer_vars.json")
        data = model.data(batch * DATA_BATCHES, np.random.default_rng(0))
        data_args = save_data(data, work)
        title = f"{model.name} train step, batch {batch}"
        # Same model: first-step losses from the same weights and batch.
        fluidc_run(exe, init, data_args, batch, 1, ["--losses-out", work / "losses.npy"])
        f_first = float(np.load(work / "losses.npy")[0])
        t_first = torch_cuda(model, weights, data, batch, 1)[1]
        if not abs(f_first - t_first) <= LOSS_RTOL * max(abs(f_first), abs(t_first)):
            raise SystemExit(f"FAILED: {title}: first-step loss fluidc {f_first} vs PyTorch {t_first}")
        # fluidc as it runs by default (the data set on the device, each batch gathered there), and with
        # --feeds-from-host (each batch gathered on the host and copied up, as before the data moved).
        f_ms, h_ms, t_ms, stats = [], [], [], ""
        for _ in range(reps):
            out, err = fluidc_run(exe, init, data_args, batch, 2 * steps, ["--log-every", steps, "--cuda-stats"])
            f_ms.append(fluidc_steady_ms(out))
            stats = " ".join(ln.strip() for ln in err.splitlines() if "graph" in ln or "cudaMalloc" in ln)
            out, _ = fluidc_run(exe, init, data_args, batch, 2 * steps, ["--log-every", steps, "--feeds-from-host"])
            h_ms.append(fluidc_steady_ms(out))
            t_ms.append(torch_cuda(model, weights, data, batch, steps)[0])
        row = {"fluidc_ms": statistics.median(f_ms), "fluidc_min_max": [min(f_ms), max(f_ms)],
               "fluidc_feeds_from_host_ms": statistics.median(h_ms), "fluidc_feeds_from_host_min_max": [min(h_ms), max(h_ms)],
               "torch_ms": statistics.median(t_ms), "torch_min_max": [min(t_ms), max(t_ms)],
               "first_loss": {"fluidc": f_first, "torch": t_first}, "fluidc_cuda_stats": stats}
        row["fluidc_over_torch"] = row["fluidc_ms"] / row["torch_ms"]
        results["rows"][title] = row
        print(f"{title}: fluidc {row['fluidc_ms']:.4f} ms, PyTorch eager CUDA {row['torch_ms']:.4f} ms, "
              f"fluidc/PyTorch {row['fluidc_over_torch']:.3f}; {stats}", file=sys.stderr)
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=1) + "\n")
    print(f"\n| row ({results['device']}) | fluidc ms | fluidc --feeds-from-host ms | PyTorch eager CUDA ms "
          "| fluidc / PyTorch |")
    print("|---|---|---|---|---|")
    for title, row in results["rows"].items():
        print(f"| {title} | {row['fluidc_ms']:.4f} | {row['fluidc_feeds_from_host_ms']:.4f} | {row['torch_ms']:.4f} "
              f"| {row['fluidc_over_torch']:.3f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("prepare", "run"))
    ap.add_argument("dir", type=Path)
    ap.add_argument("--fluidc", default=str(Path(__file__).resolve().parent.parent / "build" / "bin" / "fluidc"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    if args.mode == "prepare":
        prepare(args.dir, args.fluidc)
    else:
        run(args.dir, args.reps, args.json)


if __name__ == "__main__":
    os.environ.setdefault("CUDA_MODULE_LOADING", "LAZY")
    main()
