#!/usr/bin/env python3
"""Per-op Paddle references for the elementwise losses with their gradients,
see tools/op_caselib.py: sigmoid_cross_entropy_with_logits (ignore_index,
normalize, pos_weight), bce_loss (probabilities at the clamp), huber_loss
(residuals both sides of delta; paddle.nn.functional.smooth_l1_loss emits it:
Paddle 2.6.2 has no smooth_l1_loss op), kldiv_loss (every reduction, zero
targets), log_loss (epsilon); fp32 and fp64.

  python3 tools/op_cases_loss_more.py   # rewrites test/fixtures/op_cases/loss_more/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "loss_more"


def sce(x, label, normalize=False, ignore_index=-100, pos_weight=None):
    """The op itself, so normalize and ignore_index reach it as given."""
    helper = LayerHelper("sigmoid_cross_entropy_with_logits")
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": x, "Label": label}
    if pos_weight is not None:
        inputs["pos_weight"] = pos_weight
    helper.append_op(type="sigmoid_cross_entropy_with_logits", inputs=inputs, outputs={"Out": out},
                     attrs={"normalize": normalize, "ignore_index": ignore_index})
    return out


def kldiv_op(x, target, reduction):
    """The op with its own reduction: F.kl_div gives it reduction none for mean and batchmean."""
    helper = LayerHelper("kldiv_loss")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="kldiv_loss", inputs={"X": x, "Target": target}, outputs={"Loss": out},
                     attrs={"reduction": reduction})
    return out


def sce_case(name, shape, dtype="float32", ignore_every=0, pos_weight=False, **kw):
    rng = np.random.default_rng(len(name))
    label = rng.uniform(0, 1, size=shape)
    if ignore_every:
        label.flat[::ignore_every] = kw.get("ignore_index", -100)
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-4, high=4)
        lab = p.input("label", shape, dtype=dtype, value=label, grad=False)
        pw = p.input("pos_weight", shape, dtype=dtype, low=0.5, high=2, grad=False) if pos_weight else None
        # With pos_weight, Paddle 2.6.2's grad kernel is not its forward's derivative (kernels/loss_more.h):
        # the forward only.
        p.case(name, [sce(x, lab, pos_weight=pw, **kw)], notes=f"{dtype} {shape} {kw} pos_weight {pos_weight}",
               grads=not pos_weight)


def pair_case(name, fn, shape, dtype="float32", xr=(-1, 1), yr=(0, 1), y_grad=False, value=None, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=xr[0], high=xr[1], value=value)
        y = p.input("y", shape, dtype=dtype, low=yr[0], high=yr[1], grad=y_grad)
        p.case(name, [fn(x, y, **kw)], notes=f"{fn.__name__} {dtype} {shape} {kw}")


def main():
    oc.start(__file__, FAMILY)
    sce_case("sce_plain", [3, 5])
    sce_case("sce_ignore_normalize", [4, 4], ignore_every=3, normalize=True)
    sce_case("sce_ignore_custom_fp64", [2, 6], dtype="float64", ignore_every=4, ignore_index=-1)
    sce_case("sce_pos_weight", [3, 4], pos_weight=True)
    # X exactly 0 and 1 hit the -100 clamp of both logs.
    clamp = np.random.default_rng(7).uniform(0.02, 0.98, size=[3, 4])
    clamp[0, 0], clamp[1, 1] = 0.0, 1.0
    pair_case("bce_clamped", F.binary_cross_entropy, [3, 4], xr=(0.02, 0.98), value=clamp, reduction="none")
    pair_case("bce_fp64", F.binary_cross_entropy, [5], dtype="float64", xr=(0.05, 0.95), reduction="none")
    pair_case("huber_delta_half", F.smooth_l1_loss, [4, 5], xr=(-2, 2), yr=(-2, 2), y_grad=True,
              reduction="none", delta=0.5)
    pair_case("huber_fp64", F.smooth_l1_loss, [3, 3], dtype="float64", xr=(-3, 3), yr=(-1, 1), y_grad=True,
              reduction="none", delta=1.5)
    for red, fn in (("none", F.kl_div), ("mean", F.kl_div), ("batchmean", F.kl_div), ("sum", F.kl_div),
                    ("op_mean", kldiv_op), ("op_batchmean", kldiv_op)):
        target = np.random.default_rng(len(red)).uniform(0, 1, size=[3, 4])
        target.flat[::5] = 0.0  # no contribution, no gradient
        with oc.program(FAMILY) as p:
            dtype = "float64" if red == "op_batchmean" else "float32"
            x = p.input("x", [3, 4], low=-3, high=0, dtype=dtype)
            t = p.input("target", [3, 4], value=target, grad=False, dtype=dtype)
            p.case(f"kldiv_{red}", [fn(x, t, reduction=red.replace("op_", ""))],
                   notes=f"reduction {red}, zero targets")
    pair_case("log_loss_eps", F.log_loss, [5, 1], xr=(0.05, 0.95), epsilon=1e-3)
    # paddle.nn.functional.log_loss takes float32 only.
    pair_case("log_loss_default", F.log_loss, [6, 1], xr=(0.05, 0.95))
    oc.finish()


if __name__ == "__main__":
    main()
