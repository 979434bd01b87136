"""Shared recipe for per-op Paddle references: test/fixtures/op_cases/<family>/<case>/.

One case = one small static program that applies an op (or a few) to fed
inputs, with Paddle's own backward appended, run once by Paddle 2.6.2:

  program.pdmodel      the main program: the op(s), loss = sum_k sum(out_k * w_k)
                       with fixed random weights w_k fed as `opcase_w<k>` (random
                       rather than a plain sum, so no gradient vanishes by
                       symmetry), Paddle's grad ops (paddle.static.gradients).
                       No feed/fetch ops: the test builds it with --fetch.
  inputs/<feed>.npy    every fed array (the op's inputs and the weights)
  expected/<var>.npy   Paddle's value of each output and of <input>@GRAD for each
                       input that asked for a gradient
  tolerance            "RTOL ATOL" for test/e2e/op_case.sh
  meta.json            ops in the program, Paddle version, the script

So one case checks the forward kernel AND the grad kernel against Paddle.
Family scripts (tools/op_cases_<family>.py) call `case()` for each case and
`finish()` once; tools/make_fixtures.py runs them.

    with oc.program() as p:
        x = p.input("x", [2, 3, 8, 8])                  # random float32, wants a gradient
        w = p.input("w", [4, 3, 3, 3])
        y = paddle.nn.functional.conv2d(x, w, padding=1)
        p.case("conv2d_pad1", [y])
"""

import contextlib
import hashlib

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle

OP_CASES = fl.FIXTURES / "op_cases"
# Paddle's CPU kernels and fluidc's sum in different orders: float32 results
# agree to a few ulps per accumulated term. 1e-4 relative holds for the sizes
# used here (at most a few hundred terms per output); 1e-5 absolute covers
# outputs that are zero up to that rounding.
DEFAULT_RTOL, DEFAULT_ATOL = 1e-4, 1e-5


def _rng(name):
    return np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))


