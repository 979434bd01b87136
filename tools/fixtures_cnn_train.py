#!/usr/bin/env python3
"""Training fixtures of convolutional networks (the fixturelib recipe: main/startup programs,
init/final parameters, 20 losses), digits data.

lenet_digits: x[-1,64] -> reshape [-1,1,8,8] -> conv2d 1->6 k3 p1 -> relu -> max_pool2d 2
              -> conv2d 6->16 k3 p1 -> batch_norm (train mode: batch statistics, running
              mean/variance updated) -> relu -> avg_pool2d 2 -> flatten -> Linear(64,120) -> relu
              -> Linear(120,84) -> relu -> Linear(84,10); F.cross_entropy; Momentum(0.05, 0.9);
              batch 16.

  python3 tools/fixtures_cnn_train.py
"""

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

SCRIPT = __file__
LR, MU = 0.05, 0.9


def build_lenet():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = paddle.reshape(x, [-1, 1, 8, 8])
    h = F.max_pool2d(F.relu(nn.Conv2D(1, 6, 3, padding=1)(h)), 2)
    h = F.avg_pool2d(F.relu(nn.BatchNorm2D(16)(nn.Conv2D(6, 16, 3, padding=1)(h))), 2)
    h = paddle.flatten(h, 1)
    h = F.relu(nn.Linear(64, 120)(h))
    h = F.relu(nn.Linear(120, 84)(h))
    logits = nn.Linear(84, 10)(h)
    loss = F.cross_entropy(logits, label)
    paddle.optimizer.Momentum(learning_rate=LR, momentum=MU).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def main():
    d = fl.load_digits()
    fl.make_training_fixture(
        "lenet_digits", SCRIPT, build_lenet, {"x": d["train_x"], "label": d["train_label"]}, 16,
        {"type": "momentum", "learning_rate": LR, "momentum": MU},
        notes="LeNet-style CNN on 8x8 digits; see the script docstring. batch_norm runs in train mode "
              "(its running statistics are persistables saved in final.pdiparams).")


if __name__ == "__main__":
    main()
