#!/usr/bin/env python3
"""Training fixture for Fluid's IfElse batch splitting, written by Paddle 2.6.2 in static mode the way
fluid.layers.IfElse wrote it (that class is gone from 2.6; its ops are not): split_lod_tensor splits the
batch by a row mask, two conditional_blocks (is_scalar_condition false: each runs when its part is not
empty) compute their branch into a variable of the main block, merge_lod_tensor puts the rows back.

ifelse_train: x [-1, 4] float32, y [-1, 1]; mask = x[:, 0:1] < 0; true rows -> fc 4->1 (tanh), false rows
              -> fc 4->1; merged -> square_error_cost with y, mean; SGD(0.1); batch 8; fixturelib's recipe
              (main/startup, init/final parameters, 20 losses).

  python3 tools/fixtures_ifelse_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper
from paddle.static.nn.control_flow import ConditionalBlock

SCRIPT = __file__
BATCH = 8


def build():
    x = paddle.static.data("x", [-1, 4], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    mask = paddle.less_than(paddle.slice(x, axes=[1], starts=[0], ends=[1]), paddle.zeros([1], "float32"))
    helper = LayerHelper("ifelse")
    parts = [helper.create_variable_for_type_inference("float32") for _ in range(2)]
    helper.append_op(type="split_lod_tensor", inputs={"X": x, "Mask": mask},
                     outputs={"OutTrue": parts[0], "OutFalse": parts[1]}, attrs={"level": 0})
    outs = []
    for part, act in [(parts[0], "tanh"), (parts[1], None)]:
        out = helper.create_variable_for_type_inference("float32")
        block = ConditionalBlock([part], is_scalar_condition=False)
        with block.block():
            paddle.assign(snn.fc(part, 1, activation=act), out)
        outs.append(out)
    merged = helper.create_variable_for_type_inference("float32")
    helper.append_op(type="merge_lod_tensor", inputs={"X": x, "Mask": mask, "InTrue": outs[0], "InFalse": outs[1]},
                     outputs={"Out": merged}, attrs={"level": 0})
    loss = paddle.mean(paddle.nn.functional.square_error_cost(merged, y))
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return {"feeds": [x, y], "loss": loss}


def main():
    rng = np.random.RandomState(21)
    rows = BATCH * fl.STEPS
    x = rng.uniform(-1, 1, size=(rows, 4)).astype(np.float32)
    # Every batch sends rows both ways: Paddle 2.6.2's executor keeps a branch's output from an earlier
    # step when its block does not run, and its merge_lod_tensor then counts those stale rows.
    x[0::BATCH, 0] = -np.abs(x[0::BATCH, 0]) - 0.1
    x[1::BATCH, 0] = np.abs(x[1::BATCH, 0]) + 0.1
    # A target the two branches can each fit on their side of x0 = 0.
    y = np.where(x[:, :1] < 0, np.tanh(x @ [[0.5], [-1], [0.3], [0.2]]), x @ [[1.0], [0.5], [-0.5], [0.1]] + 0.3)
    fl.make_training_fixture("ifelse_train", SCRIPT, build, {"x": x, "y": y.astype(np.float32)}, BATCH,
                             {"type": "sgd", "learning_rate": 0.1},
                             notes="Fluid IfElse: split_lod_tensor, two conditional_blocks, merge_lod_tensor; "
                                   "see the script docstring.")


if __name__ == "__main__":
    main()
