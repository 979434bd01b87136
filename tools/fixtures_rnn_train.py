#!/usr/bin/env python3
"""Training fixture of a recurrent network (the fixturelib recipe: main/startup programs,
init/final parameters, 20 losses), synthetic token data.

lstm_classifier: ids x[-1,16] int64 in [0, 50) -> nn.Embedding(50, 16) -> nn.LSTM(16, 32)
                 (Paddle's fused `rnn` op, batch-major: transpose2 around it) -> the last
                 step's output -> nn.Linear(32, 2); F.cross_entropy; Adam(0.01); batch 16.
                 Label: whether token 7 occurs in the sequence (a rule the LSTM can learn).

  python3 tools/fixtures_rnn_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

SCRIPT = __file__
LR = 0.01
VOCAB, STEPS_T, EMB, HIDDEN, BATCH = 50, 16, 16, 32, 16


def build_lstm_classifier():
    x = paddle.static.data("x", [-1, STEPS_T], "int64")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = nn.Embedding(VOCAB, EMB)(x)
    out, _ = nn.LSTM(EMB, HIDDEN)(h)
    logits = nn.Linear(HIDDEN, 2)(out[:, -1, :])
    loss = F.cross_entropy(logits, label)
    paddle.optimizer.Adam(learning_rate=LR).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def token_data(rows):
    """Deterministic ids; label 1 when token 7 occurs."""
    r = np.random.default_rng(20240607)
    x = r.integers(0, VOCAB, size=(rows, STEPS_T)).astype("int64")
    label = (x == 7).any(axis=1).astype("int64").reshape(rows, 1)
    return {"x": x, "label": label}


def main():
    fl.make_training_fixture(
        "lstm_classifier", SCRIPT, build_lstm_classifier, token_data(BATCH * fl.STEPS), BATCH,
        {"type": "adam", "learning_rate": LR, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
        notes="Embedding -> LSTM -> last step -> Linear classifier on synthetic tokens; see the script "
              "docstring. The startup program's coalesce_tensor (nn.LSTM's flattened weight copy) is Paddle's.")


if __name__ == "__main__":
    main()
