#!/usr/bin/env python3
"""Program and parameter files for examples/fit_a_line and examples/mlp_classifier.

examples/fit_a_line/:     main.pdmodel, startup.pdmodel, init.pdiparams
    The fit_a_line_sgd model (fc 13->1, square_error_cost, mean, SGD lr 0.01,
    batch 20) for the full housing training split, plus paddle_reference.json:
    what Paddle itself reaches training it (EPOCHS_FIT epochs, no shuffle).
examples/mlp_classifier/: main.pdmodel, startup.pdmodel, init.pdiparams,
    model.pdmodel + model.pdiparams (inference: softmax probabilities, after
    10 epochs of Adam lr 0.005 batch 32 in Paddle), paddle_reference.json with
    Paddle's test-set accuracy.
Training in Paddle walks the training split in file order (no shuffle) in
batches of batch_size; the last, shorter batch is kept (drop_last = false)."""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F

SCRIPT = __file__
EPOCHS_FIT = 100
EPOCHS_MLP = 10


def build_fit():
    x = paddle.static.data("x", [-1, 13], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    pred = paddle.static.nn.fc(x, 1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
    test_program = paddle.static.default_main_program().clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
    return {"feeds": [x, y], "loss": loss, "test_program": test_program,
            "fetch_test": test_program.global_block().var(loss.name)}


def build_mlp():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = F.relu(paddle.nn.Linear(64, 64)(x))
    logits = paddle.nn.Linear(64, 10)(h)
    loss = F.cross_entropy(logits, label)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    with paddle.static.program_guard(test_program):
        prob = F.softmax(test_program.global_block().var(logits.name))
    paddle.optimizer.Adam(learning_rate=0.005).minimize(loss)
    return {"feeds": [x, label], "loss": loss, "test_program": test_program, "prob": prob}


def write_programs(outdir, build):
    with fl.new_programs() as (main, startup):
        built = build()
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    main_bytes, startup_bytes = fl.serialize(main), fl.serialize(startup)
    (outdir / "main.pdmodel").write_bytes(main_bytes)
    (outdir / "startup.pdmodel").write_bytes(startup_bytes)
    fl.dump_text(f"example_{outdir.name}.main", main_bytes)
    fl.dump_text(f"example_{outdir.name}.startup", startup_bytes)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        info = fl.save_persistables(exe, main, outdir / "init.pdiparams", scope)
    return main, built, scope, exe, info, main_bytes, startup_bytes


def train(main, built, scope, exe, data, batch, epochs):
    names = [v.name for v in built["feeds"]]
    n = data[names[0]].shape[0]
    epoch_loss = []
    with paddle.static.scope_guard(scope):
        for _ in range(epochs):
            tot, cnt = 0.0, 0
            for s in range(0, n, batch):
                feed = {k: data[k][s:s + batch] for k in names}
                (l,) = exe.run(main, feed=feed, fetch_list=[built["loss"]])
                rows = feed[names[0]].shape[0]
                tot += float(l) * rows
                cnt += rows
            epoch_loss.append(tot / cnt)
    return epoch_loss


def common_meta(main_bytes, startup_bytes, info, built, batch):
    return {
        "script": fl.rel(SCRIPT), **fl.versions(), "seed": fl.SEED,
        "files": ["main.pdmodel", "startup.pdmodel", "init.pdiparams"],
        "feeds": {v.name: fl.feed_info(v) for v in built["feeds"]},
        "loss": built["loss"].name,
        "batch_size": batch,
        "persistables": [n for n, _, _ in info],
        "ops_main": fl.op_types(main_bytes), "ops_startup": fl.op_types(startup_bytes),
        "training_procedure": "Paddle Executor; epochs over the training split in file order, no shuffle, "
                              "consecutive batches of batch_size, last shorter batch kept",
    }


def fit_a_line():
    out = fl.EXAMPLES / "fit_a_line"
    h = fl.load_housing()
    main, built, scope, exe, info, mb, sb = write_programs(out, build_fit)
    data = {"x": h["train_x"], "y": h["train_y"]}
    losses = train(main, built, scope, exe, data, 20, EPOCHS_FIT)
    with paddle.static.scope_guard(scope):
        (test_mse,) = exe.run(built["test_program"], feed={"x": h["test_x"], "y": h["test_y"]},
                              fetch_list=[built["fetch_test"]])
    meta = common_meta(mb, sb, info, built, 20)
    meta.update({
        "optimizer": {"type": "sgd", "learning_rate": 0.01},
        "epochs": EPOCHS_FIT,
        "train_data": {"x": "data/train_x.npy", "y": "data/train_y.npy"},
        "test_data": {"x": "data/test_x.npy", "y": "data/test_y.npy"},
        "paddle_result": {
            "train_mse_per_epoch_first5": [round(v, 4) for v in losses[:5]],
            "train_mse_last_epoch": round(losses[-1], 4),
            "test_mse": round(float(test_mse), 4),
            "note": "mean over samples of (pred - y)^2, y in $1000s; float32 CPU, expect small last-digit differences",
        },
    })
    fl.write_json(out / "paddle_reference.json", meta)
    print(f"fit_a_line: train mse {losses[0]:.2f} -> {losses[-1]:.2f}, test mse {float(test_mse):.2f}")


def mlp_classifier():
    out = fl.EXAMPLES / "mlp_classifier"
    d = fl.load_digits()
    main, built, scope, exe, info, mb, sb = write_programs(out, build_mlp)
    data = {"x": d["train_x"], "label": d["train_label"]}
    losses = train(main, built, scope, exe, data, 32, EPOCHS_MLP)
    prog = built["test_program"]
    with paddle.static.scope_guard(scope):
        paddle.static.save_inference_model(str(out / "model"), [prog.global_block().var("x")],
                                           [built["prob"]], exe, program=prog)
    fl.sanitize_model_file(out / "model.pdmodel")
    fl.dump_text("example_mlp_classifier.model", (out / "model.pdmodel").read_bytes())
    iscope = paddle.static.Scope()
    with paddle.static.scope_guard(iscope):
        iprog, feed_names, fetch_targets = paddle.static.load_inference_model(str(out / "model"), exe)
        (prob,) = exe.run(iprog, feed={"x": d["test_x"]}, fetch_list=fetch_targets)
    pred = prob.argmax(axis=1)
    acc = float((pred == d["test_label"][:, 0]).mean())
    meta = common_meta(mb, sb, info, built, 32)
    meta["files"] += ["model.pdmodel", "model.pdiparams"]
    meta.update({
        "optimizer": {"type": "adam", "learning_rate": 0.005, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
        "epochs": EPOCHS_MLP,
        "train_data": {"x": "data/train_x.npy", "label": "data/train_label.npy"},
        "test_data": {"x": "data/test_x.npy", "label": "data/test_label.npy"},
        "inference_model": {"program": "model.pdmodel", "params": "model.pdiparams",
                            "feed_names": feed_names, "fetch_names": [t.name for t in fetch_targets],
                            "output": "softmax probabilities [N,10]; params = state after the Paddle training run"},
        "paddle_result": {
            "train_loss_per_epoch": [round(v, 4) for v in losses],
            "test_accuracy": round(acc, 4),
            "test_correct": int((pred == d["test_label"][:, 0]).sum()),
            "test_rows": int(pred.shape[0]),
        },
    })
    fl.write_json(out / "paddle_reference.json", meta)
    print(f"mlp_classifier: loss {losses[0]:.3f} -> {losses[-1]:.3f}, test accuracy {acc:.4f}")


if __name__ == "__main__":
    fit_a_line()
    mlp_classifier()
