#!/usr/bin/env python3
"""examples/image_classifier/: a small convolutional image classifier trained by Paddle on the bundled
8x8 digits (examples/mlp_classifier/data), exported for inference, and one bundled test image.

  model.pdmodel, model.pdiparams  save_inference_model of: x[-1,64] -> reshape [-1,1,8,8]
                                  -> conv2d 1->16 k3 p1 -> batch_norm -> relu -> max_pool2d 2
                                  -> conv2d 16->32 k3 p1 -> batch_norm -> relu -> avg_pool2d 2
                                  -> flatten -> dropout 0.2 -> Linear(128, 10) -> softmax
                                  (Adam 0.005, batch 32, EPOCHS epochs, file order, no shuffle)
  x_digit.npy                     the first test image whose label is 7, float32 [1, 64] (feed x)
  digit.pgm                       the same image as an 8x8 greyscale picture (to look at)
  labels.txt                      class names, line i names class i
  expected_digit.npy              Paddle's class probabilities for it (test/e2e/infer_case.sh's naming)
  paddle_reference.json           versions, training losses, Paddle's test accuracy and top-5

  python3 tools/make_example_image_classifier.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

SCRIPT = __file__
EPOCHS, BATCH, LR = 8, 32, 0.005
NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def build():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = paddle.reshape(x, [-1, 1, 8, 8])
    h = F.max_pool2d(F.relu(nn.BatchNorm2D(16)(nn.Conv2D(1, 16, 3, padding=1)(h))), 2)
    h = F.avg_pool2d(F.relu(nn.BatchNorm2D(32)(nn.Conv2D(16, 32, 3, padding=1)(h))), 2)
    logits = nn.Linear(128, 10)(F.dropout(paddle.flatten(h, 1), 0.2))
    prob = F.softmax(logits)
    loss = F.cross_entropy(logits, label)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    paddle.optimizer.Adam(learning_rate=LR).minimize(loss)
    return x, label, loss, test_program, prob


def main():
    out = fl.EXAMPLES / "image_classifier"
    out.mkdir(parents=True, exist_ok=True)
    d = fl.load_digits()
    with fl.new_programs() as (main_prog, startup):
        x, label, loss, test_program, prob = build()
    scope, exe = paddle.static.Scope(), paddle.static.Executor(paddle.CPUPlace())
    losses = []
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        n = d["train_x"].shape[0]
        for _ in range(EPOCHS):
            tot = 0.0
            for s in range(0, n, BATCH):
                feed = {"x": d["train_x"][s:s + BATCH], "label": d["train_label"][s:s + BATCH]}
                (l,) = exe.run(main_prog, feed=feed, fetch_list=[loss])
                tot += float(l) * feed["x"].shape[0]
            losses.append(tot / n)
        paddle.static.save_inference_model(str(out / "model"), [test_program.global_block().var("x")],
                                           [test_program.global_block().var(prob.name)], exe,
                                           program=test_program)
    fl.sanitize_model_file(out / "model.pdmodel")
    # Paddle running the exported files, as a user would deploy them.
    with paddle.static.scope_guard(paddle.static.Scope()):
        iprog, feeds, fetches = paddle.static.load_inference_model(str(out / "model"), exe)
        (p_test,) = exe.run(iprog, feed={feeds[0]: d["test_x"]}, fetch_list=fetches)
        idx = int(np.nonzero(d["test_label"].ravel() == 7)[0][0])
        digit = d["test_x"][idx:idx + 1]
        (p_digit,) = exe.run(iprog, feed={feeds[0]: digit}, fetch_list=fetches)
    np.save(out / "x_digit.npy", digit)
    np.save(out / "expected_digit.npy", p_digit)
    grey = np.clip(np.rint(digit.reshape(8, 8) * 255.0), 0, 255).astype(np.uint8)  # digits data is in [0, 1]
    (out / "digit.pgm").write_bytes(b"P5\n8 8\n255\n" + grey.tobytes())
    (out / "labels.txt").write_text("\n".join(NAMES) + "\n")
    acc = float((p_test.argmax(1) == d["test_label"].ravel()).mean())
    top5 = [[NAMES[i], round(float(p_digit[0, i]), 6)] for i in np.argsort(-p_digit[0])[:5]]
    fl.write_json(out / "paddle_reference.json", {
        "script": fl.rel(SCRIPT), **fl.versions(), "seed": fl.SEED, "epochs": EPOCHS, "batch_size": BATCH,
        "optimizer": {"type": "adam", "learning_rate": LR},
        "train_loss_per_epoch": [round(v, 5) for v in losses], "test_accuracy": round(acc, 4),
        "digit": {"test_index": idx, "label": 7, "paddle_top5": top5},
        "ops": fl.op_types((out / "model.pdmodel").read_bytes())})
    print(f"image_classifier: loss {losses[0]:.4f} -> {losses[-1]:.4f}, test accuracy {acc:.4f}, top-5 {top5}")


if __name__ == "__main__":
    main()
