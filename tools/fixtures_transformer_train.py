#!/usr/bin/env python3
"""Training fixture bert_tiny: a BERT-tiny-shaped encoder classifier (the fixturelib recipe: main/startup
programs, init/final parameters, 20 losses), synthetic token data.

  ids[-1, 64] int64 in [0, 100) -> word embedding (100 x 128) + position embedding (64 x 128, ids 0..63
  fed as `pos`) -> layer_norm -> nn.TransformerEncoder: 2 layers, d_model 128, 2 heads, feed-forward
  512, gelu, dropout 0 (a dropout op with p = 0: random masks could not match Paddle's) -> the first
  token's vector -> Linear(128, 128) -> tanh -> Linear(128, 2) -> F.cross_entropy; SGD lr 0.01
  (one parameter file's worth of state: Adam's moments would triple final.pdiparams); batch 8.
  label = 1 when token 7 occurs in the sequence, else 0.

  python3 tools/fixtures_transformer_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

SCRIPT = __file__
VOCAB, SEQ, HIDDEN, HEADS, FF, LAYERS = 100, 64, 128, 2, 512, 2
LR, BATCH = 0.01, 8


def build():
    ids = paddle.static.data("ids", [-1, SEQ], "int64")
    pos = paddle.static.data("pos", [-1, SEQ], "int64")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = nn.Embedding(VOCAB, HIDDEN)(ids) + nn.Embedding(SEQ, HIDDEN)(pos)
    h = nn.LayerNorm(HIDDEN)(h)
    layer = nn.TransformerEncoderLayer(HIDDEN, HEADS, FF, dropout=0.0, activation="gelu")
    h = nn.TransformerEncoder(layer, LAYERS)(h)
    cls = paddle.squeeze(paddle.slice(h, axes=[1], starts=[0], ends=[1]), axis=[1])
    logits = nn.Linear(HIDDEN, 2)(paddle.tanh(nn.Linear(HIDDEN, HIDDEN)(cls)))
    loss = F.cross_entropy(logits, label)
    paddle.optimizer.SGD(learning_rate=LR).minimize(loss)
    return {"feeds": [ids, pos, label], "loss": loss}


def data(rows):
    rng = np.random.default_rng(fl.SEED)
    ids = rng.integers(0, VOCAB, (rows, SEQ)).astype(np.int64)
    # Half the rows get a 7 somewhere and half none, so the label is balanced.
    ids[ids == 7] = 8
    has = rng.random(rows) < 0.5
    ids[has, rng.integers(0, SEQ, has.sum())] = 7
    pos = np.tile(np.arange(SEQ, dtype=np.int64), (rows, 1))
    return {"ids": ids, "pos": pos, "label": has.astype(np.int64).reshape(rows, 1)}


def main():
    fl.make_training_fixture(
        "bert_tiny", SCRIPT, build, data(BATCH * fl.STEPS), BATCH,
        {"type": "sgd", "learning_rate": LR},
        notes="BERT-tiny-shaped encoder classifier; see the script docstring.")


if __name__ == "__main__":
    main()
