#!/usr/bin/env python3
"""Fixtures fit_a_line_sgd (training) and infer_fit_a_line (inference).

fit_a_line_sgd: x[-1,13] -> paddle.static.nn.fc(x, 1) -> square_error_cost(pred, y)
-> paddle.mean -> SGD(lr=0.01); batch 20, 20 steps over the first 400 housing
training rows. infer_fit_a_line: the trained forward program exported with
paddle.static.save_inference_model, run on 1 row and on the whole test split."""

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle

SCRIPT = __file__
LR = 0.01
BATCH = 20


def build():
    x = paddle.static.data("x", [-1, 13], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    pred = paddle.static.nn.fc(x, 1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
    test_program = paddle.static.default_main_program().clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=LR).minimize(loss)
    return {"feeds": [x, y], "loss": loss, "test_program": test_program,
            "feeds_infer": [x], "infer_fetch": test_program.global_block().var(pred.name)}


def main():
    h = fl.load_housing()
    trained = fl.make_training_fixture(
        "fit_a_line_sgd", SCRIPT, build, {"x": h["train_x"], "y": h["train_y"]}, BATCH,
        {"type": "sgd", "learning_rate": LR},
        notes="paddle.static.nn.fc emits the legacy `mul` op + elementwise_add(axis=1); "
              "paddle.mean emits reduce_mean(reduce_all=true), loss is 0-D.")
    fl.make_inference_fixture(
        "infer_fit_a_line", SCRIPT, trained,
        {"b1": {"x": h["test_x"][:1]}, "b102": {"x": h["test_x"]}},
        source_fixture="fit_a_line_sgd (final.pdiparams state, i.e. after 20 SGD steps)",
        notes="Output = the fc prediction (no activation). save_inference_model appends "
              "scale(scale=1.0) named save_infer_model/scale_0.tmp_0 and feed/fetch ops.")


if __name__ == "__main__":
    main()
