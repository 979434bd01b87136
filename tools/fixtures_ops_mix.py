#!/usr/bin/env python3
"""Fixture mlp_ops_mix: a small digits classifier written to exercise many op
types of the public paddle.static API in one training program.

  x[-1,64]
  t  = matmul(x, W1[16,64], transpose_y=True)     matmul_v2(trans_y) ; W1 ~ Normal -> gaussian_random
  t  = scale(t, 0.5, bias=0.1)                    scale
  t  = cast(scale(cast(t, f64), 2.0), f32)        cast -> scale (float64) -> cast
  t  = tanh(t); a = assign(t)                     tanh, assign
  u  = a * g[16]                                  elementwise_mul (broadcast [-1,16] x [16]) ; g via Assign init -> assign_value
  d  = ones_like(m) + m, m = mean(square(x), axis=1, keepdim) -> [-1,1]
                                                  square, reduce_mean(dim=[1]), fill_any_like, elementwise_add
  v  = u / d                                      elementwise_div (broadcast [-1,16] / [-1,1])
  s  = sum(square(v), axis=1, keepdim)            reduce_sum(dim=[1])  -- v is used twice -> `sum` in backward
  lo = matmul(v, W2[16,10]) + b2 - 0.1*s          matmul_v2, elementwise_add, elementwise_sub ([-1,10]-[-1,1])
  p  = softmax(lo)                                softmax
  loss = cross_entropy(lo, label) + 0.05*mean(sum(square(p), axis=1))
                                                  softmax_with_cross_entropy, reduce_mean, scale, elementwise_add
  Adam(lr=0.01), batch 8."""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F

SCRIPT = __file__
LR = 0.01


def build():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    w1 = paddle.static.create_parameter(
        [16, 64], "float32", name="mix.w1",
        default_initializer=paddle.nn.initializer.Normal(mean=0.0, std=0.2))
    g = paddle.static.create_parameter(
        [16], "float32", name="mix.g",
        default_initializer=paddle.nn.initializer.Assign(np.linspace(0.5, 1.5, 16).astype("float32")))
    w2 = paddle.static.create_parameter(
        [16, 10], "float32", name="mix.w2",
        default_initializer=paddle.nn.initializer.XavierUniform())
    b2 = paddle.static.create_parameter(
        [10], "float32", name="mix.b2", is_bias=True,
        default_initializer=paddle.nn.initializer.Constant(0.0))

    t = paddle.matmul(x, w1, transpose_y=True)
    t = paddle.scale(t, scale=0.5, bias=0.1)
    t = paddle.cast(paddle.scale(paddle.cast(t, "float64"), scale=2.0), "float32")
    t = paddle.tanh(t)
    a = paddle.assign(t)
    u = paddle.multiply(a, g)
    m = paddle.mean(paddle.square(x), axis=1, keepdim=True)
    d = paddle.add(paddle.ones_like(m), m)
    v = paddle.divide(u, d)
    s = paddle.sum(paddle.square(v), axis=1, keepdim=True)
    lo = paddle.add(paddle.matmul(v, w2), b2)
    lo = paddle.subtract(lo, paddle.scale(s, scale=0.1))
    p = F.softmax(lo)
    ce = F.cross_entropy(lo, label)
    reg = paddle.mean(paddle.sum(paddle.square(p), axis=1))
    loss = paddle.add(ce, paddle.scale(reg, scale=0.05))
    paddle.optimizer.Adam(learning_rate=LR).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def main():
    d = fl.load_digits()
    fl.make_training_fixture(
        "mlp_ops_mix", SCRIPT, build, {"x": d["train_x"], "label": d["train_label"]}, 8,
        {"type": "adam", "learning_rate": LR, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
        notes="Coverage program; see the script docstring for which line emits which op. "
              "Parameter initialisers: Normal -> gaussian_random, Assign(ndarray) -> assign_value, "
              "XavierUniform -> uniform_random, Constant -> fill_constant.")


if __name__ == "__main__":
    main()
