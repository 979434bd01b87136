#!/usr/bin/env python3
"""Training fixtures with sparse embedding gradients (nn.Embedding(sparse=True): lookup_table_v2_grad writes
SELECTED_ROWS, `sum` merges the two lookups' gradients, the optimizer applies them), the fixturelib recipe
(main/startup programs, init/final parameters, 20 losses).

embedding_sparse_<opt>: ids [-1, 6] and ctx [-1, 3] int64 in [0, 40) (0 is padding_idx), one shared
              Embedding(40, 16, sparse=True, padding_idx=0); mean over positions of each, concat [-1, 32]
              -> Linear(32, 24) -> tanh -> Linear(24, 4); F.cross_entropy; batch 8.
              opt: momentum (Momentum(0.1, 0.9)) and sgd (SGD(0.1)). (Not adam: Paddle's sparse adam is not
              its dense one, see compiler/ops/optimizer.cc, and fluidc refuses it.)

  python3 tools/fixtures_sparse_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

SCRIPT = __file__
BATCH, VOCAB = 8, 40


def builder(make_optimizer):
    def build():
        ids = paddle.static.data("ids", [-1, 6], "int64")
        ctx = paddle.static.data("ctx", [-1, 3], "int64")
        label = paddle.static.data("label", [-1, 1], "int64")
        emb = nn.Embedding(VOCAB, 16, sparse=True, padding_idx=0)
        h = paddle.concat([paddle.mean(emb(ids), axis=1), paddle.mean(emb(ctx), axis=1)], axis=1)
        logits = nn.Linear(24, 4)(paddle.tanh(nn.Linear(32, 24)(h)))
        loss = F.cross_entropy(logits, label)
        make_optimizer().minimize(loss)
        return {"feeds": [ids, ctx, label], "loss": loss}
    return build


def main():
    rng = np.random.RandomState(7)
    rows = BATCH * fl.STEPS
    data = {"ids": rng.randint(0, VOCAB, size=(rows, 6)).astype(np.int64),
            "ctx": rng.randint(0, VOCAB, size=(rows, 3)).astype(np.int64),
            "label": rng.randint(0, 4, size=(rows, 1)).astype(np.int64)}
    for name, make, opt in [
        ("embedding_sparse_momentum", lambda: paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9),
         {"type": "momentum", "learning_rate": 0.1, "momentum": 0.9}),
        ("embedding_sparse_sgd", lambda: paddle.optimizer.SGD(learning_rate=0.1),
         {"type": "sgd", "learning_rate": 0.1}),
    ]:
        fl.make_training_fixture(
            name, SCRIPT, builder(make), data, BATCH, opt,
            notes="Sparse embedding gradients (SELECTED_ROWS in the program; fluidc holds them densely, "
                  "compiler/analysis/dense_rows.h); see the script docstring.")


if __name__ == "__main__":
    main()
