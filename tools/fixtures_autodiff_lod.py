#!/usr/bin/env python3
"""Fixtures test/fixtures/autodiff_lod/*: fluidc's own backward pass (--passes=autodiff) on FORWARD-ONLY
programs with LoD input, against Paddle 2.6.2's gradients (paddle.static.gradients) on one ragged batch.
(test/e2e/autodiff_case.sh feeds row slices, which would cut sequences; these feed one whole batch.)

  gru_reverse_origin  x [rows, 4] lod_level 1 (lengths 2, 5, 2) -> fc 9 -> gru (D 3, is_reverse, origin_mode,
                      H0 fed (stop_gradient False: see below), Bias) -> sequence_pool SUM -> square -> mean

Each: forward.pdmodel (no backward, no feed/fetch ops), params.pdiparams (the seeded startup's parameters),
inputs/<feed>.npy (+ <feed>.lod0.npy offsets), grads/<param>.npy, meta.json (the loss variable, the ops).

  python3 tools/fixtures_autodiff_lod.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper

SCRIPT = __file__


def gru_reverse_origin():
    x = paddle.static.data("x", [-1, 4], "float32", lod_level=1)
    h0 = paddle.static.data("h0", [-1, 3], "float32")
    # Paddle 2.6.2's gru_grad drops the first step's reset-gate and recurrent-weight terms when H0 is given
    # but wants no gradient (it skips those GEMMs when there is no H0@GRAD to write), so its parameter
    # gradients then depend on H0's stop_gradient. H0 wanting one gives the true gradient, the reference
    # here; fluidc always computes the true one (the gradcheck in test/unit/kernels/sequence_test.cc).
    h0.stop_gradient = False
    helper = LayerHelper("gru")
    w = helper.create_parameter(attr=paddle.ParamAttr(name="gru.w"), shape=[3, 9], dtype="float32")
    b = helper.create_parameter(attr=paddle.ParamAttr(name="gru.b"), shape=[1, 9], dtype="float32", is_bias=True)
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]}
    helper.append_op(type="gru", inputs={"Input": snn.fc(x, 9), "Weight": w, "Bias": b, "H0": h0}, outputs=outs,
                     attrs={"is_reverse": True, "gate_activation": "sigmoid", "activation": "tanh",
                            "origin_mode": True})
    loss = paddle.mean(paddle.square(snn.sequence_pool(outs["Hidden"], "sum")))
    rng = np.random.default_rng(16)
    feeds = {"x": rng.uniform(-1, 1, (9, 4)).astype("float32"), "h0": rng.uniform(-1, 1, (3, 3)).astype("float32")}
    return loss, feeds, {"x": [2, 5, 2]}


def make_fixture(name, build):
    out = fl.fresh_dir(fl.FIXTURES / "autodiff_lod" / name)
    with fl.new_programs() as (main, startup):
        loss, feeds, lengths = build()
    fl.sanitize_program(main)
    forward = fl.serialize(main)
    (out / "forward.pdmodel").write_bytes(forward)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        fl.save_persistables(exe, main, out / "params.pdiparams", scope)
        params = sorted(p.name for p in main.all_parameters())
        with paddle.static.program_guard(main, startup):
            grads = paddle.static.gradients([loss], [main.global_block().var(n) for n in params])
        feed = dict(feeds)
        for n, lens in lengths.items():
            t = paddle.base.core.LoDTensor()
            t.set(feeds[n], paddle.CPUPlace())
            t.set_recursive_sequence_lengths([lens])
            feed[n] = t
        values = exe.run(main, feed=feed, fetch_list=grads + [loss])
    for n, arr in feeds.items():
        fl.save_npy(out / "inputs" / f"{n}.npy", arr)
        if n in lengths:
            fl.save_npy(out / "inputs" / f"{n}.lod0.npy", np.concatenate([[0], np.cumsum(lengths[n])]).astype(np.int64))
    for n, v in zip(params, values):
        fl.save_npy(out / "grads" / f"{n}.npy", np.asarray(v))
    fl.write_json(out / "meta.json", {"kind": "autodiff_lod", "name": name, "script": fl.rel(SCRIPT), **fl.versions(),
                                      "seed": fl.SEED, "loss": loss.name, "loss_value": float(np.asarray(values[-1])),
                                      "ops_forward": fl.op_types(forward), "params": params})
    print(f"{name}: loss {float(np.asarray(values[-1])):.6f}, gradients of {', '.join(params)}")


def main():
    make_fixture("gru_reverse_origin", gru_reverse_origin)


if __name__ == "__main__":
    main()
