#!/usr/bin/env python3
"""test/dist/run_collective.py - collective (all-reduce) jobs of fluidc binaries under mpirun on one machine, checked against one process.

Standard library only (no NumPy, no Paddle, no MPI bindings); reuses run_job.py's helpers. Modes:
  train  dist.collective_N: the collective trainer of a fixture (`fluidc opt --collective --nranks N`)
         runs N ranks under mpirun for --steps steps at batch b each; every rank's parameters must be
         within 1e-5 of one process trained at batch N*b from the same start. Also: rank 0's startup
         values reach every rank (c_broadcast: ranks run with different --seed), the collective
         binary links MPI and the single-process one does not, launch mistakes are clear errors.
  resume dist.collective_resume: a job stopped after half its steps (every rank --save) and restarted from
         those checkpoints (--resume) has, on every rank, the losses of an uninterrupted job, bit for bit.
  fault  dist.collective_fault: kill -9 of rank 1 makes mpirun end the job non-zero within 10 s
         naming rank 1; a stopped rank (SIGSTOP) makes rank 0's watchdog fail the job within its bound.
With --target cuda (test/cuda: cuda_build_collective*, cuda_run_collective_*), the collective binaries are built
for the CUDA target (NCCL on the GPUs) and the single process stays a CPU one: mode `links` builds and checks that
the collective binary links NCCL and MPI and a CUDA binary without collective ops links neither, and that the
collective binary refuses --device and exits 77 without a GPU (no GPU needed);
train and fault need a GPU per rank (exit 77, skipped, otherwise). --ranks 1 (CUDA only: the one job one GPU can
run) splits for 2 ranks and rewrites the loss gradient's 1/2 scale to 1, a program for one rank; it also checks
that two ranks on one GPU are refused.
With --netns (dist.netns_collective_2, dist.netns_collective_fault), every rank runs on a host of its own (a
network namespace of netns.py) and mpirun on another, reaching them through netns_agent.sh as it would through
ssh; MPI's out-of-band and tcp transports use only the namespaces' own addresses. Fault mode then also unplugs
rank 1's host. Exit 77 (skipped) where
namespaces cannot be made.
Every wait is bounded; every process started is killed on exit.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_job import check_params, fail, make_data, read_npy_f32, run  # noqa: E402
import netns  # noqa: E402

BATCH = 8
# Float32 sums in another order (the all-reduce adds N per-rank mean gradients, each scaled by 1/N;
# one process takes the mean over N*b rows): the results differ in the last bits only.
TOL = 1e-5

procs = []
rank_pids = []  # every rank process seen (mpirun may die before them)
HOSTS = None  # --netns: a netns.Hosts, mpirun's ("launcher") and one per rank ("rank<r>")


def mpirun_cmd(mpirun, ranks_args, extra=()):
    """mpirun over loopback TCP only (or, with --netns, the namespaces' links), one MPMD section per rank (each
    rank its own flags)."""
    nets = netns.SUBNET + "0/24" if HOSTS else "lo"
    cmd = [mpirun, "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include",
           nets, "--mca", "oob_tcp_if_include", nets]
    if os.geteuid() == 0:  # CI containers run as root; mpirun refuses root without it
        cmd.append("--allow-run-as-root")
    if HOSTS:
        agent = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_agent.sh")
        cmd = HOSTS.prefix("launcher") + cmd + ["--mca", "plm_rsh_agent", agent]
    cmd += list(extra)
    for i, args in enumerate(ranks_args):
        if i:
            cmd.append(":")
        cmd += ["-np", "1"] + (["--host", HOSTS.ns["rank%d" % i]] if HOSTS else []) + args
    return cmd


def target_flags(a):
    """The collective binaries' target (the single process is always a CPU one: the reference)."""
    return ["--target", "cuda"] if a.target == "cuda" else []


