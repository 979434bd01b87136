#!/usr/bin/env python3
"""bench/collective/step_time.py - step time of fluidc's collective trainer at 2 ranks (mpirun, all-reduce over OpenMPI) against PyTorch DDP (gloo) on the same MLP.

How to run (Paddle 2.6.2 + torch + numpy in the venv; the build with MPI):
    /tmp/pd/bin/python bench/collective/step_time.py --fluidc build/bin/fluidc [--runs 5] [--steps 300]
Both sides: 2 processes on this machine, 1 compute thread each, the same layer sizes, MSE loss, plain
SGD, batch B per rank, loopback TCP between the ranks (MPI's tcp BTL on lo; gloo on 127.0.0.1).
fluidc's time is its trainer's own "done: N steps in X s" (the step loop, startup excluded); DDP's is
the same loop timed after 10 warm-up steps (DDP's first steps build its buckets). Each side's figure
for one run is the slower rank's; the table gives the median over --runs runs, and every run.
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# (name, input features, hidden layers, batch per rank)
MODELS = {
    "mlp_small": (200, [100], 8),          # fc_sgd's shape: 20,201 parameters
    "mlp_2m": (1024, [1024, 1024], 32),    # 2,100,225 parameters: 8.4 MB of gradients a step
}


def paddle_programs(features, hidden, out_dir):
    sys.path.insert(0, str(ROOT / "tools"))
    import fixturelib as fl
    import paddle
    with fl.new_programs() as (main, startup):
        x = paddle.static.data("x", [-1, features], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        h = x
        for n in hidden:
            h = paddle.static.nn.fc(h, n, activation="relu")
        loss = paddle.mean(paddle.nn.functional.square_error_cost(paddle.static.nn.fc(h, 1), y))
        paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    (out_dir / "main.pdmodel").write_bytes(fl.serialize(main))
    (out_dir / "startup.pdmodel").write_bytes(fl.serialize(startup))


def write_data(out_dir, features, rows):
    import numpy as np
    rng = np.random.default_rng(0)
    np.save(out_dir / "x.npy", rng.standard_normal((rows, features), dtype=np.float32))
    np.save(out_dir / "y.npy", rng.standard_normal((rows, 1), dtype=np.float32))


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if r.returncode != 0:
        sys.exit("%s exited %d:\n%s%s" % (cmd[0], r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    return r.stdout + r.stderr


def fluidc_run(a, d, batch, steps):
    cmd = [a.mpirun, "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,tcp", "--mca",
           "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if a.yield_when_idle:  # MPI waits call sched_yield instead of spinning hard (helps on loaded cores)
        cmd += ["--mca", "mpi_yield_when_idle", "1"]
    cmd += ["-np", "2", str(d / "coll"), "--data", "x=%s" % (d / "x.npy"), "--data", "y=%s" % (d / "y.npy"),
            "--batch-size", str(batch), "--steps", str(steps), "--threads", "1", "--no-shuffle", "--log-every",
            str(steps)]
    out = sh(cmd)
    secs = [float(s) for s in re.findall(r"done: \d+ steps in ([0-9.]+) s", out)]
    if len(secs) != 2:
        sys.exit("fluidc: want 2 ranks' 'done:' lines, got:\n" + out)
    return max(secs) / steps * 1e3


def ddp_worker(rank, port, features, hidden, batch, steps):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=2)
    torch.manual_seed(0)
    layers, n = [], features
    for h in hidden:
        layers += [torch.nn.Linear(n, h), torch.nn.ReLU()]
        n = h
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*layers, torch.nn.Linear(n, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    batches = [(torch.randn(batch, features, generator=g), torch.randn(batch, 1, generator=g)) for _ in range(8)]
    def step(i):
        x, y = batches[i % len(batches)]
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    for i in range(10):
        step(i)
    dist.barrier()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    t = time.perf_counter() - t0
    print("DDP rank %d: %d steps in %.6f s" % (rank, steps, t), flush=True)
    dist.barrier()
    # Not destroy_process_group(): with this torch, gloo's teardown sometimes aborts ("terminate called
    # without an active exception") after the work is done; the timing is printed already.
    os._exit(0)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def ddp_run(features, hidden, batch, steps):
    port = free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    ps = [subprocess.Popen([sys.executable, __file__, "--ddp-worker", str(r), str(port), str(features),
                            ",".join(map(str, hidden)), str(batch), str(steps)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env) for r in range(2)]
    outs = []
    for p in ps:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            sys.exit("DDP worker exited %d:\n%s" % (p.returncode, out[-3000:]))
        outs.append(out)
    secs = [float(s) for s in re.findall(r"steps in ([0-9.]+) s", "".join(outs))]
    return max(secs) / steps * 1e3


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ddp-worker":
        r, port, f, hid, b, s = sys.argv[2:8]
        return ddp_worker(int(r), int(port), int(f), [int(h) for h in hid.split(",")], int(b), int(s))
    ap = argparse.ArgumentParser()
    ap.add_argument("--fluidc", required=True)
    ap.add_argument("--mpirun", default=shutil.which("mpirun"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--yield-when-idle", action="store_true", help="run fluidc's ranks with --mca mpi_yield_when_idle 1")
    a = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.models.split(","):
            features, hidden, batch = MODELS[name]
            d = Path(tmp) / name
            d.mkdir()
            paddle_programs(features, hidden, d)
            write_data(d, features, batch * 2 * 8)
            sh([a.fluidc, "opt", str(d / "main.pdmodel"), "--startup", str(d / "startup.pdmodel"), "--passes=distribute",
                "--collective", "--nranks", "2", "--startup-out", str(d / "c.startup.pdmodel"), "-o", str(d / "c.pdmodel")])
            sh([a.fluidc, "build", str(d / "c.pdmodel"), "--startup", str(d / "c.startup.pdmodel"), "-o", str(d / "coll")])
            fl, dp = [], []
            for i in range(a.runs):  # interleaved, so both sides see the same machine load
                fl.append(fluidc_run(a, d, batch, a.steps))
                dp.append(ddp_run(features, hidden, batch, a.steps))
                print("%s run %d: fluidc %.3f ms/step, DDP %.3f ms/step" % (name, i + 1, fl[-1], dp[-1]), flush=True)
            results[name] = {"batch_per_rank": batch, "steps": a.steps, "fluidc_ms": fl, "ddp_ms": dp,
                             "fluidc_median_ms": statistics.median(fl), "ddp_median_ms": statistics.median(dp)}
    print("\n| model | batch/rank | fluidc collective (ms/step) | PyTorch DDP gloo (ms/step) | fluidc / DDP |")
    print("|---|---|---|---|---|")
    for name, r in results.items():
        print("| %s | %d | %.3f | %.3f | %.2f |" % (name, r["batch_per_rank"], r["fluidc_median_ms"],
                                                  r["ddp_median_ms"], r["fluidc_median_ms"] / r["ddp_median_ms"]))
    print("(medians of %d interleaved runs of %d steps each; 2 ranks, 1 thread each, loopback TCP%s)"
          % (a.runs, a.steps, "; MPI with mpi_yield_when_idle 1" if a.yield_when_idle else ""))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
