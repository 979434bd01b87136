#!/usr/bin/env python3
"""Evidence for a Paddle 2.6.2 bug that decides how LSTM references are built: its CPU lstm_grad (Fluid's
dynamic_lstm) is wrong in float32 whenever the hidden size D is a multiple of 8. For each D and dtype this
compares Paddle's Input@GRAD, Weight@GRAD and Bias@GRAD of L = sum(Hidden * W) with central differences
of Paddle's own forward, and prints the worst absolute error of each (ragged batch of lengths 2, 4, 1).

Seen with Paddle 2.6.2 (CPU, x86-64 with AVX): D = 2, 4, 12 float32 and D = 8 float64 agree to ~1e-5
(float32) / ~1e-10 (float64); D = 8 and 16 float32 are off by the size of the gradient itself (Bias@GRAD's
gate part comes out zero). The multiple-of-8 float32 case is the one Paddle sends to its AVX backward, so
the fault is Paddle's there. Never run by the tests (they never need Paddle).

  python3 tools/check_paddle_lstm_grad.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402,F401  (threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

LENGTHS = [2, 4, 1]


def check(d, dtype, peepholes=True):
    main, startup = paddle.static.Program(), paddle.static.Program()
    rows, nb = sum(LENGTHS), (7 if peepholes else 4) * d
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4 * d], dtype, lod_level=1)
        w = paddle.static.data("w", [d, 4 * d], dtype)
        b = paddle.static.data("b", [1, nb], dtype)
        for v in (x, w, b):
            v.stop_gradient = False
        helper = LayerHelper("lstm")
        outs = {k: helper.create_variable_for_type_inference(dtype)
                for k in ["Hidden", "Cell", "BatchGate", "BatchCellPreAct"]}
        helper.append_op(type="lstm", inputs={"Input": x, "Weight": w, "Bias": b}, outputs=outs,
                         attrs={"use_peepholes": peepholes, "is_reverse": False, "gate_activation": "sigmoid",
                                "cell_activation": "tanh", "candidate_activation": "tanh"})
        weights = paddle.static.data("weights", [-1, d], dtype)
        loss = paddle.sum(outs["Hidden"] * weights)
        grads = paddle.static.gradients([loss], [x, w, b])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    r = np.random.RandomState(1)
    vals = {"x": r.uniform(-1, 1, (rows, 4 * d)), "w": r.uniform(-1, 1, (d, 4 * d)),
            "b": r.uniform(-1, 1, (1, nb)), "weights": r.uniform(-1, 1, (rows, d))}
    vals = {k: v.astype(dtype) for k, v in vals.items()}

    def feed(v):
        f = dict(v)
        t = paddle.base.core.LoDTensor()
        t.set(v["x"], paddle.CPUPlace())
        t.set_recursive_sequence_lengths([LENGTHS])
        f["x"] = t
        return f

    analytic = exe.run(main, feed=feed(vals), fetch_list=grads)
    eps = 1e-2 if dtype == "float32" else 1e-6
    report = []
    for name, g in zip(["Input", "Weight", "Bias"], analytic):
        key = {"Input": "x", "Weight": "w", "Bias": "b"}[name]
        numeric = np.zeros(vals[key].size)
        for i in range(numeric.size):
            for sign in (1, -1):
                v = dict(vals)
                a = vals[key].copy()
                a.flat[i] += sign * eps
                v[key] = a
                (l,) = exe.run(main, feed=feed(v), fetch_list=[loss])
                numeric[i] += sign * float(l) / (2 * eps)
        report.append(f"{name}@GRAD {np.abs(g.ravel() - numeric).max():.2g} (|grad| up to {np.abs(numeric).max():.2g})")
    print(f"D={d:2d} {dtype} peepholes={peepholes}: " + "; ".join(report))


def main():
    paddle.enable_static()
    for d in (2, 4, 8, 12, 16):
        check(d, "float32")
    check(8, "float32", peepholes=False)
    check(8, "float64")


if __name__ == "__main__":
    main()
