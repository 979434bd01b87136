#!/usr/bin/env python3
"""Training fixture of a recurrent network (the fixturelib recipe: main/startup programs,
init/final parameters, 20 losses), synthetic token data.

lstm_classifier: ids x[-1,16] int64 in [0, 50) -> nn.Embedding(50, 16) -> nn.LSTM(16, 32)
                 (Paddle's fused `rnn` op, batch-major: transpose2 around it) -> the last
                 step's output -> nn.Linear(32, 2); F.cross_entropy; Adam(0.01); batch 16.
                 Label: whether token 7 occurs in the sequence (a rule the LSTM can learn).
                 Its Embedding is lookup_table_v2; its zero initial states are sized with
                 shape + slice of the run-time batch. Its e2e test
                 (fluidc_train_case(lstm_classifier 16)) waits for lookup_table_v2 and shape;
                 it passed with those families merged in.
gru_dense:       features x[16,12,6] float32 -> nn.GRU(6, 16, num_layers=2, direction="bidirect")
                 -> the last step's output -> nn.Linear(32, 2); F.cross_entropy; Adam(0.01);
                 batch 16. Label: whether feature 0 sums to more than 0 over time. Exercises the
                 rnn op alone (no embedding): stacked, bidirectional, GRU.

Both drop the layer's flat weight copy (drop_flat_weight: Paddle aliases it with the
cell weights, fluidc does not).

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


def drop_flat_weight(layer):
    """Removes the flat copy of the layer's weights (`<layer>.w_0`) with the
    startup ops that fill it (fill_constant, coalesce_tensor). No op of the
    main program reads it, but Paddle's coalesce_tensor makes the cell
    weights views into it, so its saved value follows their Adam updates
    (final.pdiparams holds exactly their concatenation); fluidc's variables
    do not alias, so that one record would differ. The training math is
    unchanged."""
    name = layer._flat_weight[0].name
    startup = paddle.static.default_startup_program().global_block()
    for i in reversed(range(len(startup.ops))):
        op = startup.ops[i]
        if op.type == "coalesce_tensor" or name in op.output_arg_names:
            startup._remove_op(i)
    for block in (startup, paddle.static.default_main_program().global_block()):
        if block.has_var(name):
            block._remove_var(name)


def build_lstm_classifier():
    x = paddle.static.data("x", [-1, STEPS_T], "int64")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = nn.Embedding(VOCAB, EMB)(x)
    lstm = nn.LSTM(EMB, HIDDEN)
    drop_flat_weight(lstm)
    out, _ = lstm(h)
    logits = nn.Linear(HIDDEN, 2)(out[:, -1, :])
    loss = F.cross_entropy(logits, label)
    paddle.optimizer.Adam(learning_rate=LR).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def build_gru_dense():
    # A fixed batch: nn.GRU then sizes its zero initial states from the
    # declared batch instead of emitting shape + slice for a run-time one.
    x = paddle.static.data("x", [BATCH, 12, 6], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    gru = nn.GRU(6, 16, num_layers=2, direction="bidirect")
    drop_flat_weight(gru)
    out, _ = gru(x)
    logits = nn.Linear(32, 2)(out[:, -1, :])
    loss = F.cross_entropy(logits, label)
    paddle.optimizer.Adam(learning_rate=LR).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def dense_data(rows):
    r = np.random.default_rng(20240608)
    x = r.standard_normal((rows, 12, 6)).astype("float32")
    label = (x[:, :, 0].sum(axis=1) > 0).astype("int64").reshape(rows, 1)
    return {"x": x, "label": label}


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
              "docstring. nn.LSTM's flat weight copy (coalesce_tensor in the startup) is removed: see "
              "drop_flat_weight.")
    fl.make_training_fixture(
        "gru_dense", SCRIPT, build_gru_dense, dense_data(BATCH * fl.STEPS), BATCH,
        {"type": "adam", "learning_rate": LR, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
        notes="2-layer bidirectional GRU -> last step -> Linear classifier on synthetic features; see the "
              "script docstring. nn.GRU's flat weight copy is removed: see drop_flat_weight.")


if __name__ == "__main__":
    main()
