#!/usr/bin/env python3
"""Check that every fixture is self-consistent using only its own files, the
way fluidc's tests consume them:

training fixtures: parse main.pdmodel, load init.pdiparams into a fresh scope
  with paddle.static.io.load_vars (names from meta.json `persistables`), run
  `steps` steps on data/<feed>.npy, and require the losses to equal losses.npy
  and the trained state to equal final.pdiparams, bit for bit.
inference fixtures: load_inference_model and require each expected_*.npy bit
  for bit.
Also checks that startup.pdmodel runs and yields tensors of the recorded shapes.

  python3 tools/verify_fixtures.py [name ...]
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

import fixturelib as fl  # noqa: E402
import paddle


def verify_training(d, meta):
    prog = paddle.static.Program.parse_from_string((d / "main.pdmodel").read_bytes())
    startup = paddle.static.Program.parse_from_string((d / "startup.pdmodel").read_bytes())
    blk = prog.global_block()
    pvars = [blk.var(n) for n in meta["persistables"]]
    assert [v.name for v in fl.persistable_vars(prog)] == meta["persistables"], "persistable set differs"
    exe = paddle.static.Executor(paddle.CPUPlace())

    # startup program runs and produces the recorded shapes/dtypes
    s0 = paddle.static.Scope()
    with paddle.static.scope_guard(s0):
        exe.run(startup)
        for n, info in meta["persistable_info"].items():
            t = np.array(s0.find_var(n).get_tensor())
            assert list(t.shape) == info["shape"] and t.dtype.name == info["dtype"], (n, t.shape, t.dtype)

    scope = paddle.static.Scope()
    B, steps = meta["batch_size"], meta["steps"]
    data = {k: np.load(d / f) for k, f in meta["data_files"].items()}
    with paddle.static.scope_guard(scope):
        paddle.static.io.load_vars(exe, str(d), prog, vars=pvars, filename="init.pdiparams")
        init = fl.read_combined(d / "init.pdiparams")
        for v, (_, _, arr) in zip(pvars, init):
            assert np.array(scope.find_var(v.name).get_tensor()).tobytes() == arr.tobytes(), v.name
        losses = []
        for i in range(steps):
            feed = {k: a[i * B:(i + 1) * B] for k, a in data.items()}
            (l,) = exe.run(prog, feed=feed, fetch_list=[meta["loss"]])
            losses.append(np.float32(l))
        losses = np.array(losses, np.float32)
        ref = np.load(d / "losses.npy")
        assert losses.tobytes() == ref.tobytes(), (losses, ref)
        assert [float(x) for x in ref] == meta["losses"]
        with tempfile.TemporaryDirectory() as tmp:
            paddle.static.io.save_vars(exe, tmp, prog, vars=pvars, filename="final.pdiparams")
            got = (Path(tmp) / "final.pdiparams").read_bytes()
        assert got == (d / "final.pdiparams").read_bytes(), "final state differs"
    # the op lists in meta describe the files
    assert fl.op_types((d / "main.pdmodel").read_bytes()) == meta["ops_main"]
    assert fl.op_types((d / "startup.pdmodel").read_bytes()) == meta["ops_startup"]


def verify_inference(d, meta):
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feeds, fetches = paddle.static.load_inference_model(str(d / "model"), exe)
        assert feeds == meta["feed_names"] and [f.name for f in fetches] == meta["fetch_names"]
        for tag, case in meta["cases"].items():
            feed = {k: np.load(d / f) for k, f in case["inputs"].items()}
            (out,) = exe.run(prog, feed=feed, fetch_list=fetches)
            ref = np.load(d / case["expected"])
            assert out.tobytes() == ref.tobytes() and out.shape == ref.shape, (tag, out, ref)


def main():
    names = sys.argv[1:]
    ok = True
    for mp in sorted(fl.FIXTURES.glob("**/meta.json")):
        d = mp.parent
        if names and d.name not in names:
            continue
        meta = json.loads(mp.read_text())
        if meta.get("kind") not in ("training", "inference"):
            continue
        try:
            (verify_training if meta["kind"] == "training" else verify_inference)(d, meta)
            print(f"ok   {d.name}")
        except AssertionError as e:
            ok = False
            print(f"FAIL {d.name}: {e}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
