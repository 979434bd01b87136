#!/usr/bin/env python3
"""The LoD LSTM text classifier (Fluid 1.x's dynamic_lstm + sequence_pool), trained by Paddle 2.6.2: the fixture
layout and data of tools/fixtures_lod_train.py (same sentences, labels, batch 8, 20 steps).

lod_lstm_classifier: lookup_table v1 (50, 16) -> fc 4*12 -> lstm 12 (peepholes, Fluid's dynamic_lstm defaults)
                     -> sequence_pool MAX -> fc 4 -> cross_entropy mean; Adam(0.01); batch 8.

Why 12 hidden units: Paddle 2.6.2's CPU lstm_grad is wrong in float32 whenever the hidden size is a multiple
of 8 (its AVX backward path): Input@GRAD, Weight@GRAD and Bias@GRAD all disagree with finite differences of
Paddle's own forward (Bias@GRAD comes out zero), while sizes 2, 4 and 12 and every float64 size agree
(tools/check_paddle_lstm_grad.py shows it). A Paddle run with 8 or 16 units is therefore no reference:
fluidc's gradient is the true one at every size (op cases lstm_wide/*: 8 units in float64, 12 in float32).

  python3 tools/fixtures_lod_lstm_train.py
"""

import numpy as np

import fixtures_lod_train as lt  # noqa: E402  (imports fixturelib first: threads/env before paddle)
import paddle
import paddle.nn.functional as F
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper

HIDDEN = 12  # not a multiple of 8: see the module docstring


def dynamic_lstm(x, size, name):
    """Fluid's layers.dynamic_lstm: an `lstm` op on LoD rows projected to [rows, 4 * size], peepholes on
    (Bias [1, 7 * size]); the 2.6 API no longer writes it."""
    helper = LayerHelper("lstm")
    w = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.w"), shape=[size, 4 * size], dtype="float32")
    b = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.b"), shape=[1, 7 * size], dtype="float32",
                                is_bias=True)
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ["Hidden", "Cell", "BatchGate", "BatchCellPreAct"]}
    helper.append_op(type="lstm", inputs={"Input": x, "Weight": w, "Bias": b}, outputs=outs,
                     attrs={"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
                            "cell_activation": "tanh", "candidate_activation": "tanh"})
    return outs["Hidden"]


def lstm_classifier():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    label = paddle.static.data("label", [-1, 1], "int64")
    emb = lt.embedding_v1(words, 16, is_sparse=False)
    hidden = dynamic_lstm(snn.fc(emb, 4 * HIDDEN), HIDDEN, "lstm")
    logits = snn.fc(snn.sequence_pool(hidden, "max"), lt.CLASSES)
    loss = paddle.mean(F.cross_entropy(logits, label))
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return {"feeds": [words, label], "loss": loss}


def main():
    lt.SCRIPT = __file__  # make_fixture records the script that wrote the fixture
    rng = np.random.RandomState(16)
    words, offsets, label = lt.make_data(rng, lt.BATCH * lt.fl.STEPS)
    lt.make_fixture("lod_lstm_classifier", lstm_classifier, {"type": "adam", "learning_rate": 0.01}, words, offsets,
                    label)


if __name__ == "__main__":
    main()
