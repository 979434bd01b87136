#!/usr/bin/env python3
"""Fixtures mlp_adam, mlp_momentum (training) and infer_mlp (inference), digits data.

mlp_adam:     x[-1,64] -> nn.Linear(64,32) -> relu -> nn.Linear(32,10) = logits;
              F.cross_entropy(logits, label) (softmax_with_cross_entropy + reduce_mean);
              Adam(lr=0.01); batch 32.
mlp_momentum: x -> static.nn.fc 48 tanh -> fc 24 sigmoid -> fc 10 -> F.softmax;
              F.cross_entropy(prob, label, use_softmax=False); Momentum(lr=0.05, mu=0.9);
              batch 16.  NOTE: in Paddle 2.6.2 use_softmax=False still emits
              softmax_with_cross_entropy (attr use_softmax=false), not cross_entropy2;
              cross_entropy2 is covered by the hand-built legacy_ops fixture.
infer_mlp:    mlp_adam after its 20 steps, softmax appended to the forward clone,
              exported with save_inference_model; batch 1 and batch 64 of the test split."""

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F

SCRIPT = __file__


def build_adam():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = F.relu(paddle.nn.Linear(64, 32)(x))
    logits = paddle.nn.Linear(32, 10)(h)
    loss = F.cross_entropy(logits, label)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    with paddle.static.program_guard(test_program):
        prob = F.softmax(test_program.global_block().var(logits.name))
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return {"feeds": [x, label], "loss": loss, "test_program": test_program,
            "feeds_infer": [x], "infer_fetch": prob}


def build_momentum():
    x = paddle.static.data("x", [-1, 64], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    h = paddle.static.nn.fc(x, 48, activation="tanh")
    h = paddle.static.nn.fc(h, 24, activation="sigmoid")
    logits = paddle.static.nn.fc(h, 10)
    prob = F.softmax(logits)
    loss = F.cross_entropy(prob, label, use_softmax=False)
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return {"feeds": [x, label], "loss": loss}


def main():
    d = fl.load_digits()
    data = {"x": d["train_x"], "label": d["train_label"]}
    trained = fl.make_training_fixture(
        "mlp_adam", SCRIPT, build_adam, data, 32,
        {"type": "adam", "learning_rate": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
        notes="nn.Linear emits matmul_v2 + elementwise_add(axis=-1); F.cross_entropy emits "
              "softmax_with_cross_entropy(soft_label=false, axis=-1) + reduce_mean.")
    fl.make_training_fixture(
        "mlp_momentum", SCRIPT, build_momentum, data, 16,
        {"type": "momentum", "learning_rate": 0.05, "momentum": 0.9, "use_nesterov": False},
        notes="static.nn.fc emits mul + elementwise_add(axis=1) + activation op. "
              "F.cross_entropy(prob, label, use_softmax=False) emits softmax_with_cross_entropy "
              "with use_softmax=false (NOT cross_entropy2) in Paddle 2.6.2.")
    fl.make_inference_fixture(
        "infer_mlp", SCRIPT, trained,
        {"b1": {"x": d["test_x"][:1]}, "b64": {"x": d["test_x"][:64]}},
        source_fixture="mlp_adam (final.pdiparams state, i.e. after 20 Adam steps)",
        notes="Output = softmax probabilities [N,10]. save_inference_model appends "
              "scale(scale=1.0) -> save_infer_model/scale_0.tmp_0 and feed/fetch ops.")


if __name__ == "__main__":
    main()