class _Program:
    def __init__(self, family, main, startup):
        self.family, self.main, self.startup = family, main, startup
        self.feeds = {}  # name -> ndarray
        self.lods = {}  # name -> recursive sequence lengths (LoD feeds)
        self.grad_inputs = []  # Variables that want a gradient

    def input(self, name, shape, dtype="float32", low=-1.0, high=1.0, grad=True, value=None, lod=None,
              declared=None):
        """A fed input. Float inputs get uniform values in [low, high) from a
        generator seeded by the family and name (so cases are stable when
        others are added) and, unless grad=False, a gradient in the case.
        `lod`: sequence lengths per level (e.g. [[1, 5, 0]]) make it a LoD
        input, declared with dim 0 -1; its offsets are written as
        inputs/<name>.lod<l>.npy (fed with --lod). `declared`: the program's
        dims when they differ from the fed value's (-1 for a run-time dim)."""
        declared = list(shape) if declared is None else list(declared)
        if lod is not None:
            declared[0] = -1
        var = paddle.static.data(name, declared, dtype, lod_level=len(lod) if lod else 0)
        if value is None:
            r = _rng(f"{self.family}/{name}/{len(self.feeds)}")
            if np.dtype(dtype).kind == "f":
                value = r.uniform(low, high, size=shape)
            else:
                value = r.integers(int(low), int(high), size=shape)
        self.feeds[name] = np.asarray(value).astype(dtype).reshape(shape)
        if lod is not None:
            self.lods[name] = [list(level) for level in lod]
        if grad and np.dtype(dtype).kind == "f":
            var.stop_gradient = False
            self.grad_inputs.append(var)
        else:
            var.stop_gradient = True
        return var

    def case(self, name, outputs, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, notes="", grads=True, extra=()):
        """Appends the weighted-sum loss and Paddle's backward, runs it and
        writes test/fixtures/op_cases/<family>/<name>/. `extra`: more
        variables to record but leave out of the loss (e.g. batch_norm's
        running statistics, updated in place, or a uint8 mask)."""
        terms = []
        exe = paddle.static.Executor(paddle.CPUPlace())
        probed = {}
        if any(int(d) < 0 for out in outputs for d in out.shape):
            # A LoD output's rows are known only once run: probe its shape
            # for the weight fed beside it.
            exe.run(self.startup)
            vals = exe.run(self.main, feed=self._feed(), fetch_list=list(outputs), return_numpy=False)
            probed = {k: list(np.asarray(v).shape) for k, v in enumerate(vals)}
        for k, out in enumerate(outputs):
            if not grads or out.dtype not in (paddle.float32, paddle.float64):
                continue
            shape = probed.get(k) or [int(d) for d in out.shape]
            w = paddle.static.data(f"opcase_w{k}", shape, out.dtype)
            self.feeds[w.name] = _rng(f"{self.family}/{name}/w{k}").uniform(-1, 1, size=shape).astype(
                "float32" if out.dtype == paddle.float32 else "float64")
            terms.append(paddle.sum(paddle.multiply(out, w)))
        wanted = [v for v in self.grad_inputs] if grads and terms else []
        grad_vars = []
        if wanted:
            loss = terms[0]
            for t in terms[1:]:
                loss = paddle.add(loss, t)
            grad_vars = paddle.static.gradients([loss], wanted)
        exe.run(self.startup)
        fetch = list(outputs) + list(extra) + [g for g in grad_vars if g is not None]
        values = exe.run(self.main, feed=self._feed(), fetch_list=fetch, return_numpy=False)
        lods = [v.lod() if hasattr(v, "lod") else [] for v in values]
        values = [np.asarray(v) for v in values]
        fl.sanitize_program(self.main)
        data = fl.serialize(self.main)

        out = fl.fresh_dir(OP_CASES / self.family / name)
        (out / "program.pdmodel").write_bytes(data)
        for feed, arr in self.feeds.items():
            fl.save_npy(out / "inputs" / f"{feed}.npy", arr)
            for level, offsets in enumerate(_offsets(self.lods.get(feed, []))):
                fl.save_npy(out / "inputs" / f"{feed}.lod{level}.npy", np.asarray(offsets, dtype=np.int64))
        for var, val, lod in zip(fetch, values, lods):
            fl.save_npy(out / "expected" / f"{var.name}.npy", np.asarray(val))
            for level, offsets in enumerate(lod):
                fl.save_npy(out / "expected" / f"{var.name}.lod{level}.npy", np.asarray(offsets, dtype=np.int64))
        (out / "tolerance").write_text(f"{rtol:g} {atol:g}\n")
        meta = {"script": _script, "family": self.family, "case": name, "notes": notes,
                "ops": fl.op_types(data), "fetch": [v.name for v in fetch], **fl.versions()}
        fl.write_json(out / "meta.json", meta)
        _written.append(f"{self.family}/{name}")


    def _feed(self):
        """The feed dict: LoD inputs as LoDTensors with their lengths."""
        feed = {}
        for name, arr in self.feeds.items():
            if name in self.lods:
                t = paddle.base.core.LoDTensor()
                t.set(arr, paddle.CPUPlace())
                t.set_recursive_sequence_lengths(self.lods[name])
                feed[name] = t
            else:
                feed[name] = arr
        return feed


def _offsets(lengths):
    """Recursive sequence lengths -> offsets per level (Paddle's LoD)."""
    out = []
    for level in lengths:
        offs = [0]
        for n in level:
            offs.append(offs[-1] + n)
        out.append(offs)
    return out


_script = "tools/op_caselib.py"
_written = []


@contextlib.contextmanager
def program(family):
    """A fresh main/startup program for one case of `family`."""
    with fl.new_programs() as (main, startup):
        yield _Program(family, main, startup)


def start(script, family):
    """Call once per family script: clears the family's old cases."""
    global _script
    _script = fl.rel(script)
    fl.fresh_dir(OP_CASES / family)


def finish():
    print(f"== {len(_written)} op cases: {', '.join(_written)}")
