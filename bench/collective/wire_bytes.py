#!/usr/bin/env python3
"""bench/collective/wire_bytes.py - bytes on the wire per step of a parameter-server job (2 servers + 2 trainers of fc_sgd) and of a 2-rank collective job, counted on a private loopback.

How to run (root: it makes its own network namespace, so no other traffic is counted; standard library only):
    python3 bench/collective/wire_bytes.py --fluidc build/bin/fluidc [--steps 200]
The job runs in a fresh network namespace (`unshare -n`) whose only interface is its own lo; the lo
device's transmitted-bytes counter (/proc/net/dev: every byte of every packet, TCP/IP headers, gRPC
and HTTP/2 framing included) is read around a job of 0 steps and one of --steps steps; the
difference over the steps is the bytes per step. The floor it is compared with is the payload the
protocol must carry: each trainer sends each gradient once and receives each parameter once.
With --collective, the same for fc_sgd's collective trainer at 2 ranks under mpirun (MPI's TCP
transport on lo): the floor there is each rank sending its whole gradient once (2-rank all-reduce).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "dist"))
import run_job  # noqa: E402


def lo_tx_bytes():
    for line in open("/proc/net/dev"):
        name, _, rest = line.partition(":")
        if name.strip() == "lo":
            f = rest.split()
            return int(f[8]), int(f[9])  # transmitted bytes, packets
    raise SystemExit("no lo device")


def job_bytes(work, steps):
    before = lo_tx_bytes()
    job, _ = run_job.launch(work, "bytes%d" % steps, ["--steps", str(steps), "--log-every", str(max(steps, 1))])
    run_job.job_ok(job)
    after = lo_tx_bytes()
    return after[0] - before[0], after[1] - before[1]


def collective_bytes(a, work, steps):
    import run_collective
    args = argparse.Namespace(fluidc=a.fluidc, fixture=a.fixture, ranks=2, mpirun="mpirun")
    before = lo_tx_bytes()
    rc, out = run_collective.job(args, work, lambda r: ["--steps", str(steps), "--log-every", str(max(steps, 1))])
    if rc != 0:
        raise SystemExit(out)
    after = lo_tx_bytes()
    return after[0] - before[0], after[1] - before[1]


def inside_collective(a):
    import run_collective
    args = argparse.Namespace(fluidc=a.fluidc, fixture=a.fixture, ranks=2)
    with tempfile.TemporaryDirectory() as work:
        run_job.make_data(work)
        run_collective.build(args, work)
        base, base_pk = collective_bytes(a, work, 0)
        total, total_pk = collective_bytes(a, work, a.steps)
    per, per_pk = (total - base) / a.steps, (total_pk - base_pk) / a.steps
    params = 200 * 100 + 100 + 100 * 1 + 1
    floor = 2 * params * 4
    print("collective job of 0 steps (MPI wire-up, startup broadcasts): %d bytes, %d packets" % (base, base_pk))
    print("collective job of %d steps: %d bytes, %d packets" % (a.steps, total, total_pk))
    print("per step (2 ranks): %.0f bytes in %.1f packets on lo; floor %d bytes (each rank sends its %d gradient "
          "floats once): %.3fx the floor" % (per, per_pk, floor, params, per / floor))


def inside(a):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if a.collective:
        return inside_collective(a)
    with tempfile.TemporaryDirectory() as work:
        run_job.make_data(work)
        run_job.build_all(a.fluidc, a.fixture, work)
        base, base_pk = job_bytes(work, 0)
        total, total_pk = job_bytes(work, a.steps)
    per, per_pk = (total - base) / a.steps, (total_pk - base_pk) / a.steps
    params = 200 * 100 + 100 + 100 * 1 + 1  # fc_sgd: fc_0 200x100 + bias, fc_1 100x1 + bias
    floor = run_job.TRAINERS * 2 * params * 4  # each trainer: gradients up, parameters down
    print("job of 0 steps (connect, startup's parameter fetch, completion): %d bytes, %d packets" % (base, base_pk))
    print("job of %d steps: %d bytes, %d packets" % (a.steps, total, total_pk))
    print("per step (2 trainers, 2 servers): %.0f bytes in %.1f packets on lo; payload floor %d bytes "
          "(2 trainers x (gradients + parameters) = 2 x 2 x %d floats x 4 B): %.3fx the floor"
          % (per, per_pk, floor, params, per / floor))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fluidc", required=True)
    ap.add_argument("--fixture", default=os.path.join(ROOT, "test", "fixtures", "distribute", "fc_sgd"))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--collective", action="store_true", help="a 2-rank collective job instead")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.fluidc = os.path.abspath(a.fluidc)
    if a.inside:
        try:
            return inside(a)
        finally:
            for p in run_job.procs:
                if p.poll() is None:
                    p.kill()
    os.execvp("unshare", ["unshare", "-n", sys.executable, os.path.abspath(__file__), "--inside", "--fluidc", a.fluidc,
                          "--fixture", a.fixture, "--steps", str(a.steps)] + (["--collective"] if a.collective else []))


if __name__ == "__main__":
    main()
