#!/usr/bin/env python3
"""One ResNet-18 training step at batch 4 (paddle.vision.models.resnet18(num_classes=10), batch_norm in
train mode, F.cross_entropy, Momentum(0.01, 0.9)) on synthesized weights and input
(tools/synth_weights.py; test/tools/synth_params.cc makes the same values), so nothing ResNet-sized is
committed: ResNet-18's parameters alone are 45 MB.

  test/fixtures/resnet18_train/main.pdmodel, startup.pdmodel   the programs (op_callstack sanitised)
  test/fixtures/resnet18_train/label.npy                       int64 [4, 1]
  test/fixtures/resnet18_train/losses.npy                      the step's loss, float32 [1]
  test/fixtures/resnet18_train/after/<name>.npy                selected persistables after the step
  test/fixtures/resnet18_train/meta.json

Weights: every variable the program marks is_parameter (trainable weights and batch-norm running
statistics) gets synth(name, dims); the optimizer's state (velocities, learning rate) comes from the
startup program. Input x [4, 3, 224, 224] = synth("x", dims, input=True).

  python3 tools/fixtures_resnet_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F

from synth_weights import synth

SCRIPT = __file__
OUT = fl.FIXTURES / "resnet18_train"
BATCH, LR, MU = 4, 0.01, 0.9
LABELS = np.array([[3], [7], [0], [9]], dtype=np.int64)
# A few tensors across the network, kept small: the first convolution, the first and last
# batch-norm's scale and running statistics, and the classifier.
AFTER = ["conv2d_0.w_0", "batch_norm2d_0.w_0", "batch_norm2d_0.w_1", "batch_norm2d_0.w_2",
         "batch_norm2d_19.b_0", "batch_norm2d_19.w_2", "linear_0.w_0", "linear_0.b_0"]


def main():
    out = fl.fresh_dir(OUT)
    with fl.new_programs() as (main_prog, startup):
        x = paddle.static.data("x", [-1, 3, 224, 224], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        logits = paddle.vision.models.resnet18(num_classes=10)(x)
        loss = F.cross_entropy(logits, label)
        paddle.optimizer.Momentum(learning_rate=LR, momentum=MU).minimize(loss)
    fl.sanitize_program(main_prog)
    fl.sanitize_program(startup)
    main_bytes, startup_bytes = fl.serialize(main_prog), fl.serialize(startup)
    (out / "main.pdmodel").write_bytes(main_bytes)
    (out / "startup.pdmodel").write_bytes(startup_bytes)
    fl.save_npy(out / "label.npy", LABELS)

    block = main_prog.global_block()
    params = sorted(v.name for v in block.all_parameters())
    marked = sorted(v.name() for v in main_prog.desc.block(0).all_vars() if v.is_parameter() and v.persistable())
    assert params == marked, (set(params) ^ set(marked))
    missing = [n for n in AFTER if n not in params]
    assert not missing, missing

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for name in params:
            t = scope.find_var(name).get_tensor()
            t.set(synth(name, list(np.array(t).shape)), paddle.CPUPlace())
        xs = synth("x", [BATCH, 3, 224, 224], input=True)
        (l,) = exe.run(main_prog, feed={"x": xs, "label": LABELS}, fetch_list=[loss])
        for name in AFTER:
            fl.save_npy(out / "after" / f"{name}.npy", np.array(scope.find_var(name).get_tensor()))
    fl.save_npy(out / "losses.npy", np.array([l], dtype=np.float32).reshape(1))
    fl.write_json(out / "meta.json", {
        "kind": "training (one step, synthesized weights)",
        "script": fl.rel(SCRIPT),
        **fl.versions(),
        "batch_size": BATCH,
        "optimizer": {"type": "momentum", "learning_rate": LR, "momentum": MU},
        "weights": "synth(name, dims) of tools/synth_weights.py for every is_parameter variable "
                   "(test/tools/synth_params.cc --parameters); optimizer state from the startup program",
        "input": "x = synth('x', [4, 3, 224, 224], input=True) (synth_params --input x 4,3,224,224)",
        "loss": float(l),
        "after": AFTER,
        "ops_main": fl.op_types(main_bytes),
    })
    print(f"resnet18_train: loss {float(l):.6f}, {len(params)} parameters")


if __name__ == "__main__":
    main()
