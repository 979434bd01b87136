#!/usr/bin/env python3
"""Fixture legacy_ops: Fluid-era ops that Paddle 2.6.2's public Python API no
longer emits, appended by hand with block.append_op (via LayerHelper, exactly
as the old paddle.fluid.layers functions did), then differentiated by Paddle's
own backward pass, so their *_grad ops are real Paddle output.

  x[-1,64]
  h    = matmul(x, W1[12,64]) transpose_X=False transpose_Y=True alpha=0.5   HAND: legacy `matmul` (v1)
  h    = relu(h + b1)                                       elementwise_add, relu
  gate = sigmoid(sum(h, axis=1))          -> [-1]            reduce_sum, sigmoid
  hg   = elementwise_mul(h, gate, axis=0) -> [-1,12]         HAND: axis=0 (leading-axis) broadcast
  z    = fill_zeros_like(hg); h3 = hg + z                   HAND: fill_zeros_like
  p    = softmax(fc(h3, 10))                                mul, elementwise_add(axis=1), softmax
  ce   = cross_entropy2(X=p, Label=label)                   HAND: cross_entropy2 (Y, MatchX, XShape)
  loss = mean(ce)                                           HAND: legacy `mean` (0-D output)
  SGD(lr=0.5), batch 8.

Why by hand: in 2.6.2 paddle.matmul emits matmul_v2; F.cross_entropy (also with
use_softmax=False) emits softmax_with_cross_entropy; paddle.mean emits
reduce_mean (the only public emitter of `mean` is F.margin_ranking_loss);
the backward pass zero-fills missing grads with fill_any_like, and no public
API emits fill_zeros_like."""

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

SCRIPT = __file__
LR = 0.5

HAND_APPENDED = ["matmul", "elementwise_mul (axis=0)", "fill_zeros_like", "cross_entropy2", "mean"]


def legacy_matmul(x, y, transpose_x, transpose_y, alpha):
    helper = LayerHelper("matmul")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="matmul", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"transpose_X": transpose_x, "transpose_Y": transpose_y, "alpha": float(alpha)})
    return out


def legacy_elementwise_mul(x, y, axis):
    helper = LayerHelper("elementwise_mul")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="elementwise_mul", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"axis": axis})
    return out


def fill_zeros_like(x):
    helper = LayerHelper("fill_zeros_like")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="fill_zeros_like", inputs={"X": x}, outputs={"Out": out})
    return out


def cross_entropy2(x, label, ignore_index=-100):
    helper = LayerHelper("cross_entropy2")
    y = helper.create_variable_for_type_inference(x.dtype)
    match_x = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="cross_entropy2", inputs={"X": x, "Label": label},
                     outputs={"Y": y, "MatchX": match_x, "XShape": x_shape},
                     attrs={"ignore_index": ignore_index})
    return y


def legacy_mean(x):
    helper = LayerHelper("mean")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="mean", inputs={"X": x}, outputs={"Out": out})
    return out


def build():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    w1 = paddle.static.create_parameter(
        [12, 64], "float32", name="legacy.w1",
        default_initializer=paddle.nn.initializer.XavierUniform(fan_in=64, fan_out=12))
    b1 = paddle.static.create_parameter(
        [12], "float32", name="legacy.b1", is_bias=True,
        default_initializer=paddle.nn.initializer.Constant(0.0))
    h = legacy_matmul(x, w1, False, True, 0.5)
    h = F.relu(paddle.add(h, b1))
    gate = F.sigmoid(paddle.sum(h, axis=1))
    hg = legacy_elementwise_mul(h, gate, axis=0)
    h3 = paddle.add(hg, fill_zeros_like(hg))
    prob = F.softmax(paddle.static.nn.fc(h3, 10))
    loss = legacy_mean(cross_entropy2(prob, label))
    paddle.optimizer.SGD(learning_rate=LR).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def main():
    d = fl.load_digits()
    fl.make_training_fixture(
        "legacy_ops", SCRIPT, build, {"x": d["train_x"], "label": d["train_label"]}, 8,
        {"type": "sgd", "learning_rate": LR},
        notes="Ops appended by hand with block.append_op (LayerHelper), because Paddle 2.6.2's "
              "public API no longer emits them: " + ", ".join(HAND_APPENDED) + ". Their *_grad ops "
              "come from Paddle's own append_backward.",
        extra_meta={"hand_appended_ops": HAND_APPENDED})


if __name__ == "__main__":
    main()