def one_rank_program(work):
    """--ranks 1: the 2-rank split with its loss gradient scaled by 1 instead of 1/2 (the distribute pass splits
    for 2 ranks at least); its all-reduces and broadcasts then run over a communicator of one."""
    text = open(work + "/c.pbtxt").read()
    one, n = re.subn(r'(name: "scale"\s*type: FLOAT\s*f: )0\.5\b', r"\g<1>1", text)
    if n != 1:
        fail("want one scale of 0.5 (the loss gradient's) in the 2-rank split, found %d" % n)
    open(work + "/c.pbtxt", "w").write(one)


def gpu_count():
    """CUDA devices the driver shows (CUDA_VISIBLE_DEVICES applies); 0 without a driver."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    n = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(n)) != 0:
        return 0
    return n.value


def build(a, work):
    run([a.fluidc, "opt", a.fixture + "/main.pdmodel", "--startup", a.fixture + "/startup.pdmodel",
         "--passes=distribute", "--collective", "--nranks", str(max(a.ranks, 2)), "--startup-out",
         work + "/c.startup.pbtxt", "-o", work + "/c.pbtxt"])
    if a.ranks == 1:
        one_rank_program(work)
    run([a.fluidc, "build", work + "/c.pbtxt", "--startup", work + "/c.startup.pbtxt", "-o", work + "/coll"]
        + target_flags(a))
    if a.target == "cuda":  # a CUDA binary without collective ops: it must link neither NCCL nor MPI
        run([a.fluidc, "build", a.fixture + "/main.pdmodel", "--startup", a.fixture + "/startup.pdmodel", "-o",
             work + "/single_cuda", "--target", "cuda"])
    if a.mode == "links":
        return
    # The same trainer whose startup draws other initial values (random ops seeded 7, not 0): ranks
    # running it hold rank 0's values after startup only if c_broadcast works.
    text = open(work + "/c.startup.pbtxt").read()
    other = re.sub(r'(name: "seed"\s*type: INT\s*i: )0\b', r"\g<1>7", text)
    if other == text:
        fail("the fixture's startup has no random op with seed 0 to reseed")
    open(work + "/c.startup7.pbtxt", "w").write(other)
    run([a.fluidc, "build", work + "/c.pbtxt", "--startup", work + "/c.startup7.pbtxt", "-o", work + "/coll7"]
        + target_flags(a))
    run([a.fluidc, "build", a.fixture + "/main.pdmodel", "--startup", a.fixture + "/startup.pdmodel", "-o",
         work + "/single"])
    # Another split (for one rank more): a rank running it beside the others is refused.
    if getattr(a, "mode", "") == "train" and a.ranks > 1:
        run([a.fluidc, "opt", a.fixture + "/main.pdmodel", "--startup", a.fixture + "/startup.pdmodel",
             "--passes=distribute", "--collective", "--nranks", str(a.ranks + 1), "--startup-out",
             work + "/other.startup.pbtxt", "-o", work + "/other.pbtxt"])
        run([a.fluidc, "build", work + "/other.pbtxt", "--startup", work + "/other.startup.pbtxt", "-o",
             work + "/coll_other"] + target_flags(a))


def data_args(work, batch=BATCH):
    return ["--data", "x=%s/x.npy" % work, "--data", "y=%s/y.npy" % work, "--no-shuffle", "--batch-size", str(batch)]


def job(a, work, per_rank, bound=120, extra=(), env=None, binary=lambda r: "coll"):
    """Runs one mpirun job to the end (bounded); returns (rc, output)."""
    cmd = mpirun_cmd(a.mpirun, [["%s/%s" % (work, binary(r))] + data_args(work) + per_rank(r) for r in range(a.ranks)],
                     extra)
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                         start_new_session=True)
    procs.append(p)
    try:
        out, _ = p.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        fail("mpirun job hung (over %d s):\n%s" % (bound, out[-3000:]))
    return p.returncode, out


def check_links(work):
    def ldd(path):
        return subprocess.run(["ldd", path], capture_output=True, text=True, timeout=60).stdout
    if "libmpi" not in ldd(work + "/coll"):
        fail("the collective binary does not link MPI:\n" + ldd(work + "/coll"))
    if "mpi" in ldd(work + "/single"):
        fail("the single-process trainer (no collective ops) links MPI:\n" + ldd(work + "/single"))
    syms = subprocess.run(["nm", "-C", work + "/single"], capture_output=True, text=True, timeout=60).stdout
    if "MPI_" in syms or "fluidc::coll" in syms:
        fail("the single-process trainer holds MPI or runtime/coll symbols")
    print("links: the collective binary links MPI, the single-process one does not")


def check_links_cuda(work):
    """The CUDA collective binary links NCCL and MPI; a CUDA binary without collective ops neither (nor holds
    their symbols or runtime/coll's)."""
    def ldd(path):
        return subprocess.run(["ldd", path], capture_output=True, text=True, timeout=60).stdout
    coll, single = ldd(work + "/coll"), ldd(work + "/single_cuda")
    for lib in ("libnccl", "libmpi"):
        if lib not in coll:
            fail("the CUDA collective binary does not link %s:\n%s" % (lib, coll))
    if "nccl" in single or "mpi" in single:
        fail("the CUDA binary without collective ops links NCCL or MPI:\n" + single)
    syms = subprocess.run(["nm", "-C", work + "/single_cuda"], capture_output=True, text=True, timeout=60).stdout
    if "MPI_" in syms or "nccl" in syms or "fluidc::coll" in syms:
        fail("the CUDA binary without collective ops holds MPI, NCCL or runtime/coll symbols")
    syms = subprocess.run(["nm", "-C", work + "/coll"], capture_output=True, text=True, timeout=60).stdout
    if "fluidc::coll::nccl_allreduce_sum" not in syms:
        fail("the CUDA collective binary does not call runtime/coll's NCCL all-reduce")
    print("links: the CUDA collective binary links NCCL and MPI, the CUDA binary without collective ops neither")


def check_misuse(a, work):
    """Launch mistakes: clear errors, non-zero exit, no hang."""
    cases = [
        (lambda r: ["--steps", "1"], dict(os.environ, PADDLE_TRAINERS_NUM=str(a.ranks + 1)),
         "PADDLE_TRAINERS_NUM / --trainers is %d but the MPI job has %d ranks" % (a.ranks + 1, a.ranks)),
        (lambda r: ["--steps", "1", "--trainer-id", str(a.ranks - 1 - r)], None, "but this process is MPI rank"),
    ]
    if a.ranks == 1:  # one rank is always rank 0 of a job of its program's size: only the first mistake applies
        cases = cases[:1]
    for per_rank, env, want in cases:
        rc, out = job(a, work, per_rank, env=env)
        if rc == 0 or want not in out:
            fail("want a non-zero exit and '%s', got %d:\n%s" % (want, rc, out[-3000:]))
    if a.ranks == 1:
        print("misuse: a launch mistake refused with a clear error")
        return
    # The program was split for a.ranks ranks: a job of another size would average wrongly.
    cmd = mpirun_cmd(a.mpirun, [[work + "/coll"] + data_args(work) + ["--steps", "1"]])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    want = "this program was split for %d ranks" % a.ranks
    if r.returncode == 0 or want not in r.stdout + r.stderr:
        fail("a 1-rank job of a %d-rank program: want a non-zero exit and '%s', got %d:\n%s%s"
             % (a.ranks, want, r.returncode, r.stdout, r.stderr))
    # A rank running another split of the program: refused before any step.
    rc, out = job(a, work, lambda r: ["--steps", "1"], binary=lambda r: "coll_other" if r == a.ranks - 1 else "coll")
    want = "the ranks run different programs"
    if rc == 0 or want not in out:
        fail("ranks of different splits: want a non-zero exit and '%s', got %d:\n%s" % (want, rc, out[-3000:]))
    # Ranks told to run different step counts: the one that stops first waits in the end-of-run barrier, the others
    # in an all-reduce; both bounded (1.5 s here), the job ends non-zero instead of hanging.
    rc, out = job(a, work, lambda r: ["--steps", str(10 + 10 * r), "--dist-timeout-ms", "1500"], bound=60)
    want = "waited over 1500 ms for the other ranks"
    if rc == 0 or want not in out:
        fail("ranks with different --steps: want a non-zero exit and '%s', got %d:\n%s" % (want, rc, out[-3000:]))
    print("misuse: 5 launch mistakes refused with a clear error")


def same_file(x, y):
    return open(x, "rb").read() == open(y, "rb").read()


def check_placement(a):
    """--netns: each rank runs on its own host (namespace, hostname and address), none on mpirun's."""
    probe = "echo rank=$OMPI_COMM_WORLD_RANK host=$(hostname) addr=$(ip -4 -o addr show eth0 | awk '{print $4}')"
    cmd = mpirun_cmd(a.mpirun, [["/bin/sh", "-c", probe]] * a.ranks)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    got = sorted(re.findall(r"rank=(\d+) host=(\S+) addr=(\S+)", r.stdout))
    want = sorted((str(i), HOSTS.ns["rank%d" % i], HOSTS.addr["rank%d" % i] + "/24") for i in range(a.ranks))
    if r.returncode != 0 or got != want:
        fail("placement: want ranks on %s, got %s (exit %d):\n%s%s" % (want, got, r.returncode, r.stdout, r.stderr))
    print("placement: " + ", ".join("rank %s on %s (%s)" % g for g in got))


def mode_train(a, work):
    if HOSTS:
        check_placement(a)
    if a.target == "cuda":
        check_links_cuda(work)
    else:
        check_links(work)
    check_misuse(a, work)
    # Job 1: no steps. Ranks other than 0 run the reseeded startup, so only the broadcast makes their
    # values rank 0's; each saves what it holds. Rank 0's values are where the single process starts.
    rc, out = job(a, work, lambda r: ["--steps", "0", "--save", "%s/init%d.params" % (work, r)],
                  binary=lambda r: "coll" if r == 0 else "coll7")
    if rc != 0:
        fail("init job exited %d:\n%s" % (rc, out[-3000:]))
    # The reseeded startup alone (one process, an MPI singleton: the broadcast has no one to hear).
    run([work + "/coll7"] + data_args(work) + ["--steps", "0", "--save", work + "/alone7.params"])
    if same_file(work + "/init0.params", work + "/alone7.params"):
        fail("the reseeded startup gives rank 0's values: the broadcast check below would prove nothing")
    for r in range(1, a.ranks):
        if not same_file(work + "/init0.params", "%s/init%d.params" % (work, r)):
            fail("rank %d (other startup values) does not hold rank 0's values after c_broadcast" % r)
    print("broadcast: every rank holds rank 0's startup values (the others' startups draw different ones)")
    # Job 2: the training run.
    t0 = time.time()
    rc, out = job(a, work, lambda r: ["--steps", str(a.steps),
                                      "--log-every", "1", "--losses-out", "%s/loss%d.npy" % (work, r), "--save-dir",
                                      "%s/final%d" % (work, r)])
    if rc != 0:
        fail("training job exited %d:\n%s" % (rc, out[-3000:]))
    print("training job: %d ranks x %d steps in %.1f s (mpirun start included)" % (a.ranks, a.steps, time.time() - t0))
    run([work + "/single"] + data_args(work, BATCH * a.ranks) + ["--steps", str(a.steps),
                                                 "--params", work + "/init0.params", "--losses-out",
                                                 work + "/loss_single.npy", "--save-dir", work + "/final_single"])
    per = [read_npy_f32("%s/loss%d.npy" % (work, r)) for r in range(a.ranks)]
    ls = read_npy_f32(work + "/loss_single.npy")
    if any(len(l) != a.steps for l in per + [ls]):
        fail("want %d losses from every run" % a.steps)
    worst = 0.0
    for s in range(a.steps):
        mean = sum(l[s] for l in per) / a.ranks
        worst = max(worst, abs(mean - ls[s]) / max(1.0, abs(ls[s])))
        if s < 5 or s == a.steps - 1:
            print("step %2d  ranks %s  mean %.6f  single %.6f" % (s + 1, " ".join("%.6f" % l[s] for l in per), mean,
                                                                  ls[s]))
    if worst > TOL:
        fail("the ranks' mean loss differs from single-process training by %g (relative), over %g" % (worst, TOL))
    if not ls[-1] < ls[0]:
        fail("the loss did not fall")
    names = sorted(os.listdir(work + "/final_single"))
    if not names:
        fail("the single process saved no parameters")
    for r in range(a.ranks):
        got_names = sorted(os.listdir("%s/final%d" % (work, r)))
        if got_names != names:
            fail("rank %d saved %s, the single process %s" % (r, got_names, names))
    check_params(work, names, a.ranks, "rank", TOL)
    if a.target == "cuda" and a.ranks == 1:
        check_shared_device(a, work)
    print("PASS: %d steps on %d ranks (mpirun, all-reduce%s) match one process at batch %d within %g"
          % (a.steps, a.ranks, ", NCCL on CUDA" if a.target == "cuda" else "", BATCH * a.ranks, TOL))


def check_shared_device(a, work):
    """--target cuda --ranks 1: two ranks given one GPU (CUDA_VISIBLE_DEVICES) are refused on every rank, naming
    both, before any collective (NCCL does not support two ranks of one communicator on one device)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0])
    cmd = mpirun_cmd(a.mpirun, [[work + "/coll"] + data_args(work) + ["--steps", "1"]] * 2)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    want = "ranks 0 and 1 would share CUDA device 0 of host"
    if r.returncode == 0 or want not in r.stdout + r.stderr:
        fail("two ranks on one GPU: want a non-zero exit and '%s', got %d:\n%s%s"
             % (want, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    print("shared device: two ranks on one GPU refused with a clear error")


def check_cuda_main(work):
    """run_nccl_main's refusals that need no GPU: --device (each rank chooses its own) and, without a GPU, exit 77
    before joining an MPI job."""
    r = subprocess.run([work + "/coll", "--device", "0"] + data_args(work) + ["--steps", "1"], capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 2 or "a collective binary's ranks choose their devices" not in r.stderr:
        fail("--device on a CUDA collective binary: want exit 2 and a clear error, got %d:\n%s" % (r.returncode,
                                                                                               r.stderr))
    if gpu_count() == 0:
        r = subprocess.run([work + "/coll"] + data_args(work) + ["--steps", "1"], capture_output=True, text=True,
                           timeout=60)
        if r.returncode != 77 or "no CUDA device" not in r.stderr:
            fail("without a GPU: want exit 77 and 'no CUDA device', got %d:\n%s" % (r.returncode, r.stderr))
    print("main: --device refused%s" % (", exit 77 without a GPU" if gpu_count() == 0 else ""))


def mode_links(a, work):
    if a.target == "cuda":
        check_links_cuda(work)
        check_cuda_main(work)
    else:
        check_links(work)
    print("PASS: links")


def mode_resume(a, work):
    half = a.steps // 2

    def ok(tag, per_rank):
        rc, out = job(a, work, per_rank)
        if rc != 0:
            fail("%s job exited %d:\n%s" % (tag, rc, out[-3000:]))
    ok("uninterrupted", lambda r: ["--steps", str(a.steps), "--losses-out", "%s/whole%d.npy" % (work, r)])
    ok("first half", lambda r: ["--steps", str(half), "--save", "%s/rank%d.ckpt" % (work, r)])
    ok("resumed", lambda r: ["--steps", str(a.steps), "--resume", "%s/rank%d.ckpt" % (work, r), "--losses-out",
                             "%s/second%d.npy" % (work, r)])
    for r in range(a.ranks):
        whole, second = read_npy_f32("%s/whole%d.npy" % (work, r)), read_npy_f32("%s/second%d.npy" % (work, r))
        print("rank %d: uninterrupted steps %d-%d %s\n        resumed       %s" %
              (r, half + 1, a.steps, " ".join("%.6f" % x for x in whole[half:]), " ".join("%.6f" % x for x in second)))
        if len(whole) != a.steps or len(second) != a.steps - half:
            fail("rank %d: want %d and %d losses, got %d and %d" % (r, a.steps, a.steps - half, len(whole),
                                                                     len(second)))
        # The same inputs and the same all-reduces in the same order (the optimizer state came back from the
        # checkpoint, and the data position from its progress record): identical, not merely close.
        if second != whole[half:]:
            fail("rank %d: the resumed job's losses differ from the uninterrupted job's" % r)
    print("PASS: a collective job of %d ranks resumed from its checkpoints after %d of %d steps has the same losses"
          % (a.ranks, half, a.steps))


def descendants(pid):
    """Every process below `pid` (mpirun's daemons and ranks; across hosts the ranks are the daemons'
    children, not mpirun's: namespaces of the network and hostname share the one process tree)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parent[int(d)] = int(open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [], [pid]
    while frontier:
        kids = [c for c, pp in parent.items() if pp in frontier]
        found += kids
        frontier = kids
    return found


def rank_processes(pid):
    """{rank: pid} of the job's rank processes below mpirun (their environment names the rank)."""
    ranks = {}
    for d in descendants(pid):
        try:
            env = open("/proc/%d/environ" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        for e in env:
            if e.startswith(b"OMPI_COMM_WORLD_RANK="):
                ranks[int(e.split(b"=")[1])] = d
    return ranks


def alive(pid):
    try:
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def fault_trial(a, work, tag, sig, want, timeout_ms, victim_rank=1, wait=0.0):
    log = "%s/%s.log" % (work, tag)
    cmd = mpirun_cmd(a.mpirun, [[work + "/coll"] + data_args(work) +
                                ["--steps", "100000000", "--log-every", "100",
                                 "--dist-timeout-ms", str(timeout_ms)] for _ in range(a.ranks)])
    print("+ " + " ".join(cmd), flush=True)
    out = open(log, "w")
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    procs.append(p)
    t0 = time.time()
    ranks = {}
    while "step 100/" not in open(log).read() or len(ranks) < a.ranks:
        if time.time() - t0 > 60 or p.poll() is not None:
            fail("%s: the job did not get going:\n%s" % (tag, open(log).read()[-3000:]))
        ranks = rank_processes(p.pid)
        time.sleep(0.05)
    rank_pids.extend(descendants(p.pid))  # orted daemons too: an unplugged host's outlives mpirun
    time.sleep(wait)
    victim = ranks[victim_rank]
    if sig is None:
        HOSTS.cut("rank%d" % victim_rank)
    else:
        os.kill(victim, sig)
    killed = time.time()
    # An unplugged rank lives on, cut off: its own watchdog must end it as well.
    survivors = [ranks[r] for r in ranks if r != victim_rank or sig is None]
    while time.time() - killed < 10 and (p.poll() is None or any(alive(s) for s in survivors)):
        time.sleep(0.05)
    took = time.time() - killed
    if sig == signal.SIGSTOP and alive(victim):
        os.kill(victim, signal.SIGKILL)
    text = open(log).read()
    what = sig.name if sig else "unplugging the host"
    if p.poll() is None or any(alive(s) for s in survivors):
        fail("%s: after %s of rank %d, the job did not end within 10 s:\n%s" % (tag, what, victim_rank, text[-3000:]))
    if p.returncode == 0:
        fail("%s: mpirun exited 0 after %s of rank %d" % (tag, what, victim_rank))
    if not all(w in text for w in want):
        fail("%s: the output does not say %s:\n%s" % (tag, want, text[-3000:]))
    print("%s: %s of rank %d -> mpirun exited %d and every rank was gone after %.1f s; output says %s"
          % (tag, what, victim_rank, p.returncode, took, want))
    return took


def mode_fault(a, work):
    if a.random_trials:
        rng = random.Random(int(os.environ.get("FLUIDC_FAULT_SEED", "1")))
        worst = 0.0
        for k in range(a.random_trials):
            v = rng.randrange(a.ranks)
            worst = max(worst, fault_trial(a, work, "rand%d" % k, signal.SIGKILL,
                                           ["mpirun noticed that process rank %d " % v, "exited on signal 9"], 5000,
                                           victim_rank=v, wait=rng.uniform(0, 1.5)))
        print("PASS: %d kill -9 of a random rank at a random time: the job always ended non-zero, naming the rank, "
              "within %.1f s" % (a.random_trials, worst))
        return
    # A dead rank: mpirun notices its exit at once and ends the job, naming the rank.
    fault_trial(a, work, "kill", signal.SIGKILL, ["mpirun noticed that process rank 1 ", "exited on signal 9"], 5000)
    # A stuck rank (stopped): rank 0 waits in the all-reduce until its watchdog's bound (2 s here).
    fault_trial(a, work, "stop", signal.SIGSTOP,
                ["error: rank 0 of %d: c_allreduce_sum" % a.ranks, "waited over 2000 ms for the other ranks"], 2000)
    if HOSTS:
        # Across hosts: rank 1's host unplugged (its link down at the switch; no process dies, no connection
        # is reset). Both ranks wait in the all-reduce until their watchdogs' bound and exit. mpirun then waits
        # for the unplugged host's daemon until TCP gives up on it: net.ipv4.tcp_retries2 retransmissions (15
        # by default, many minutes; mpirun was still there after 60 s). Its host's setting bounds it: 2 here,
        # about 3 s (docs/distributed.md).
        subprocess.run(HOSTS.prefix("launcher") + ["sysctl", "-q", "-w", "net.ipv4.tcp_retries2=2"], check=True,
                       timeout=30)
        fault_trial(a, work, "unplug", None, ["error: rank 0 of %d: c_allreduce_sum" % a.ranks,
                                              "waited over 2000 ms for the other ranks"], 2000)
    print("PASS: a dead rank, a stuck rank%s each end the job non-zero within 10 s"
          % (" and an unplugged host" if HOSTS else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "resume", "fault", "links"])
    ap.add_argument("--fluidc", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--features", type=int, required=True, help="columns of the fixture's input x")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--mpirun", default=shutil.which("mpirun"))
    ap.add_argument("--random-trials", type=int, default=0, help="fault: this many kills of a random rank instead")
    ap.add_argument("--netns", action="store_true", help="each rank on a host of its own (netns.py)")
    ap.add_argument("--target", choices=["cpu", "cuda"], default="cpu",
                    help="the collective binaries' target (cuda: NCCL on a GPU per rank)")
    a = ap.parse_args()
    if a.ranks == 1 and (a.target != "cuda" or a.mode != "train"):
        fail("--ranks 1 is for `train --target cuda` (the job one GPU can run)")
    if a.mode == "links" and a.target == "cpu":
        fail("mode links: the CPU build's links are checked by train")
    if a.target == "cuda" and a.mode != "links" and gpu_count() < a.ranks:
        print("SKIP: %d ranks need %d CUDA devices (NCCL refuses two ranks on one), this machine has %d"
              % (a.ranks, a.ranks, gpu_count()))
        sys.exit(77)
    if not a.mpirun:
        fail("mpirun not found")
    if a.netns and netns.available():
        print("SKIP: %s" % netns.available())
        sys.exit(77)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    make_data(a.work, a.features, w_scale=0.3)
    build(a, a.work)
    global HOSTS
    try:
        if a.netns:
            HOSTS = netns.Hosts(["launcher"] + ["rank%d" % r for r in range(a.ranks)])
        {"train": mode_train, "resume": mode_resume, "fault": mode_fault, "links": mode_links}[a.mode](a, a.work)
    finally:
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait(timeout=10)
        for pid in rank_pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if HOSTS:
            HOSTS.close()


if __name__ == "__main__":
    main()
